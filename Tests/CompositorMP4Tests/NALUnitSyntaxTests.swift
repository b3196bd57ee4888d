import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTS

/// What a sample's NAL unit headers say, byte by byte (4-byte length prefixes).
@Suite("NAL unit types as decode starts")
struct NALUnitSyntaxTests {
    /// A sample of NAL units, each given by its header bytes and padded to `length` bytes.
    static func sample(_ units: [[UInt8]], length: Int = 6) -> [UInt8] {
        units.flatMap { header in [0, 0, 0, UInt8(length)] + header + [UInt8](repeating: 0xAA, count: length - header.count) }
    }

    static func decodeStart(_ codec: VideoCodingFormat, _ sample: [UInt8]) throws -> DecodeStart {
        try NALUnitSyntax(codec: codec, lengthSize: 4).decodeStart(ofSampleOf: sample.count) { (position, count) throws(MP4Error) in
            Array(sample[position..<(position + count)])
        }
    }

    @Test("H.264: the first slice decides; SEI, SPS, PPS and delimiters say nothing", arguments: [
        ([[0x09, 0x10], [0x06, 0x05], [0x67, 0x64], [0x68, 0xEE], [0x65, 0x88]], DecodeStart.closed),  // AUD SEI SPS PPS IDR
        ([[0x06, 0x05], [0x41, 0x9A]], DecodeStart.none),                                              // SEI, non-IDR slice
        ([[0x25, 0x88]], DecodeStart.closed),                                                           // IDR, nal_ref_idc 1
        ([[0x06, 0x05]], DecodeStart.none),                                                             // no slice at all
    ] as [([[UInt8]], DecodeStart)])
    func h264(units: [[UInt8]], expected: DecodeStart) throws {
        #expect(try Self.decodeStart(.h264, Self.sample(units)) == expected)
    }

    @Test("HEVC: IDR and BLA are closed, CRA is a clean random access, other pictures are no start", arguments: [
        ([[0x46, 0x01], [0x40, 0x01], [0x42, 0x01], [0x44, 0x01], [0x26, 0x01]], DecodeStart.closed),  // AUD VPS SPS PPS IDR_W_RADL
        ([[0x28, 0x01]], DecodeStart.closed),             // IDR_N_LP
        ([[0x20, 0x01]], DecodeStart.closed),             // BLA_W_LP
        ([[0x4E, 0x01], [0x2A, 0x01]], DecodeStart.cleanRandomAccess),  // SEI, CRA_NUT
        ([[0x02, 0x01]], DecodeStart.none),               // TRAIL_R
        ([[0x10, 0x01]], DecodeStart.none),               // RASL_N
        ([[0x2C, 0x01]], DecodeStart.none),               // reserved IRAP 22
    ] as [([[UInt8]], DecodeStart)])
    func hevc(units: [[UInt8]], expected: DecodeStart) throws {
        #expect(try Self.decodeStart(.hevc, Self.sample(units)) == expected)
    }

    @Test("lengths that do not fit the sample are no start, not a crash")
    func malformed() throws {
        var sample = Self.sample([[0x65, 0x88]])
        sample[3] = 200  // claims 200 bytes of 10
        #expect(try Self.decodeStart(.h264, sample) == .none)
        #expect(try Self.decodeStart(.h264, [0, 0, 0, 0, 0x65]) == .none)  // zero length
        #expect(try Self.decodeStart(.h264, [0, 0, 0]) == .none)           // shorter than a prefix
    }

    @Test("a splice marks every CRA slice BLA_N_LP and nothing else")
    func splice() {
        var sample = Self.sample([[0x4E, 0x01], [0x2A, 0x01], [0x2A, 0x01], [0x02, 0x01]])
        let before = sample
        NALUnitSyntax(codec: .hevc, lengthSize: 4).markAsSplice(&sample)
        let headers = stride(from: 4, to: sample.count, by: 10).map { sample[$0] }
        #expect(headers == [0x4E, 0x24, 0x24, 0x02])
        #expect(zip(sample, before).filter { $0 != $1 }.count == 2)
        var h264 = Self.sample([[0x65, 0x88]])
        NALUnitSyntax(codec: .h264, lengthSize: 4).markAsSplice(&h264)
        #expect(h264 == Self.sample([[0x65, 0x88]]))
    }
}
