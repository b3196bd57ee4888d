import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

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
}
