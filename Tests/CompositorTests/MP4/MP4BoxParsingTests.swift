import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Byte-level tests of the box layer, table-driven: each case is the bytes of a box payload as
/// the standard lays it out, and what they must decode to (and encode back to).
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
        let result = Result { () throws(MP4ParseFailure) in try MP4BoxHeader.read(from: &reader, available: testCase.available) }
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

    // MARK: Typed boxes, round trip

    /// Payload bytes and the value they are; writing the value back must give the same bytes.
    struct RoundTrip<Box: MP4ParsableBox & MP4WritableBox & Equatable>: Sendable {
        let bytes: [UInt8]
        let value: Box

        func check(sourceLocation: SourceLocation = #_sourceLocation) {
            var reader = ByteReader(bytes)
            let parsed = Result { () throws(MP4ParseFailure) in try Box(parsing: &reader) }
            #expect((try? parsed.get()) == value, sourceLocation: sourceLocation)
            var writer = ByteWriter()
            value.writePayload(to: &writer)
            #expect(writer.bytes == bytes, sourceLocation: sourceLocation)
        }
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

    @Test("stts: counts and deltas")
    func timeToSample() {
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(2) + Self.be32(938) + Self.be32(1024) + Self.be32(1) + Self.be32(512),
                  value: TimeToSampleBox(entries: [.init(count: 938, delta: 1024), .init(count: 1, delta: 512)])).check()
        #expect(TimeToSampleBox(durations: [512, 512, 512, 1001]).entries == [.init(count: 3, delta: 512), .init(count: 1, delta: 1001)])
    }

    @Test("ctts: version 0 and version 1 with negative offsets")
    func compositionOffsets() {
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(1) + Self.be32(3) + Self.be32(1024),
                  value: CompositionOffsetBox(version: 0, entries: [.init(count: 3, offset: 1024)])).check()
        RoundTrip(bytes: [1, 0, 0, 0] + Self.be32(2) + Self.be32(1) + Self.be32(1024) + Self.be32(2) + Self.be32(UInt32(bitPattern: -512)),
                  value: CompositionOffsetBox(version: 1, entries: [.init(count: 1, offset: 1024), .init(count: 2, offset: -512)])).check()
        #expect(CompositionOffsetBox(offsets: [0, -512, -512]).version == 1)
        #expect(CompositionOffsetBox(offsets: [0, 512]).version == 0)
    }

    @Test("elst: version 0 and 1, empty edits as -1")
    func editList() {
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(2) + Self.be32(500) + Self.be32(UInt32(bitPattern: -1)) + [0, 1, 0, 0]
                    + Self.be32(20000) + Self.be32(1024) + [0, 1, 0, 0],
                  value: EditListBox(entries: [MP4EditListEntry(segmentDuration: 500, mediaTime: nil),
                                               MP4EditListEntry(segmentDuration: 20000, mediaTime: 1024)])).check()
        RoundTrip(bytes: [1, 0, 0, 0] + Self.be32(1) + Self.be64(1 << 33) + Self.be64(7) + [0, 1, 0, 0],
                  value: EditListBox(entries: [MP4EditListEntry(segmentDuration: 1 << 33, mediaTime: 7)])).check()
    }

    @Test("tfhd, tfdt, trex and trun: each optional field by its flag")
    func fragmentBoxes() {
        RoundTrip(bytes: [0, 2, 0, 0] + Self.be32(1), value: TrackFragmentHeaderBox(trackID: 1)).check()
        RoundTrip(bytes: [0, 0, 0, 0x3B] + Self.be32(2) + Self.be64(4096) + Self.be32(1) + Self.be32(1024) + Self.be32(6) + Self.be32(0x0200_0000),
                  value: TrackFragmentHeaderBox(trackID: 2, baseDataOffset: 4096, sampleDescriptionIndex: 1, defaultSampleDuration: 1024,
                                                defaultSampleSize: 6, defaultSampleFlags: 0x0200_0000, defaultBaseIsMoof: false)).check()
        RoundTrip(bytes: [1, 0, 0, 0] + Self.be64(1 << 33), value: TrackFragmentDecodeTimeBox(baseMediaDecodeTime: 1 << 33)).check()
        var version0 = ByteReader([0, 0, 0, 0] + Self.be32(1_280_000))
        #expect((try? TrackFragmentDecodeTimeBox(parsing: &version0))?.baseMediaDecodeTime == 1_280_000)
        var trex = TrackExtendsBox(trackID: 2)
        trex.defaultSampleDuration = 1024
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(2) + Self.be32(1) + Self.be32(1024) + Self.be32(0) + Self.be32(0), value: trex).check()
        // Data offset, first-sample flags, sizes and (negative, so version 1) composition offsets.
        RoundTrip(bytes: [1, 0, 0x0A, 0x05] + Self.be32(2) + Self.be32(100) + Self.be32(0x0200_0000)
                    + Self.be32(500) + Self.be32(512) + Self.be32(40) + Self.be32(UInt32(bitPattern: -512)),
                  value: TrackFragmentRunBox(sampleCount: 2, dataOffset: 100, firstSampleFlags: 0x0200_0000, durations: nil,
                                             sizes: [500, 40], flags: nil, compositionOffsets: [512, -512])).check()
        // No per-sample field: a count of any size costs nothing to read.
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(1 << 30),
                  value: TrackFragmentRunBox(sampleCount: 1 << 30, dataOffset: nil, durations: nil, sizes: nil, flags: nil, compositionOffsets: nil)).check()
        #expect(TrackFragmentRunBox.isSync(flags: TrackFragmentRunBox.syncSampleFlags))
        #expect(!TrackFragmentRunBox.isSync(flags: TrackFragmentRunBox.nonSyncSampleFlags))
    }

    /// ```
    /// |sidx ...|<- first_offset ->|subsegment 1 (1000)|subsegment 2 (2000)|
    ///          ^ box end 500       ^ 520              ^ 1520
    /// ```
    @Test("sidx: version 0 and 1, where each subsegment starts; a truncated table is malformed")
    func segmentIndex() throws {
        let entries = Self.be32(1000) + Self.be32(90_000) + Self.be32(0x9000_0000) + Self.be32(1 << 31 | 2000) + Self.be32(90_000) + Self.be32(0)
        var version0 = ByteReader([0, 0, 0, 0] + Self.be32(1) + Self.be32(90_000) + Self.be32(0) + Self.be32(20) + [0, 0, 0, 2] + entries)
        let index = try SegmentIndexBox(parsing: &version0)
        #expect(index.referenceID == 1 && index.timescale == 90_000 && index.firstOffset == 20)
        #expect(index.references == [.init(referencesIndex: false, size: 1000), .init(referencesIndex: true, size: 2000)])
        #expect(index.referenceOffsets(boxEnd: 500) == [520, 1520])
        var version1 = ByteReader([1, 0, 0, 0] + Self.be32(2) + Self.be32(1000) + Self.be64(1 << 40) + Self.be64(1 << 33) + [0, 0, 0, 1]
                                  + Self.be32(7) + Self.be32(0) + Self.be32(0))
        let wide = try SegmentIndexBox(parsing: &version1)
        #expect(wide.earliestPresentationTime == 1 << 40 && wide.referenceOffsets(boxEnd: 100) == [100 + 1 << 33])
        // Offsets that would pass 2^64 are left out, not wrapped.
        var past = wide
        past.firstOffset = .max
        #expect(past.referenceOffsets(boxEnd: 2).isEmpty)
        var short = ByteReader([0, 0, 0, 0] + Self.be32(1) + Self.be32(90_000) + Self.be32(0) + Self.be32(0) + [0, 0, 0, 3] + entries)
        #expect(throws: MP4ParseFailure.self) { try SegmentIndexBox(parsing: &short) }
    }

    @Test("stss, stsc, stco and co64")
    func tables() {
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(2) + Self.be32(1) + Self.be32(49),
                  value: SyncSampleBox(sampleNumbers: [1, 49])).check()
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(1) + Self.be32(1) + Self.be32(2) + Self.be32(1),
                  value: SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: 2, sampleDescriptionIndex: 1)])).check()
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(2) + Self.be32(48) + Self.be32(4307),
                  value: ChunkOffsetBox(offsets: [48, 4307])).check()
        let wide = ChunkOffsetBox(offsets: [1 << 32 + 5])
        #expect(wide.needsWideOffsets)
        var writer = ByteWriter()
        wide.writePayload(to: &writer)
        #expect(writer.bytes == [0, 0, 0, 0] + Self.be32(1) + Self.be64(1 << 32 + 5))
        #expect(SampleToChunkBox(chunks: [(2, 1), (2, 1), (1, 1), (3, 2)]).entries == [
            .init(firstChunk: 1, samplesPerChunk: 2, sampleDescriptionIndex: 1),
            .init(firstChunk: 3, samplesPerChunk: 1, sampleDescriptionIndex: 1),
            .init(firstChunk: 4, samplesPerChunk: 3, sampleDescriptionIndex: 2),
        ])
    }

    @Test("stsz: constant and per-sample sizes; stz2 with 4-, 8- and 16-bit fields")
    func sampleSizes() throws {
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(6) + Self.be32(3), value: SampleSizeBox(sizes: .constant(size: 6, count: 3))).check()
        RoundTrip(bytes: [0, 0, 0, 0] + Self.be32(0) + Self.be32(2) + Self.be32(10) + Self.be32(20),
                  value: SampleSizeBox(sizes: .table([10, 20]))).check()
        for (fieldSize, body, sizes): (UInt8, [UInt8], [UInt32]) in [
            (4, [0x12, 0x30], [1, 2, 3]), (8, [7, 9], [7, 9]), (16, [1, 0, 0, 2], [256, 2]),
        ] {
            var reader = ByteReader([0, 0, 0, 0, 0, 0, 0, fieldSize] + Self.be32(UInt32(sizes.count)) + body)
            #expect(try SampleSizeBox(parsingCompact: &reader).sizes == .table(sizes))
        }
    }

    @Test("mvhd, tkhd, mdhd and hdlr round trip, version 1 when durations pass 32 bits")
    func headers() throws {
        for box in [MovieHeaderBox(timescale: 1000, duration: 53000, nextTrackID: 3),
                    MovieHeaderBox(timescale: 90000, duration: 1 << 33, nextTrackID: 2)] {
            var writer = ByteWriter()
            box.writePayload(to: &writer)
            #expect(writer.bytes.first == (box.duration > UInt64(UInt32.max) ? 1 : 0))
            var reader = ByteReader(writer.bytes)
            #expect(try MovieHeaderBox(parsing: &reader) == box)
        }
        let track = TrackHeaderBox(trackID: 1, duration: 20000, volume: 0, width: 320 << 16, height: 180 << 16)
        var writer = ByteWriter()
        track.writePayload(to: &writer)
        var reader = ByteReader(writer.bytes)
        #expect(try TrackHeaderBox(parsing: &reader) == track)
        // A portrait phone clip's matrix (turned 90° clockwise, moved right by its height) at
        // bytes 40..<76 of the version 0 payload.
        let portrait = DisplayMatrix(values: [0, 0x0001_0000, 0, -0x0001_0000, 0, 0, 1080 << 16, 0, 0x4000_0000])
        writer = ByteWriter()
        TrackHeaderBox(trackID: 1, duration: 20000, volume: 0, matrix: portrait, width: 1920 << 16, height: 1080 << 16).writePayload(to: &writer)
        #expect(Array(writer.bytes[40..<52]) == [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        #expect(Array(writer.bytes[52..<56]) == [0xFF, 0xFF, 0, 0])
        reader = ByteReader(writer.bytes)
        #expect(try TrackHeaderBox(parsing: &reader).matrix == portrait)
        let media = MediaHeaderBox(timescale: 48000, duration: 961_024)
        writer = ByteWriter()
        media.writePayload(to: &writer)
        reader = ByteReader(writer.bytes)
        #expect(try MediaHeaderBox(parsing: &reader) == media)
        let handler = HandlerBox(handlerType: "soun", name: "SoundHandler")
        writer = ByteWriter()
        handler.writePayload(to: &writer)
        reader = ByteReader(writer.bytes)
        #expect(try HandlerBox(parsing: &reader) == handler)
    }

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
        let kind: MP4ParseFailure.Kind
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
        FailureCase(name: "stz2 field size 5", parse: {
            var r = ByteReader([0, 0, 0, 0, 0, 0, 0, 5] + be32(1) + [0]); _ = try SampleSizeBox(parsingCompact: &r)
        }, kind: .malformed),
    ]

    @Test("failures", arguments: failureCases)
    func failure(_ testCase: FailureCase) {
        do {
            try testCase.parse()
            Issue.record("parsed without error")
        } catch let failure as MP4ParseFailure {
            #expect(failure.kind == testCase.kind, "\(failure.reason)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("the failure offset is where the bad bytes are, in file coordinates")
    func failureOffset() {
        // An stts payload read as if it sat at byte 1000 of a file: the count is at 1004.
        var reader = ByteReader([0, 0, 0, 0] + Self.be32(5), fileOffset: 1000)
        let result = Result { () throws(MP4ParseFailure) in try TimeToSampleBox(parsing: &reader) }
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
        #expect(throws: MP4ParseFailure.self) { try AudioSpecificConfig(bytes: [0x17]) }
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
