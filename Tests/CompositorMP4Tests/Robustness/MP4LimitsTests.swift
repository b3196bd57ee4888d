import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Limits that hold against MP4 files that lie: every count and size is checked against the bytes
/// that exist before anything is allocated for it, nesting is bounded, and times that would not
/// fit 64 bits are errors. Each failure is a typed `MP4Error` naming the file, box path and offset.
@Suite("MP4 limits against lying files")
struct MP4LimitsTests {
    static let stbl = "moov/trak[0]/mdia/minf/stbl"

    @Test("the tiny test movie itself is valid, so each lie below is the only fault")
    func tinyMovieIsValid() throws {
        for handler: FourCC in ["vide", "soun"] {
            let movie = try Robust.withFile(TinyMP4(handler: handler).bytes()) { try MP4Reader.read(path: FilePath($0)) }
            #expect(movie.tracks.count == 1)
            #expect(movie.tracks[0].samples.count == 4)
            #expect(movie.naturalDuration == MediaTime(value: 4 * 512, timescale: 12_800))
        }
    }

    /// A table whose entry count claims more entries than its box holds: the count is checked
    /// against the payload before the table is allocated.
    @Test("a table count past its box is malformed, before any allocation",
          arguments: ["stts", "ctts", "stss", "stsc", "stsz", "stz2", "stco", "co64", "stsd"] as [FourCC])
    func lyingTableCount(box: FourCC) throws {
        var movie = TinyMP4()
        let lie: UInt32 = 0xFFFF_FFF0
        let payload: [UInt8] = switch box {
        case "stsz": TinyMP4.payload { w in w.writeVersion(0); w.write(UInt32(0)); w.write(lie) }
        case "stz2": TinyMP4.payload { w in w.writeVersion(0); w.write(zeros: 3); w.write(UInt8(16)); w.write(lie) }
        default: TinyMP4.payload { w in w.writeVersion(0); w.write(lie) }
        }
        movie.stblPayloads[box] = payload
        var bytes = movie.bytes()
        if box == "stz2" || box == "co64" {
            // Rename the table the lie replaces (stsz -> stz2 keeps the sizes' place), so only one is present.
            let replaced: FourCC = box == "stz2" ? "stsz" : "stco"
            bytes = Self.renaming(replaced, to: "skip", in: bytes)
        }
        let error = try Robust.withFile(bytes) { path in Robust.exerciseMP4(path).readError }
        guard case .malformed(_, let boxPath, let offset, let reason)? = error else {
            Issue.record("expected malformed, got \(String(describing: error))"); return
        }
        #expect(boxPath == "\(Self.stbl)/\(box)")
        #expect(offset > 0)
        #expect(reason.contains("\(lie)") || reason.contains("claims"), "\(reason)")
    }

    @Test("an edit list whose count lies is malformed")
    func lyingEditCount() throws {
        var bytes = TinyMP4(editList: [MP4EditListEntry(segmentDuration: 100, mediaTime: 0)]).bytes()
        // elst: header(8) version/flags(4) count(4)
        let elst = try #require(Self.find("elst", in: bytes))
        bytes.replaceSubrange(elst + 12..<elst + 16, with: [0xFF, 0xFF, 0xFF, 0xF0])
        let error = try Robust.withFile(bytes) { path in Robust.exerciseMP4(path).readError }
        guard case .malformed(_, let boxPath, _, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(boxPath == "moov/trak[0]/edts/elst")
        #expect(reason.contains("claims"))
    }

    @Test("a constant sample size times the count past the file is malformed")
    func constantSizePastFile() throws {
        var movie = TinyMP4()
        movie.stblPayloads["stsz"] = TinyMP4.payload { w in w.writeVersion(0); w.write(UInt32(1000)); w.write(UInt32(4_000_000)) }
        let error = try Robust.withFile(movie.bytes()) { path in Robust.exerciseMP4(path).readError }
        guard case .malformed(_, let boxPath, _, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(boxPath == "\(Self.stbl)/stsz")
        #expect(reason.contains("4000000 samples of 1000 bytes do not fit"))
    }

    /// 60 million one-byte samples do fit a 64 MB file, but expanding them would take gigabytes:
    /// the count limit refuses them as unsupported (valid, but more than this reader expands).
    @Test("more samples than the reader expands is unsupported, checked before expanding")
    func sampleCountLimit() throws {
        var movie = TinyMP4()
        let count = UInt32(MP4Reader.sampleCountLimit + 10_000_000)
        movie.stblPayloads["stsz"] = TinyMP4.payload { w in w.writeVersion(0); w.write(UInt32(1)); w.write(count) }
        let folder = try MP4Fixtures.makeScratchFolder("count-limit")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/many-samples.mp4"
        try Robust.writeSparse(movie.bytes(), size: Int64(count) + 1_000_000, to: path)
        #expect { try MP4Reader.read(path: FilePath(path)) } throws: { error in
            guard case .unsupported(path, "\(Self.stbl)/stsz", _, let reason) = error as? MP4Error else { return false }
            return reason.contains("more than the \(MP4Reader.sampleCountLimit)")
        }
    }

    /// Decode times are the running sum of stts deltas (32-bit each) over at most
    /// `sampleCountLimit` samples: below 2^58, so the sum cannot leave 64 bits. (The reader checks
    /// each addition anyway.)
    @Test("stts count times delta cannot overflow within the sample limit")
    func decodeTimeBound() throws {
        let (largest, overflow) = Int64(MP4Reader.sampleCountLimit).multipliedReportingOverflow(by: Int64(UInt32.max))
        #expect(!overflow && largest < Int64.max / 16)
        // One stts entry of the most samples a constant-size table allows, each as long as a delta can be.
        var movie = TinyMP4(sampleCount: 1000, sampleSize: 1)
        movie.stblPayloads["stts"] = TinyMP4.payload { TimeToSampleBox(entries: [.init(count: 1000, delta: .max)]).writePayload(to: &$0) }
        let read = try Robust.withFile(movie.bytes()) { try MP4Reader.read(path: FilePath($0)) }
        #expect(read.tracks[0].samples.decodeEnd == 1000 * Int64(UInt32.max))
    }

    /// R1: three sources of 4 million one-byte samples, each far within the reader's limit: a render
    /// of all three passes its memory budget (2 GiB at about 192 bytes a sample: 11,184,810
    /// samples), and the third is refused before its tables are expanded.
    @Test("a render's sources share one memory budget, checked before each table is expanded")
    func renderBudgetAcrossSources() throws {
        let budget = MP4SampleBudget.render()
        #expect(budget.limit == (2 << 30) / 192)
        let perSource: UInt32 = 4_000_000
        var movie = TinyMP4(sampleCount: Int(perSource), sampleSize: 1)
        movie.stblPayloads["stts"] = TinyMP4.payload { TimeToSampleBox(entries: [.init(count: perSource, delta: 1)]).writePayload(to: &$0) }
        movie.stblPayloads["stsc"] = TinyMP4.payload {
            SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: perSource, sampleDescriptionIndex: 1)]).writePayload(to: &$0)
        }
        let folder = try MP4Fixtures.makeScratchFolder("render-budget")
        defer { MP4Fixtures.remove(folder) }
        let paths = (1...3).map { folder + "/source-\($0).mp4" }
        for path in paths { try Robust.writeSparse(movie.bytes(), size: Int64(perSource) + 1_000_000, to: path) }
        let pieces = paths.map { MP4StitchPiece(path: FilePath($0), range: MediaTimeRange(start: .zero, end: MediaTime(value: 1, timescale: 1000))) }

        #expect {
            try MP4Stitcher(pieces: pieces).plan()
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("\(paths[2]): unsupported MP4 at moov/trak[0]/mdia/minf/stbl/stsz")
                && text.hasSuffix("4000000 samples (and 8000000 in the tracks and sources before), more than the 11184810 "
                    + "a render reads (its memory budget is 2048 MiB at about 192 bytes a sample)")
        }
        // Each source alone is within the reader's own limit.
        #expect(throws: Never.self) { try MP4Reader.read(path: FilePath(paths[2])) }
    }

    /// Two tracks of 30 million one-byte samples: each within the limit, together past it. The
    /// counts are added up before either table is expanded (60 million samples is some 2 GB).
    @Test("the sample limit holds for all tracks together, checked before expanding any")
    func sampleCountLimitAcrossTracks() throws {
        let perTrack = UInt32(MP4Reader.sampleCountLimit * 3 / 5)
        var movie = TinyMP4(trackCount: 2)
        movie.stblPayloads["stsz"] = TinyMP4.payload { w in w.writeVersion(0); w.write(UInt32(1)); w.write(perTrack) }
        movie.stblPayloads["stts"] = TinyMP4.payload { TimeToSampleBox(entries: [.init(count: perTrack, delta: 1)]).writePayload(to: &$0) }
        movie.stblPayloads["stsc"] = TinyMP4.payload {
            SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: perTrack, sampleDescriptionIndex: 1)]).writePayload(to: &$0)
        }
        let folder = try MP4Fixtures.makeScratchFolder("count-limit-tracks")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/many-tracks.mp4"
        try Robust.writeSparse(movie.bytes(), size: Int64(perTrack) + 1_000_000, to: path)
        let bytes = movie.bytes()
        let secondSizes = try #require(Self.find("stsz", in: Array(bytes[(Self.find("stsz", in: bytes)! + 8)...]))) + Self.find("stsz", in: bytes)! + 8
        #expect(throws: MP4Error.unsupported(
            file: path, boxPath: "moov/trak[1]/mdia/minf/stbl/stsz", offset: UInt64(secondSizes),
            reason: "\(perTrack) samples (and \(perTrack) in the tracks before), more than the \(MP4Reader.sampleCountLimit) this reader expands")) {
            try MP4Reader.read(path: FilePath(path))
        }
    }

    @Test("a moov bigger than the limit is unsupported, and not loaded")
    func moovSizeLimit() throws {
        let size = MP4Reader.moovSizeLimit + 1
        var head = TinyMP4.box("ftyp", TinyMP4.payload { w in w.write("isom" as FourCC); w.write(UInt32(0)) })
        let moovOffset = UInt64(head.count)
        head += TinyMP4.payload { w in w.write(UInt32(size)); w.write("moov" as FourCC) }
        let folder = try MP4Fixtures.makeScratchFolder("moov-limit")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/huge-moov.mp4"
        try Robust.writeSparse(head, size: Int64(moovOffset + size), to: path)
        #expect(throws: MP4Error.unsupported(file: path, boxPath: "moov", offset: moovOffset,
                                             reason: "moov is \(size) bytes, more than the 512 MiB this reader loads")) {
            try MP4Reader.read(path: FilePath(path))
        }
    }

    /// Each level of nesting costs 8 bytes of file but a stack frame of the reader: without a
    /// limit, a 1 MB file of nested headers exhausts the stack.
    @Test("containers nested past the depth limit are malformed, not a stack overflow")
    func nestingDepth() throws {
        var movie = TinyMP4()
        movie.extraMoovBoxes = [TinyMP4.nested("udta", depth: 100_000)]
        let bytes = movie.bytes()
        let udta = try #require(Self.find("udta", in: bytes))
        let result = Robust.withDeadline(seconds: 60) {
            Result { try Robust.withFile(bytes) { path in Robust.exerciseMP4(path).readError } }
        }
        let error = try result?.get()
        guard case .malformed(_, let boxPath, let offset, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        let depth = MP4Box.maximumDepth
        #expect(reason == "boxes nested deeper than \(depth) levels")
        #expect(boxPath == "moov/" + Array(repeating: "udta", count: depth).joined(separator: "/"))
        #expect(offset == UInt64(udta + 8 * (depth - 1)))
    }

    @Test("nesting up to the limit is read")
    func nestingWithinLimit() throws {
        var movie = TinyMP4()
        movie.extraMoovBoxes = [TinyMP4.nested("udta", depth: MP4Box.maximumDepth - 1)]
        let movieRead = try Robust.withFile(movie.bytes()) { try MP4Reader.read(path: FilePath($0)) }
        #expect(movieRead.tracks.count == 1)
    }

    /// QuickTime puts an audio entry's `esds` inside a `wave` box; a `wave` inside a `wave` is
    /// never written, and following it without end would exhaust the stack.
    @Test("a QuickTime wave box nested in itself is not followed")
    func nestedWave() throws {
        var movie = TinyMP4(handler: "soun")
        movie.sampleEntry = TinyMP4.sampleEntry("mp4a", audio: true, children: TinyMP4.nested("wave", depth: 100_000))
        let bytes = movie.bytes()
        let result = Robust.withDeadline(seconds: 60) {
            Result { try Robust.withFile(bytes) { try MP4Reader.read(path: FilePath($0)) } }
        }
        let read = try #require(try result?.get())
        #expect(read.tracks[0].sampleDescriptions[0].codec == .other)
    }

    @Test("edit durations that add up past 64 bits are malformed")
    func editDurationOverflow() throws {
        let half = UInt64(Int64.max / 2) + 1
        let movie = TinyMP4(editList: [
            MP4EditListEntry(segmentDuration: half, mediaTime: nil),
            MP4EditListEntry(segmentDuration: half, mediaTime: 0),
        ])
        let bytes = movie.bytes()
        let elst = try #require(Self.find("elst", in: bytes))
        let error = try Robust.withFile(bytes) { path in Robust.exerciseMP4(path).readError }
        guard case .malformed(_, "moov/trak[0]/edts/elst", let offset, let reason)? = error else {
            Issue.record("\(String(describing: error))"); return
        }
        #expect(offset == UInt64(elst))
        #expect(reason == "edit durations add up past \(Int64.max) ticks")
    }

    @Test("edit durations that add up to exactly Int64.max are a time")
    func editDurationAtLimit() throws {
        let movie = TinyMP4(editList: [
            MP4EditListEntry(segmentDuration: UInt64(Int64.max) - 1000, mediaTime: nil),
            MP4EditListEntry(segmentDuration: 1000, mediaTime: 0),
        ])
        let read = try Robust.withFile(movie.bytes()) { try MP4Reader.read(path: FilePath($0)) }
        #expect(read.naturalDuration == MediaTime(value: .max, timescale: 1000))
    }

    /// `iTunSMPB` is an optional hint: a field with a sign is not a count, and is ignored rather
    /// than giving a negative duration or priming.
    /// Each part of a piece copies its own lead-in: 12 bytes of edit list per part must not make a
    /// render of millions of runs. Two edits over the same media are read as two parts.
    @Test("a piece spanning more media segments than the limit is unsupported, naming the edit list")
    func manyEdits() throws {
        let limit = StitchPlanner.maximumPartsPerPiece
        let edits = Array(repeating: MP4EditListEntry(segmentDuration: 1, mediaTime: 0), count: limit + 1)
        try Robust.withFile(TinyMP4(editList: edits).bytes()) { path in
            let movie = try MP4Reader.read(path: FilePath(path))
            let whole = MediaTimeRange(start: .zero, end: movie.naturalDuration)
            #expect(throws: MP4Error.unsupported(
                file: path, boxPath: "moov/trak[0]/edts/elst", offset: try #require(movie.tracks[0].editListOffset),
                reason: "piece 0 spans \(limit + 1) media segments of the edit list, more than the \(limit) one piece may; "
                    + "cut it into smaller pieces")) {
                try MP4Stitcher(pieces: [MP4StitchPiece(path: FilePath(path), range: whole)]).plan()
            }
        }
        try Robust.withFile(TinyMP4(editList: Array(edits.prefix(2))).bytes()) { path in
            let plan = try MP4Stitcher(pieces: [MP4StitchPiece(path: FilePath(path), range: range(.zero, MediaTime(value: 2, timescale: 1000)))]).plan()
            #expect(plan.pieces.count == 1)
        }
    }

    @Test("iTunSMPB with a signed field is ignored", arguments: [
        " 00000000 -0000840 000001CA 0000000000000800",
        " 00000000 00000840 000001CA -000000000000800",
        " 00000000 +0000840 000001CA 0000000000000800",
        " 00000000 00000840 000001CA FFFFFFFFFFFFFFFFF",
    ])
    func signedGaplessInfo(text: String) throws {
        #expect(ITunesGaplessInfo(text: text) == nil)
        var movie = TinyMP4(handler: "soun")
        movie.extraMoovBoxes = [Self.gaplessUdta(text)]
        let read = try Robust.withFile(movie.bytes()) { try MP4Reader.read(path: FilePath($0)) }
        #expect(read.gaplessInfo == nil)
        #expect(read.naturalDuration == MediaTime(value: 4 * 512, timescale: 12_800))
    }

    @Test("iTunSMPB with hexadecimal counts is read")
    func gaplessInfo() throws {
        var movie = TinyMP4(handler: "soun")
        movie.extraMoovBoxes = [Self.gaplessUdta(" 00000000 00000840 000001CA 0000000000000700")]
        let read = try Robust.withFile(movie.bytes()) { try MP4Reader.read(path: FilePath($0)) }
        #expect(read.gaplessInfo == ITunesGaplessInfo(priming: 0x840, padding: 0x1CA, sampleCount: 0x700))
    }

    // MARK: - Helpers

    /// `moov/udta/meta/ilst/----` with `name` iTunSMPB and `data` `text`.
    static func gaplessUdta(_ text: String) -> [UInt8] {
        let item = TinyMP4.box("----",
            TinyMP4.box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
            + TinyMP4.box("name", [0, 0, 0, 0] + Array("iTunSMPB".utf8))
            + TinyMP4.box("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8)))
        return TinyMP4.box("udta", TinyMP4.box("meta", [0, 0, 0, 0] + TinyMP4.box("ilst", item)))
    }

    /// The offset of the first box of `type` (found by its type bytes after a plausible size).
    static func find(_ type: FourCC, in bytes: [UInt8]) -> Int? {
        let pattern = type.bytes
        guard bytes.count >= 8 else { return nil }
        for index in 4..<(bytes.count - 3) where Array(bytes[index..<index + 4]) == pattern { return index - 4 }
        return nil
    }

    /// `bytes` with the first box of `type` retyped (same size), so readers skip it.
    static func renaming(_ type: FourCC, to newType: FourCC, in bytes: [UInt8]) -> [UInt8] {
        guard let offset = find(type, in: bytes) else { return bytes }
        var copy = bytes
        copy.replaceSubrange(offset + 4..<offset + 8, with: newType.bytes)
        return copy
    }
}
