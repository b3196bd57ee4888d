import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Byte-level tests of the box layer, table-driven: each case is the bytes of a box as the
/// standard lays it out, and what they must decode to (and encode back to). The table of every
/// box the writers emit is in MP4BoxTableTests.swift.
@Suite("MP4 box parsing")
struct MP4BoxParsingTests {
    // MARK: Box headers

    struct HeaderCase: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let available: UInt64
        let expected: MP4BoxHeader?
        var testDescription: String { name }
    }

    static let headerCases: [HeaderCase] = [
        HeaderCase(name: "32-bit size", bytes: [0, 0, 0, 16, 0x66, 0x72, 0x65, 0x65], available: 100,
                   expected: MP4BoxHeader(type: "free", offset: 0, headerSize: 8, size: 16)),
        HeaderCase(name: "64-bit largesize", bytes: [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 1, 0, 0, 0, 0], available: 1 << 33,
                   expected: MP4BoxHeader(type: "mdat", offset: 0, headerSize: 16, size: 1 << 32)),
        HeaderCase(name: "size 0 runs to the end", bytes: [0, 0, 0, 0, 0x6D, 0x64, 0x61, 0x74], available: 5000,
                   expected: MP4BoxHeader(type: "mdat", offset: 0, headerSize: 8, size: 5000)),
        HeaderCase(name: "uuid has a 16-byte user type", bytes: [0, 0, 0, 40, 0x75, 0x75, 0x69, 0x64], available: 40,
                   expected: MP4BoxHeader(type: "uuid", offset: 0, headerSize: 24, size: 40)),
        HeaderCase(name: "size smaller than the header", bytes: [0, 0, 0, 4, 0x66, 0x72, 0x65, 0x65], available: 100, expected: nil),
        HeaderCase(name: "size past the container", bytes: [0, 0, 0, 200, 0x66, 0x72, 0x65, 0x65], available: 100, expected: nil),
        HeaderCase(name: "largesize cut short", bytes: [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0], available: 10, expected: nil),
        HeaderCase(name: "fewer than 8 bytes", bytes: [0, 0, 0], available: 3, expected: nil),
    ]

    @Test("box headers", arguments: headerCases)
    func header(_ testCase: HeaderCase) {
        var reader = ByteReader(testCase.bytes)
        let result = Result { () throws(WireFailure) in try MP4BoxHeader.read(from: &reader, available: testCase.available) }
        switch (result, testCase.expected) {
        case (.success(let header), let expected?):
            #expect(header == expected)
        case (.failure(let failure), nil):
            #expect(failure.kind == .malformed)
            #expect(failure.offset == 0)
        case (let outcome, _):
            Issue.record("unexpected outcome \(outcome)")
        }
    }

    // MARK: Typed boxes: the table of every box written is in MP4BoxTableTests.swift

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// `(a, b, c, d)` of the matrix in units of 1.0 (0x10000), and how it is told.
    @Test("display matrices are told as turns, anything else by its values", arguments: [
        ([1, 0, 0, 1], 0, "unrotated"), ([0, 1, -1, 0], 90, "rotated 90° clockwise"), ([-1, 0, 0, -1], 180, "rotated 180°"),
        ([0, -1, 1, 0], 270, "rotated 90° counterclockwise"),
        ([-1, 0, 0, 1], nil, "transformed by the display matrix [-65536, 0, 0, 0, 65536, 0, 0, 0, 1073741824]"),
    ] as [([Int32], Int?, String)])
    func displayMatrices(abcd: [Int32], turn: Int?, told: String) {
        let matrix = DisplayMatrix(values: [abcd[0] << 16, abcd[1] << 16, 0, abcd[2] << 16, abcd[3] << 16, 0, 0, 0, 0x4000_0000])
        #expect(matrix.clockwiseRotation == turn)
        #expect(matrix.description == told)
        // The translation moves the turned picture back into view; it does not make it another turn.
        var moved = matrix
        moved.values[6] = 1080 << 16
        #expect(moved.showsAlike(matrix) == (turn != nil))
    }

    // MARK: Failures: lies and truncation are malformed; valid but unknown is unsupported

    struct FailureCase: CustomTestStringConvertible, Sendable {
        let name: String
        let parse: @Sendable () throws -> Void
        let kind: WireFailure.Kind
        var testDescription: String { name }
    }

    static let failureCases: [FailureCase] = [
        FailureCase(name: "stts count larger than its bytes", parse: {
            var r = ByteReader([0, 0, 0, 0] + be32(0x1000_0000) + be32(1) + be32(1)); _ = try TimeToSampleBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "absurd stsz sample count", parse: {
            var r = ByteReader([0, 0, 0, 0] + be32(0) + be32(0xFFFF_FFFF) + be32(1)); _ = try SampleSizeBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "stco cut short", parse: {
            var r = ByteReader([0, 0, 0, 0] + be32(2) + be32(48)); _ = try ChunkOffsetBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "stsc chunks not increasing", parse: {
            var r = ByteReader([0, 0, 0, 0] + be32(2) + be32(3) + be32(1) + be32(1) + be32(2) + be32(1) + be32(1))
            _ = try SampleToChunkBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "elst media time below -1", parse: {
            var r = ByteReader([0, 0, 0, 0] + be32(1) + be32(10) + be32(UInt32(bitPattern: -5)) + [0, 1, 0, 0]); _ = try EditListBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "mvhd version 2", parse: {
            var r = ByteReader([2, 0, 0, 0] + [UInt8](repeating: 0, count: 96)); _ = try MovieHeaderBox(parsing: &r)
        }, kind: .unsupported),
        FailureCase(name: "mdhd timescale 0", parse: {
            var r = ByteReader([0, 0, 0, 0] + [UInt8](repeating: 0, count: 20)); _ = try MediaHeaderBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "sidx table cut short", parse: {
            var r = ByteReader([0, 0, 0, 0] + be32(1) + be32(90_000) + be32(0) + be32(0) + [0, 0, 0, 3]
                               + be32(1000) + be32(90_000) + be32(0x9000_0000) + be32(1 << 31 | 2000) + be32(90_000) + be32(0))
            _ = try SegmentIndexBox(parsing: &r)
        }, kind: .malformed),
        FailureCase(name: "stz2 field size 5", parse: {
            var r = ByteReader([0, 0, 0, 0, 0, 0, 0, 5] + be32(1) + [0]); _ = try SampleSizeBox(parsingCompact: &r)
        }, kind: .malformed),
    ]

    @Test("failures", arguments: failureCases)
    func failure(_ testCase: FailureCase) {
        do {
            try testCase.parse()
            Issue.record("parsed without error")
        } catch let failure as WireFailure {
            #expect(failure.kind == testCase.kind, "\(failure.reason)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("the failure offset is where the bad bytes are, in file coordinates")
    func failureOffset() {
        // An stts payload read as if it sat at byte 1000 of a file: the count is at 1004.
        var reader = ByteReader([0, 0, 0, 0] + Self.be32(5), fileOffset: 1000)
        let result = Result { () throws(WireFailure) in try TimeToSampleBox(parsing: &reader) }
        guard case .failure(let failure) = result else { Issue.record("parsed without error"); return }
        #expect(failure.offset == 1008)
    }

    // MARK: Codec configurations

    @Test("AudioSpecificConfig: AAC-LC 48 kHz stereo, 44.1 kHz mono, HE-AAC, explicit rate")
    func audioSpecificConfig() throws {
        let lc = try AudioSpecificConfig(bytes: [0x11, 0x90])
        #expect((lc.objectType, lc.sampleRate, lc.channelConfiguration, lc.samplesPerFrame) == (2, 48000, 2, 1024))
        let mono = try AudioSpecificConfig(bytes: [0x12, 0x08])
        #expect((mono.sampleRate, mono.channelConfiguration) == (44100, 1))
        // SBR (5) at 24 kHz core, 48 kHz extension, core AAC-LC.
        let he = try AudioSpecificConfig(bytes: [0x2B, 0x11, 0x88, 0x00])
        #expect((he.objectType, he.coreObjectType, he.sampleRate) == (5, 2, 24000))
        #expect(throws: WireFailure.self) { try AudioSpecificConfig(bytes: [0x17]) }
    }

    @Test("silent AAC frames: one element per channel layout, no bands")
    func silentFrames() throws {
        let mono = try #require(SilentAACFrame.bytes(for: try AudioSpecificConfig(bytes: [0x12, 0x08])))
        // SCE id 0, tag 0, global_gain 100 (0b01100100), long window, max_sfb 0, no pulse / TNS /
        // gain control, then ID_END (0b111): 32 bits.
        #expect(mono == [0x00, 0xC8, 0x00, 0x07])
        let stereo = try #require(SilentAACFrame.bytes(for: try AudioSpecificConfig(bytes: [0x11, 0x90])))
        #expect(stereo.count == 7)
        #expect(SilentAACFrame.bytes(for: try AudioSpecificConfig(bytes: [0x11, 0x80])) == nil)  // channel config 0
    }

    @Test("ffmpeg decodes silent AAC frames to digital silence, without errors", .needsFFmpeg)
    func silentFramesDecode() async throws {
        let tools = try FFmpeg.require()
        let config = try AudioSpecificConfig(bytes: [0x11, 0x90])  // AAC-LC, 48 kHz, stereo
        let frame = try #require(SilentAACFrame.bytes(for: config))
        // An ADTS stream: a 7-byte header (no CRC) before each raw frame.
        var stream: [UInt8] = []
        for _ in 0..<10 {
            var header = BitWriter()
            header.write(0xFFF, bits: 12); header.write(0, bits: 1); header.write(0, bits: 2); header.write(1, bits: 1)
            header.write(config.objectType - 1, bits: 2); header.write(3, bits: 4); header.write(0, bits: 1)
            header.write(config.channelConfiguration, bits: 3); header.write(0, bits: 4)
            header.write(7 + frame.count, bits: 13); header.write(0x7FF, bits: 11); header.write(0, bits: 2)
            stream += header.bytesPaddedToByte() + frame
        }
        let folder = try MP4Fixtures.makeScratchFolder()
        defer { MP4Fixtures.remove(folder) }
        try MP4Fixtures.write(stream, to: folder + "/silence.aac")
        let output = try await ChildProcess.run(tools.ffmpeg, ["-v", "error", "-i", folder + "/silence.aac", "-f", "s16le", folder + "/pcm"])
        #expect(output.stderr.isEmpty && output.status == 0, "\(output.stderr)")
        let pcm = try MP4Fixtures.bytes(folder + "/pcm")
        #expect(pcm.count >= 9 * 1024 * 2 * 2)
        #expect(pcm.allSatisfy { $0 == 0 })
    }
}
