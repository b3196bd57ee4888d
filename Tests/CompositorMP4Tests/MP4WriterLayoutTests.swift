import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// The writer's layout rules that the fixtures are too small to reach, and its promises about
/// progress and atomicity.
@Suite("MP4 writer layout")
struct MP4WriterLayoutTests {
    /// Three samples of 2 GiB each: chunk offsets pass 4 GiB, so the table must be `co64` and the
    /// `mdat` needs a 64-bit size. Only the layout is computed; nothing that large is written.
    @Test("co64 and a 64-bit mdat size once offsets pass 4 GiB")
    func wideOffsets() throws {
        let description = try #require(MP4Reader.read(path: FilePath(MP4Fixtures.ad1)).videoTrack?.sampleDescriptions.first)
        var track = PlacedTrack(kind: .video, timescale: 30, descriptions: [description])
        let size: UInt32 = 1 << 31
        for index in 0..<3 {
            // Each sample from a different place, so each is its own chunk.
            let sample = TrackSample(bytes: .source(file: 0, offset: UInt64(index) * 2 * UInt64(size)), size: size,
                                     decode: 0, composition: 0, isSync: true, description: 0)
            track.append(TrackRun(spans: [.single(sample)], decodeEnd: 1, windowStart: 0, windowLength: 1), at: Int64(index), piece: index)
        }
        track.mediaEnd = 3
        track.edits = [MP4EditListEntry(segmentDuration: 3000, mediaTime: 0)]
        let layout = try StitchLayoutBuilder(tracks: [track], sources: [("huge.mp4", .file("huge.mp4", FileVersion(identity: FileIdentity(device: 1, inode: 1), size: 1 << 34, modified: 0)))], syntheticPayloads: [],
                                             movieTimescale: 1000, movieDuration: 3000).build()
        #expect(layout.mdatPayloadSize == 3 * UInt64(size))

        var header = ByteWriter()
        try layout.header.write(to: &header)
        #expect(UInt64(header.count) == layout.header.size)
        var reader = ByteReader(header.bytes)
        var boxes: [MP4Box] = []
        while reader.remaining > 16 {
            boxes.append(try MP4Box.read(from: &reader, parentPath: "", siblingIndex: nil, file: "layout"))
        }
        // What is left is the mdat header: size 1, 'mdat', then the 64-bit size.
        var mdat = reader
        #expect(try mdat.readUInt32() == 1)
        #expect(try mdat.readFourCC() == "mdat")
        #expect(try mdat.readUInt64() == 3 * UInt64(size) + 16)

        let stbl = try #require(boxes.first { $0.type == "moov" }?.child("trak")?.child("mdia")?.child("minf")?.child("stbl"))
        #expect(stbl.child("stco") == nil)
        let co64 = try #require(stbl.child("co64"))
        var payload = co64.payload
        let offsets = try ChunkOffsetBox(parsing: &payload, wide: true).offsets
        let base = layout.header.size
        #expect(offsets == [base, base + UInt64(size), base + 2 * UInt64(size)])
    }

    /// A span's largest decode lead (how far the composition must move for `ctts` version 0) is
    /// found from the composition offsets alone when the span keeps its source's timescale and has
    /// no delays; otherwise from its samples. Either way it is what its samples say:
    ///
    ///     content.mp4 video, B-frames:  I P B B P B B ...   decode 0 1 2 3 ...
    ///     a span of samples 10..<200, its bases moved as a cut moves them
    @Test("a span's decode lead, found from its offsets, is its samples' largest")
    func largestDecodeLead() throws {
        let track = try #require(MP4Reader.read(path: FilePath(MP4Fixtures.content)).videoTrack)
        let table = track.samples, timescale = track.timescale
        #expect(!table.compositionOffsets.isEmpty)
        let source = RunSpan.SourceTrack(table: table, file: 0, descriptions: [0], inBand: [])
        func fromSamples(_ span: RunSpan) throws -> Int64 {
            var samples: [TrackSample] = []
            try span.samples(0..<span.count, into: &samples)
            return samples.map { $0.decode - $0.composition }.max()!
        }
        for (from, to) in [(timescale, timescale), (timescale, 1000)] {
            for (decodeBase, compositionBase) in [(Int64(0), Int64(0)), (5120, 6144), (6144, 5120)] {
                var span = try RunSpan.source(RunSpan.SourceSamples(
                    source: source, range: 10..<200, convert: TickConverter(from: from, to: to),
                    decodeBase: decodeBase, compositionBase: compositionBase, sync: .flagged))
                span.shift(by: 777)
                #expect(try span.largestDecodeLead() == fromSamples(span))
                span.delayComposition(from: span.minComposition + 100, by: 512)
                #expect(try span.largestDecodeLead() == fromSamples(span))
            }
        }
    }

    @Test("progress rises to the file's size; the output appears only when complete")
    func progress() throws {
        let folder = try MP4Fixtures.makeScratchFolder("progress")
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        var reports: [MP4StitchProgress] = []
        let stitcher = MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "20"), piece(MP4Fixtures.ad1, "0", "10")])
        let plan = try stitcher.plan()
        try stitcher.write(plan, to: FilePath(output)) { report in
            reports.append(report)
            // Until the rename, the destination does not exist; only the temporary file does.
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        #expect(reports.last == MP4StitchProgress(bytesWritten: plan.outputSize, totalBytes: plan.outputSize))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesWritten <= $1.bytesWritten })
        #expect(MP4Fixtures.listing(folder) == ["out.mp4"])
        // moov before mdat.
        let bytes = try MP4Fixtures.bytes(output)
        #expect(String(decoding: bytes[4..<8], as: UTF8.self) == "ftyp")
        let ftypSize = Int(bytes[3])
        #expect(String(decoding: bytes[ftypSize + 4..<ftypSize + 8], as: UTF8.self) == "moov")
    }

    @Test("planning writes nothing and is repeatable")
    func planOnly() throws {
        let pieces = [piece(MP4Fixtures.ad1, "0", "5"), piece(MP4Fixtures.content, "0", "8.5")]
        let first = try MP4Stitcher(pieces: pieces).plan()
        let second = try MP4Stitcher(pieces: pieces).plan()
        #expect(first.pieces == second.pieces)
        #expect(first.outputSize == second.outputSize)
        #expect(first.pieces.map(\.compositionRange) == [
            MediaTimeRange(start: .zero, end: MediaTime(seconds: 5)),
            MediaTimeRange(start: MediaTime(seconds: 5), end: MediaTime(value: 27, timescale: 2)),
        ])
    }

    @Test("iTunSMPB gapless info is found under moov/udta/meta/ilst")
    func gaplessInfo() throws {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let size = UInt32(body.count + 8)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
        }
        let text = " 00000000 00000840 000001CA 0000000000D5E6F6 00000000 00000000"
        let item = box("----", box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                        + box("name", [0, 0, 0, 0] + Array("iTunSMPB".utf8))
                        + box("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8)))
        let moovBytes = box("moov", box("udta", box("meta", [0, 0, 0, 0] + box("hdlr", [UInt8](repeating: 0, count: 25)) + box("ilst", item))))
        var reader = ByteReader(moovBytes)
        let moov = try MP4Box.read(from: &reader, parentPath: "", siblingIndex: nil, file: "test")
        #expect(ITunesGaplessInfo.find(in: moov) == ITunesGaplessInfo(priming: 0x840, padding: 0x1CA, sampleCount: 0xD5E6F6))
    }

    /// A video track of one sample per piece, each `(source, offset, size)`; a sample of
    /// `prefixed` starts with synthetic payload 0 (a 5-byte parameter set NAL unit, say).
    static func track(_ samples: [(file: Int, offset: UInt64, size: UInt32)], prefixed: Set<Int> = []) throws -> PlacedTrack {
        let description = try #require(MP4Reader.read(path: FilePath(MP4Fixtures.ad1)).videoTrack?.sampleDescriptions.first)
        var track = PlacedTrack(kind: .video, timescale: 30, descriptions: [description])
        for (index, sample) in samples.enumerated() {
            let bytes: SampleBytes = prefixed.contains(index)
                ? .prefixed(payload: 0, file: sample.file, offset: sample.offset) : .source(file: sample.file, offset: sample.offset)
            let placed = TrackSample(bytes: bytes, size: sample.size, decode: 0, composition: 0, isSync: true, description: 0)
            track.append(TrackRun(spans: [.single(placed)], decodeEnd: 1, windowStart: 0, windowLength: 1), at: Int64(index), piece: index)
        }
        track.mediaEnd = Int64(samples.count)
        track.edits = [MP4EditListEntry(segmentDuration: UInt64(samples.count) * 1000, mediaTime: 0)]
        return track
    }

    static let mp4Source: (path: FilePath, store: MP4SampleStore) =
        ("big.mp4", .file("big.mp4", FileVersion(identity: FileIdentity(device: 1, inode: 1), size: 1 << 30, modified: 0)))
    static let segmentSource: (path: FilePath, store: MP4SampleStore) = ("big.m3u8", .fragmentedSegments(FragmentedSegmentFiles(segments: [])))

    /// The header's top-level boxes (type and size), up to and including the mdat header.
    static func headerBoxes(_ layout: StitchLayout) throws -> [(type: FourCC, size: UInt64)] {
        var header = ByteWriter()
        try layout.header.write(to: &header)
        #expect(UInt64(header.count) == layout.header.size)
        var reader = ByteReader(header.bytes)
        var boxes: [(type: FourCC, size: UInt64)] = []
        while reader.remaining > 0 {
            var size = UInt64(try reader.readUInt32())
            let type = try reader.readFourCC()
            if size == 1 { size = try reader.readUInt64() }
            boxes.append((type, size))
            if type == "mdat" { break }
            try reader.skip(Int(size) - 8)
        }
        #expect(reader.remaining == 0)
        return boxes
    }

    /// A copy the kernel makes (1 MiB and more) from an MP4 file lands at the offset modulo 4 KiB
    /// it has in its source: zeros no sample refers to go before it, and a `free` box ends the
    /// header on a multiple of 4 KiB. A shorter copy, one going on from the copy before, and one
    /// from HLS segments (laid back to back, so no file's phase) follow on without zeros:
    ///
    ///     piece    0          1        2             3            4              5          6
    ///     source   A big.mp4  C        D, after C    E            G              F big.m3u8 H, 5-byte prefix
    ///     offset   1000       5000003  5000103       9999999      20000001       777        30000005
    ///     size     1.2 MB     100      2 MiB         1 MiB        1 MiB - 1      1 MiB      5 + 1 MiB
    ///     payload  |0 x1000|A|C D|0 x691|E|G|F|0 x3330|prefix|H|
    ///     A at 1000, E at 1663, H's copied bytes at 901 (mod 4096), as in big.mp4
    @Test("a long copy keeps its source's page phase; short ones, ones going on and HLS ones follow on")
    func pagePhase() throws {
        let track = try Self.track([(0, 1000, 1_200_000), (0, 5_000_003, 100), (0, 5_000_103, 1 << 21), (0, 9_999_999, 1 << 20),
                                    (0, 20_000_001, (1 << 20) - 1), (1, 777, 1 << 20), (0, 30_000_005, 5 + 1 << 20)], prefixed: [6])
        let layout = try StitchLayoutBuilder(tracks: [track], sources: [Self.mp4Source, Self.segmentSource], syntheticPayloads: [[0, 0, 0, 1, 9]],
                                             movieTimescale: 1000, movieDuration: 7000).build()
        let mebibyte: UInt64 = 1 << 20
        let expected: [CopySegment] = [
            .padding(length: 1000), .source(file: 0, offset: 1000, length: 1_200_000),
            .source(file: 0, offset: 5_000_003, length: 100 + 2 * mebibyte),
            .padding(length: 691), .source(file: 0, offset: 9_999_999, length: mebibyte),
            .source(file: 0, offset: 20_000_001, length: mebibyte - 1),
            .source(file: 1, offset: 777, length: mebibyte),
            .padding(length: 3330), .synthetic(payload: 0, repeatCount: 1), .source(file: 0, offset: 30_000_005, length: mebibyte),
        ]
        #expect(Array(layout.segments) == expected)
        #expect(layout.mdatPayloadSize == 6_448_005 + mebibyte)
        #expect(layout.header.size % 4096 == 0)
        #expect(try Self.headerBoxes(layout).map(\.type) == ["ftyp", "moov", "free", "mdat"])

        let positions = layout.header.chunksOfTrack[0].map(\.position)
        #expect(positions == [1000, 1_201_000, 1_201_100, 3_298_943, 4_347_519, 5_396_094, 6_448_000])
        #expect([positions[0], positions[3], positions[6] + 5].map { (layout.header.size + $0) % 4096 } == [1000, 1663, 901])

        // Short copies only: no zeros, no free box.
        let short = try StitchLayoutBuilder(tracks: [Self.track([(0, 1000, 100), (0, 77, (1 << 20) - 1)])], sources: [Self.mp4Source],
                                            syntheticPayloads: [], movieTimescale: 1000, movieDuration: 2000).build()
        #expect(Array(short.segments) == [.source(file: 0, offset: 1000, length: 100), .source(file: 0, offset: 77, length: (1 << 20) - 1)])
        #expect(try Self.headerBoxes(short).map(\.type) == ["ftyp", "moov", "mdat"])
    }

    /// A free box is 8 bytes at least: a header 1 to 7 bytes short of a page gets one of a page
    /// and those bytes. Each short sample more adds 8 bytes of tables (its `stsz` and `stco`
    /// entries), so the headers step through the remainders to one 1 to 7 bytes short (the test
    /// fails if none is); each ends on a page.
    @Test("the free box that ends the header on a page is never under 8 bytes")
    func shortFreeBox() throws {
        var remainders = Set<UInt64>()
        for extra in 0..<1200 {
            // A long copy, then `extra` short ones each its own chunk.
            var samples: [(file: Int, offset: UInt64, size: UInt32)] = [(0, 0, 1 << 20)]
            for index in 0..<extra { samples.append((0, UInt64(2 << 20 + index * 1000), 10)) }
            let layout = try StitchLayoutBuilder(tracks: [Self.track(samples)], sources: [Self.mp4Source], syntheticPayloads: [],
                                                 movieTimescale: 1000, movieDuration: UInt64(samples.count) * 1000).build()
            let boxes = try Self.headerBoxes(layout)
            #expect(layout.header.size % 4096 == 0)
            let free = try #require(boxes.first { $0.type == "free" }?.size)
            #expect(free >= 8 && free < 4096 + 8)
            remainders.insert(free % 4096)
            if remainders.contains(where: { $0 < 8 }) { return }
        }
        Issue.record("no header came within 8 bytes of a page: the 8-byte floor was never tested")
    }

    /// A real render with long copies: a 6 MB clip cut mid-GOP around an ad. Each copy of 1 MiB
    /// or more sits at its source's page phase, and the output plays frame for frame.
    @Test("a render's long copies keep their page phase and play", .needsFFmpeg)
    func pagePhaseRender() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("page-phase")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/big.mp4"
        try await tools.make(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=8,noise=alls=30:allf=t",
                              "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=8", "-c:a", "aac",
                              "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-b:v", "6M", clip])
        let plan = try #require(try await stitchAndJudge([piece(clip, "0", "3.3"), piece(MP4Fixtures.ad1, "0", "3"), piece(clip, "3.3", "8")]))
        var position = plan.layout.header.size
        var longCopies = 0
        for segment in plan.layout.segments {
            switch segment {
            case .source(_, let offset, let length):
                if length >= MP4Stitcher.smallCopy {
                    #expect(position % 4096 == offset % 4096)
                    longCopies += 1
                }
                position += length
            case .synthetic(let payload, let count): position += UInt64(plan.layout.syntheticPayloads[payload].count * count)
            case .padding(let length): position += length
            }
        }
        #expect(position == plan.outputSize)
        #expect(longCopies >= 2)
        #expect(try Self.headerBoxes(plan.layout).map(\.type) == ["ftyp", "moov", "free", "mdat"])
    }
}
