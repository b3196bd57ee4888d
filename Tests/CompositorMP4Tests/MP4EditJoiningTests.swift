import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorMP4

/// Sample-accurate output with the fewest edits: an edit only where samples are hidden or a gap
/// is filled; a cut on a keyframe with nothing hidden on either side needs none.
@Suite("MP4 stitcher, sample-accurate edits joined where the media runs on")
struct MP4EditJoiningTests {
    typealias Edit = MP4EditListEntry

    struct Case: Sendable, CustomTestStringConvertible {
        let why: String
        let edits: [Edit]
        /// The media timescale (the movie's is 1000).
        let timescale: Int32
        let joined: [Edit]
        var testDescription: String { why }
    }

    static func e(_ duration: UInt64, _ media: Int64?) -> Edit { Edit(segmentDuration: duration, mediaTime: media) }
    static let cases: [Case] = [
        Case(why: "contiguous: 8 s from 0, then 6 s from 8 s", edits: [e(8000, 0), e(6000, 384_000)], timescale: 48000,
             joined: [e(14000, 0)]),
        Case(why: "three in a row, then one after a gap in the media (hidden samples)",
             edits: [e(1000, 1024), e(1000, 49024), e(1000, 97024), e(1000, 150_000)], timescale: 48000,
             joined: [e(3000, 1024), e(1000, 150_000)]),
        Case(why: "media that goes back (an earlier part of the source) stays two edits",
             edits: [e(2000, 96000), e(2000, 0)], timescale: 48000, joined: [e(2000, 96000), e(2000, 0)]),
        Case(why: "an empty edit before media, and a dwell (rate 0) after it, are never joined",
             edits: [e(500, nil), e(1000, 0), Edit(segmentDuration: 1000, mediaTime: 48000, rateInteger: 0)], timescale: 48000,
             joined: [e(500, nil), e(1000, 0), Edit(segmentDuration: 1000, mediaTime: 48000, rateInteger: 0)]),
        Case(why: "3 ms at 44.1 kHz is 132.3 ticks: not whole, so the next edit cannot be said to follow",
             edits: [e(3, 0), e(3, 132)], timescale: 44100, joined: [e(3, 0), e(3, 132)]),
        Case(why: "10 ms at 44.1 kHz is 441 ticks: whole, joined", edits: [e(10, 0), e(10, 441)], timescale: 44100,
             joined: [e(20, 0)]),
        Case(why: "media times near Int64.max cannot overflow the check",
             edits: [e(1000, .max - 10), e(1000, 5)], timescale: 48000, joined: [e(1000, .max - 10), e(1000, 5)]),
    ]

    @Test("edits join only when the next shows the media right after the previous, exactly", arguments: cases)
    func joining(_ example: Case) {
        #expect(LayoutContext.joiningContiguous(example.edits, timescale: example.timescale, movieTimescale: 1000) == example.joined)
    }

    /// ```
    /// pieces:  content [0,8)   | content [12,20)     both cuts on keyframes (every 2 s)
    /// video:   [0,16) one edit: GOPs 0-8 then 12-20 follow each other in the media
    /// audio:   two edits: 12 s is not on an AAC frame (1024 samples at 48 kHz), so the second
    ///          piece starts with a hidden part of a frame
    /// ```
    @Test("cuts on keyframes need no video edit; the output still shows exactly the scheduled frames", .needsFFmpeg)
    func keyframeCutsJoin() async throws {
        let pieces = [piece(MP4Fixtures.content, "0", "8"), piece(MP4Fixtures.content, "12", "20")]
        let plan = try #require(try await stitchAndJudge(pieces))
        let folder = try MP4Fixtures.makeScratchFolder()
        defer { MP4Fixtures.remove(folder) }
        try MP4Stitcher(pieces: pieces).write(plan, to: FilePath(folder + "/out.mp4"))
        let movie = try MP4Reader.read(path: FilePath(folder + "/out.mp4"))
        #expect(movie.videoTrack?.editList?.count == 1)
        #expect(movie.audioTrack?.editList?.count == 2)
        // A cut inside a GOP keeps its edit: the hidden lead-in must stay hidden.
        let midGOP = [piece(MP4Fixtures.content, "0", "8"), piece(MP4Fixtures.content, "12.5", "20")]
        try MP4Stitcher(pieces: midGOP).stitch(to: FilePath(folder + "/mid.mp4"))
        #expect(try MP4Reader.read(path: FilePath(folder + "/mid.mp4")).videoTrack?.editList?.count == 2)
    }
}
