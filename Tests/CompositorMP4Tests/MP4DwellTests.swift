import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// A dwell is an edit at media rate 0: the frame at its media time held for its duration (ISO/IEC
/// 14496-12 8.6.6, QuickTime's "still frame" edit). Sample-accurate cuts hold it as a hole is held:
/// the frame's sample is shown for the whole part, the frames decoded after it hidden. An audio
/// dwell holds no sound: silence. The source is made from content.mp4 (24 fps, B-frames, a
/// keyframe every 2 s, a steady tone) by stitching three pieces and rewriting the middle edit of
/// each track into a dwell of content's frame at 37/24 s, a B-frame: the P-frame after it decodes
/// before it and must stay hidden.
@Suite("MP4 stitcher, a source that holds a frame (a dwell)", .needsFFmpeg)
struct MP4DwellTests {
    /// ```
    /// dwell.mp4 video  content [0,2)   | frame 37/24 held | content [2,4)
    ///           audio  content [0,2)   | dwell: silence   | content [2,4)
    ///                  0               2                  3               5
    /// piece            dwell [1,4.5)
    /// output           0 content [1,2) 1  frame 37/24     2 content [2,3.5) 3.5
    /// ```
    @Test("sample-accurate: the frame is held for the dwell, the audio silent")
    func sampleAccurate() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("dwell")
        defer { MP4Fixtures.remove(folder) }
        let source = try await Self.dwellSource(in: folder)
        let output = folder + "/out.mp4"
        let plan = try MP4Stitcher(pieces: [piece(source, "1", "4.5")]).stitch(to: FilePath(output))
        #expect(plan.duration == t("3.5"))

        // Frames: ffmpeg decodes each source frame once; the held one lasts a second.
        let content = try await tools.videoFrames(MP4Fixtures.content)
        let shown = { (from: MediaTime, to: MediaTime) in content.filter { (from..<to).contains($0.time) } }
        let held = try #require(content.first { $0.time == MediaTime(value: 37, timescale: 24) })
        let expected = shown(s(1), s(2)) + [held] + shown(s(2), t("3.5"))
        let actual = try await tools.videoFrames(output)
        #expect(actual.map(\.hash) == expected.map(\.hash),
                "first difference at frame \(MP4StitchJudge.firstDifference(actual.map(\.hash), expected.map(\.hash))) of \(expected.count)")

        // Times, by the output's own edit lists: the held frame from 1 to 2, then content 2 at 2.
        let video = try #require(try MP4Reader.read(path: FilePath(output)).videoTrack)
        let times = MP4StitchJudge.presentationTimes(of: video)
        let before: [MediaTime] = (0..<24).map { MediaTime(value: $0, timescale: 24) }
        let after: [MediaTime] = (48..<84).map { MediaTime(value: $0, timescale: 24) }
        let expectedTimes = before + [s(1)] + after
        #expect(times == expectedTimes)

        // The tone plays around the dwell, not during it.
        #expect(try await tools.audioDecodeErrors(output).isEmpty)
        let spans = try await tools.loudSpans(output)
        try #require(spans.count == 2, "\(spans)")
        #expect(abs(spans[0].lowerBound) <= 0.04 && abs(spans[0].upperBound - 1) <= 0.04, "\(spans)")
        #expect(abs(spans[1].lowerBound - 2) <= 0.04 && abs(spans[1].upperBound - 3.5) <= 0.04, "\(spans)")
    }

    /// Pieces that cross the dwell cannot be keyframe-aligned (a held frame is not a GOP); pieces
    /// on either side of it are:
    /// ```
    /// dwell.mp4  content [0,2) | held | content [2,4)
    /// pieces     dwell [0,2)          | dwell [3,5)      joined, judged
    ///            dwell [1,4)                             refused, naming the dwell
    /// ```
    @Test("keyframe-aligned: around the dwell joins, across it is refused naming the dwell")
    func keyframeAligned() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("dwell-keyframe")
        defer { MP4Fixtures.remove(folder) }
        let source = try await Self.dwellSource(in: folder)
        _ = try await stitchAndJudge(cutMode: .keyframeAligned, [piece(source, "0", "2"), piece(source, "3", "5")])

        let video = try #require(try MP4Reader.read(path: FilePath(source)).videoTrack)
        let mediaTime = try #require(video.editList?[1].mediaTime)
        #expect(throws: MP4Error.unsupported(
            file: source, boxPath: "moov/trak[0]/edts/elst", offset: try #require(video.editListOffset),
            reason: "piece 0 shows a dwell of its source (the frame at media time \(MediaTime(value: mediaTime, timescale: video.timescale)) s "
                + "held from 2 s to 3 s, an edit at media rate 0): keyframe-aligned cuts show whole GOPs and hide nothing, "
                + "so they cannot hold one frame; use sample-accurate cuts, or cut around the dwell")) {
            try MP4Stitcher(pieces: [piece(source, "1", "4")], cutMode: .keyframeAligned).plan()
        }
    }

    /// Rates other than 1 and 0 (fast, slow or reverse play) are refused by the reader, naming
    /// the rate; packaging for HLS takes no dwell.
    @Test("other media rates are refused by name; packaging refuses a dwell", arguments: [(Int16(2), Int16(0)), (Int16(0), Int16(-32768)), (Int16(-1), Int16(0))])
    func otherRates(rate: (integer: Int16, fraction: Int16)) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("dwell-rates")
        defer { MP4Fixtures.remove(folder) }
        let source = try await Self.dwellSource(in: folder)
        let video = try #require(try MP4Reader.read(path: FilePath(source)).videoTrack)
        let elst = try #require(video.editListOffset)
        var bytes = try MP4Fixtures.bytes(source)
        Self.patchEdit(1, of: &bytes, elstOffset: elst) { $0.rateInteger = rate.integer; $0.rateFraction = rate.fraction }
        let patched = folder + "/rate.mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: patched))
        let shown = Double(rate.integer) + Double(UInt16(bitPattern: rate.fraction)) / 65536
        #expect(throws: MP4Error.unsupported(file: patched, boxPath: "moov/trak[0]/edts/elst", offset: elst,
                                             reason: "an edit at media rate \(shown) (only 1, and 0 for a dwell, are supported)")) {
            try MP4Reader.read(path: FilePath(patched))
        }
    }

    /// content [0,2) | content [4.5,5.5) | content [2,4), sample-accurate, then the middle edit of
    /// each track made a dwell of the frame at content's 37/24 s. The middle piece is cut inside
    /// GOPs so that it keeps edits of its own on both sides (cuts on keyframes would join them).
    static func dwellSource(in folder: String) async throws -> String {
        let path = folder + "/dwell.mp4"
        try MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "2"), piece(MP4Fixtures.content, "4.5", "5.5"),
                                 piece(MP4Fixtures.content, "2", "4")]).stitch(to: FilePath(path))
        let movie = try MP4Reader.read(path: FilePath(path))
        var bytes = try MP4Fixtures.bytes(path)
        for track in [movie.videoTrack, movie.audioTrack] {
            let track = try #require(track)
            let edits = try #require(track.editList)
            try #require(edits.count == 3 && edits.allSatisfy { !$0.isEmpty })
            // content starts at a keyframe at its media time 0: the first edit shows content 0.
            let held = try #require(edits[0].mediaTime) + Int64(track.timescale) * 37 / 24
            patchEdit(1, of: &bytes, elstOffset: try #require(track.editListOffset)) {
                $0.mediaTime = held
                $0.rateInteger = 0
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let video = try #require(try MP4Reader.read(path: FilePath(path)).videoTrack)
        try #require(video.editList?[1].isDwell == true)
        return path
    }

    /// Rewrites entry `index` of the `elst` box at `elstOffset` in place (same version and size).
    static func patchEdit(_ index: Int, of bytes: inout [UInt8], elstOffset: UInt64, _ change: (inout MP4EditListEntry) -> Void) {
        let base = Int(elstOffset)
        let wide = bytes[base + 8] == 1
        let entrySize = wide ? 20 : 12
        let start = base + 16 + index * entrySize
        func read(_ at: Int, _ count: Int) -> UInt64 { bytes[at..<at + count].reduce(0) { $0 << 8 | UInt64($1) } }
        func write(_ value: UInt64, _ at: Int, _ count: Int) {
            for offset in 0..<count { bytes[at + offset] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - offset))) }
        }
        let timeSize = wide ? 8 : 4
        let rawTime = read(start + timeSize, timeSize)
        let time = wide ? Int64(bitPattern: rawTime) : Int64(Int32(bitPattern: UInt32(rawTime)))
        var entry = MP4EditListEntry(segmentDuration: read(start, timeSize), mediaTime: time == -1 ? nil : time,
                                     rateInteger: Int16(bitPattern: UInt16(read(start + 2 * timeSize, 2))),
                                     rateFraction: Int16(bitPattern: UInt16(read(start + 2 * timeSize + 2, 2))))
        change(&entry)
        write(entry.segmentDuration, start, timeSize)
        write(UInt64(bitPattern: entry.mediaTime ?? -1), start + timeSize, timeSize)
        write(UInt64(UInt16(bitPattern: entry.rateInteger)), start + 2 * timeSize, 2)
        write(UInt64(UInt16(bitPattern: entry.rateFraction)), start + 2 * timeSize + 2, 2)
    }
}
