import Testing
import CompositorTestSupport
import CompositorCore
@testable import CompositorTS

/// The transport stream writer, byte by byte, and read back by this library's own demuxer.
@Suite("Transport stream writer")
struct TransportStreamMuxerTests {
    @Test("PAT and PMT: the PAT is byte for byte ffmpeg's (program 1, PMT on 0x1000), CRCs check")
    func tables() {
        var muxer = TransportStreamMuxer(video: .h264, hasAudio: true)
        var written = OutputBytes()
        muxer.writeTables(into: &written)
        let out = written.array
        #expect(out.count == 2 * 188)
        // ffmpeg's mpegts muxer writes exactly this PAT section, CRC 2a b1 04 b2.
        #expect(Array(out[0..<21]) == [0x47, 0x40, 0x00, 0x10, 0x00,
                                       0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00,
                                       0x2A, 0xB1, 0x04, 0xB2])
        #expect(out[21..<188].allSatisfy { $0 == 0xFF })
        // PMT: PCR on the video PID, H.264 (0x1B) on 0x100, AAC in ADTS (0x0F) on 0x101.
        let pmt = Array(out[188 + 5..<188 + 5 + 3 + 0x17])
        #expect(Array(pmt[0..<22]) == [0x02, 0xB0, 0x17, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xF0, 0x00,
                                       0x1B, 0xE1, 0x00, 0xF0, 0x00, 0x0F, 0xE1, 0x01, 0xF0, 0x00])
        // A section with its CRC appended checks to 0.
        #expect(CRC32MPEG2.checksum(pmt) == 0)
    }

    struct PESCase: Sendable, CustomStringConvertible {
        let name: String
        let payloadLength: Int
        let packets: Int
        /// Flags and PCR, then the first packet's stuffing when the whole PES fits in it.
        var firstAdaptationLength = 7
        var description: String { name }
    }

    /// A video PES: 19 header bytes, then the payload; the first packet spends 8 bytes on the
    /// adaptation field (flags and PCR), the last is stuffed.
    @Test("a PES cut into packets, stuffed, read back with its timestamps", arguments: [
        PESCase(name: "fits one packet exactly (184 - 8 - 19)", payloadLength: 157, packets: 1),
        PESCase(name: "shorter: stuffed after the PCR", payloadLength: 100, packets: 1, firstAdaptationLength: 7 + 57),
        PESCase(name: "no payload", payloadLength: 0, packets: 1, firstAdaptationLength: 7 + 157),
        PESCase(name: "one byte over: a second packet stuffed with 183 bytes", payloadLength: 158, packets: 2),
        PESCase(name: "second packet stuffed by its length byte alone", payloadLength: 157 + 183, packets: 2),
        PESCase(name: "many packets", payloadLength: 10_000, packets: 55),
    ])
    func videoPES(_ test: PESCase) throws {
        var muxer = TransportStreamMuxer(video: .h264, hasAudio: false)
        var written = OutputBytes()
        muxer.writeTables(into: &written)
        let payload = (0..<test.payloadLength).map { UInt8(truncatingIfNeeded: $0) }
        // In pieces of 1, 2, 3, ... bytes, and an empty one: a packet's payload may take from several.
        var cuts = [0, 0]
        while let last = cuts.last, last < payload.count { cuts.append(min(payload.count, last + cuts.count - 1)) }
        payload.withUnsafeBytes { bytes in
            let pieces = zip(cuts, cuts.dropFirst()).map { UnsafeRawBufferPointer(rebasing: bytes[$0..<$1]) }
            muxer.writeVideo(pieces, pts: 0x1_2345_6789, dts: 0x1_2345_0000, isKeyframe: true, into: &written)
        }
        let out = written.array
        #expect(out.count == (2 + test.packets) * 188)
        // The first video packet: adaptation field with the random access indicator and a PCR 0.1 s before the DTS.
        let first = Array(out[376..<(376 + 12)])
        let pcr = (UInt64(0x1_2345_0000) - 9000)
        #expect(Array(first[0..<6]) == [0x47, 0x41, 0x00, 0x30, UInt8(test.firstAdaptationLength), 0x50])
        #expect(Array(first[6..<12]) == [UInt8(pcr >> 25), UInt8((pcr >> 17) & 0xFF), UInt8((pcr >> 9) & 0xFF),
                                         UInt8((pcr >> 1) & 0xFF), UInt8((pcr & 1) << 7) | 0x7E, 0x00])
        #expect(out[(376 + 12)..<(376 + 5 + test.firstAdaptationLength)].allSatisfy { $0 == 0xFF })
        var demuxer = ProgramDemuxer(streamTypes: [0x1B])
        var packets: [PESPacket] = []
        for start in stride(from: 0, to: out.count, by: 188) {
            try out[start..<(start + 188)].withUnsafeBytes { raw in
                try Result { () throws(WireFailure) in try demuxer.add(raw, at: UInt64(start)) }.get()
            }.map { packets.append($0) }
        }
        packets += try demuxer.finish()
        #expect(packets.count == 1)
        #expect(packets.first?.header.pts == 0x1_2345_6789)
        #expect(packets.first?.header.dts == 0x1_2345_0000)
        #expect(packets.first?.payload == payload)
    }

    @Test("audio PES: bounded length, PTS only, continuity counters count on")
    func audioPES() throws {
        var muxer = TransportStreamMuxer(video: .h264, hasAudio: true)
        var written = OutputBytes()
        for _ in 0..<3 { [UInt8](repeating: 7, count: 300).withUnsafeBytes { muxer.writeAudio([$0], pts: 90000, into: &written) } }
        let out = written.array
        #expect(out.count == 6 * 188)
        #expect(stride(from: 0, to: out.count, by: 188).map { out[$0 + 3] & 0x0F } == [0, 1, 2, 3, 4, 5])
        // The random access indicator in a 1-byte adaptation field, then the PES header:
        // 00 00 01 C0, length 3 + 5 + 300, '10' data alignment, PTS only, 5 header bytes.
        #expect(Array(out[0..<6]) == [0x47, 0x41, 0x01, 0x30, 0x01, 0x40])
        #expect(Array(out[6..<15]) == [0x00, 0x00, 0x01, 0xC0, 0x01, 0x34, 0x84, 0x80, 0x05])
        // PTS 90000 (0x15F90): '0010', bits 32-30, marker; 29-15, marker; 14-0, marker.
        #expect(Array(out[15..<20]) == [0x21, 0x00, 0x05, 0xBF, 0x21])
        // The second packet: 300 + 14 - (184 - 2) = 132 bytes left, after a 51-byte adaptation
        // field of flags 00 and 0xFF stuffing.
        #expect(Array(out[188..<194]) == [0x47, 0x01, 0x01, 0x31, 51, 0x00])
        #expect(out[194..<(188 + 4 + 52)].allSatisfy { $0 == 0xFF })
        #expect(out[(188 + 4 + 52)..<376].allSatisfy { $0 == 7 })
    }

    @Test("ADTS headers: AAC-LC 48 kHz stereo; too long a frame has none")
    func adts() throws {
        let header = try #require(ADTSHeader.bytes(audioObjectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: 100))
        #expect(header == [0xFF, 0xF1, 0x4C, 0x80, 0x0D, 0x7F, 0xFC])
        let parsed = try header.withUnsafeBytes { raw in Result { () throws(WireFailure) in try ADTSHeader(raw, at: 0) } }.get()
        #expect(parsed.frameLength == 107)
        #expect(parsed.audioSpecificConfig == [0x11, 0x90])
        #expect(ADTSHeader.bytes(audioObjectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: 8185) == nil)
    }

    struct AccessUnitCase: Sendable, CustomStringConvertible {
        let name: String
        let sample: [UInt8]
        let lengthSize: Int
        let parameterSets: [[UInt8]]
        let annexB: [UInt8]
        var format: VideoCodingFormat = .h264
        var keyframe = true
        /// Anything but delimiters and parameter sets: a picture the muxer writes.
        var holdsPicture = true
        var description: String { name }
    }

    @Test("length-prefixed access units to Annex B, and whether they hold a picture", arguments: [
        AccessUnitCase(name: "keyframe: AUD, SPS, PPS, slice", sample: [0, 0, 0, 2, 0x65, 0x88], lengthSize: 4,
                       parameterSets: [[0x67, 1], [0x68, 2]],
                       annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x67, 1, 0, 0, 0, 1, 0x68, 2, 0, 0, 0, 1, 0x65, 0x88]),
        AccessUnitCase(name: "not a keyframe: no parameter sets", sample: [0, 0, 0, 2, 0x41, 0x9A], lengthSize: 4,
                       parameterSets: [[0x67, 1], [0x68, 2]], annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 0x9A], keyframe: false),
        AccessUnitCase(name: "sample with its own AUD and SPS: nothing added", sample: [0, 2, 0x09, 0xF0, 0, 2, 0x67, 9, 0, 1, 0x65],
                       lengthSize: 2, parameterSets: [[0x67, 1]],
                       annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x67, 9, 0, 0, 0, 1, 0x65]),
        AccessUnitCase(name: "sample with its own AUD, no SPS: the parameter sets after its AUD",
                       sample: [0, 0, 0, 2, 0x09, 0x10, 0, 0, 0, 2, 0x65, 0x88], lengthSize: 4, parameterSets: [[0x67, 1], [0x68, 2]],
                       annexB: [0, 0, 0, 1, 0x09, 0x10, 0, 0, 0, 1, 0x67, 1, 0, 0, 0, 1, 0x68, 2, 0, 0, 0, 1, 0x65, 0x88]),
        AccessUnitCase(name: "1-byte lengths, two slices", sample: [1, 0x41, 2, 0x01, 0x02], lengthSize: 1, parameterSets: [],
                       annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 0, 0, 0, 1, 0x01, 0x02]),
        AccessUnitCase(name: "a unit of length 0 left out", sample: [0, 0, 0, 0, 0, 0, 0, 1, 0x41], lengthSize: 4, parameterSets: [],
                       annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41]),
        AccessUnitCase(name: "an empty sample: the delimiter alone, no picture", sample: [], lengthSize: 4, parameterSets: [[0x67, 1]],
                       annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x67, 1], holdsPicture: false),
        AccessUnitCase(name: "a delimiter and an SPS: no picture", sample: [0, 2, 0x09, 0xF0, 0, 2, 0x67, 9], lengthSize: 2,
                       parameterSets: [], annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x67, 9], holdsPicture: false),
        // HEVC: 2-byte headers, type in bits 1-6 (IDR_W_RADL 19 = 0x26 0x01), AUD 35 with pic_type 2.
        AccessUnitCase(name: "HEVC keyframe: AUD, VPS, SPS, PPS, IDR", sample: [0, 0, 0, 3, 0x26, 0x01, 0xAF], lengthSize: 4,
                       parameterSets: [[0x40, 0x01, 1], [0x42, 0x01, 2], [0x44, 0x01, 3]],
                       annexB: [0, 0, 0, 1, 0x46, 0x01, 0x50, 0, 0, 0, 1, 0x40, 0x01, 1, 0, 0, 0, 1, 0x42, 0x01, 2,
                                0, 0, 0, 1, 0x44, 0x01, 3, 0, 0, 0, 1, 0x26, 0x01, 0xAF], format: .hevc),
        AccessUnitCase(name: "HEVC sample with its own SPS: no parameter sets added", sample: [0, 3, 0x42, 0x01, 9, 0, 3, 0x02, 0x01, 0xD0],
                       lengthSize: 2, parameterSets: [[0x42, 0x01, 2]],
                       annexB: [0, 0, 0, 1, 0x46, 0x01, 0x50, 0, 0, 0, 1, 0x42, 0x01, 9, 0, 0, 0, 1, 0x02, 0x01, 0xD0], format: .hevc),
    ])
    func accessUnits(_ test: AccessUnitCase) throws {
        let framing = AnnexBFraming(format: test.format, lengthSize: test.lengthSize, parameterSets: test.parameterSets)
        let (annexB, holdsPicture) = try test.sample.withUnsafeBytes { raw in
            try Result { () throws(WireFailure) in
                var pieces: [UnsafeRawBufferPointer] = []
                let holdsPicture = try framing.appendPieces(of: raw, withParameterSets: test.keyframe, to: &pieces, at: 0)
                return (pieces.flatMap { Array($0) }, holdsPicture)
            }.get()
        }
        #expect(annexB == test.annexB)
        #expect(holdsPicture == test.holdsPicture)
    }

    /// An SPS and PPS of a 32x32 x264 clip (Tests/Fuzz/seeds/mp4/video-only.mp4's `avcC`).
    static let sps: [UInt8] = [0x67, 0xF4, 0x00, 0x0A, 0x91, 0x96, 0x89, 0x6C, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00,
                               0x00, 0x05, 0x03, 0xC4, 0x89, 0xA8]
    static let pps: [UInt8] = [0x68, 0xCE, 0x0F, 0x19, 0x20]

    struct InBandCase: Sendable, CustomStringConvertible {
        let name: String
        let sets: [[UInt8]]
        var format: VideoCodingFormat = .h264
        /// The refusal's reason; `nil` when the sets can be carried.
        let refusal: String?
        var description: String { name }
    }

    @Test("parameter sets a reader of the stream would refuse are refused before anything is written", arguments: [
        InBandCase(name: "an SPS and a PPS", sets: [sps, pps], refusal: nil),
        InBandCase(name: "none: the samples carry their own", sets: [], refusal: nil),
        InBandCase(name: "an empty unit", sets: [sps, [], pps], refusal: "parameter set 2 is 0 byte, shorter than its H.264 header"),
        InBandCase(name: "an HEVC unit of one byte", sets: [[0x40]], format: .hevc,
                   refusal: "parameter set 1 is 1 byte, shorter than its HEVC header"),
        InBandCase(name: "a slice among them", sets: [sps, pps, [0x65, 0x88]], refusal: "parameter set 3 is a NAL unit of type 5"),
        InBandCase(name: "a start code inside", sets: [sps, [0x68, 0x00, 0x00, 0x01, 0x20]],
                   refusal: "parameter set 2 holds a start code (00 00 01) or ends in a zero byte: emulation prevention is missing, and an Annex B stream cannot carry it"),
        InBandCase(name: "a zero byte at the end", sets: [sps, [0x68, 0xCE, 0x00]],
                   refusal: "parameter set 2 holds a start code (00 00 01) or ends in a zero byte: emulation prevention is missing, and an Annex B stream cannot carry it"),
        InBandCase(name: "an SPS too short to read", sets: [[0x67, 0x42], pps],
                   refusal: "parameter set 1: an SPS too short for its id"),
        InBandCase(name: "no PPS", sets: [sps], refusal: "no PPS among the parameter sets, which a decoder needs beside the others"),
        InBandCase(name: "HEVC without a VPS or SPS", sets: [[0x44, 0x01, 0xC1]], format: .hevc,
                   refusal: "no VPS or SPS among the parameter sets, which a decoder needs beside the others"),
    ])
    func inBandParameterSets(_ test: InBandCase) {
        let result = Result { () throws(WireFailure) in try AnnexBFraming.checkInBand(test.sets, format: test.format) }
        switch (result, test.refusal) {
        case (.success, nil): break
        case (.failure(let failure), let refusal?): #expect(failure == .malformed(refusal, at: 0))
        case (.success, let refusal?): Issue.record("carried, but should be refused: \(refusal)")
        case (.failure(let failure), nil): Issue.record("refused: \(failure.reason)")
        }
    }

    @Test("a NAL length past the sample's end is malformed, with the sample's offset")
    func brokenSample() {
        let framing = AnnexBFraming(format: .h264, lengthSize: 4, parameterSets: [])
        #expect(throws: WireFailure.malformed("a NAL unit of 9 bytes at byte 0 runs past the end of its 6-byte sample", at: 4096)) {
            try ([0, 0, 0, 9, 0x65, 0] as [UInt8]).withUnsafeBytes { raw in
                try Result { () throws(WireFailure) in
                    var pieces: [UnsafeRawBufferPointer] = []
                    try framing.appendPieces(of: raw, withParameterSets: true, to: &pieces, at: 4096)
                }.get()
            }
        }
    }
}
