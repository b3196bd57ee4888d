import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Every output is a valid input again: a sample-accurate stitch has one edit per piece in each
/// track, and a source with several media segments is read as what it presents, cut into one part
/// per segment. content.mp4 has keyframes every 2 s.
@Suite("MP4 stitcher, the project's own output as a source", .needsFFmpeg)
struct MP4RestitchTests {
    /// ```
    /// first.mp4   content [0,5) | ad1 [0,3) | content [5,10)      (edits at 0, 5, 8; 13 s)
    ///             0             5           8                 13
    /// second      first [2,9)             | ad2 [0,2) | first [9,13)
    ///             0                       7           9           13
    /// ```
    /// `first [2,9)` spans all three of first's edits; ffmpeg, which reads edit lists, judges
    /// both files frame by frame.
    @Test("a stitched file stitched again, sample-accurate")
    func sampleAccurate() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("restitch")
        defer { MP4Fixtures.remove(folder) }
        let first = try await Self.firstStitch(in: folder)
        let plan = try #require(try await stitchAndJudge([piece(first, "2", "9"), piece(MP4Fixtures.ad2, "0", "2"), piece(first, "9", "13")]))
        // One plan piece per piece asked for, however many segments it spans.
        #expect(plan.pieces.map(\.sourceRange) == [range(s(2), s(9)), range(s(0), s(2)), range(s(9), s(13))])
        #expect(plan.pieces.map(\.compositionRange) == [range(s(0), s(7)), range(s(7), s(9)), range(s(9), s(13))])
    }

    /// Keyframe-aligned cuts hide nothing, so a piece may span a source's edit only where both
    /// media segments meet on keyframes:
    /// ```
    /// clean.mp4   content [0,4) | content [6,10)        (keyframes at 4 and 6: nothing hidden)
    /// first.mp4   content [0,5) | ad1 [0,3) | content [5,10)
    ///                           5 hides frames after it  8 starts inside a GOP
    /// ```
    @Test("keyframe-aligned: segments that meet on keyframes join, others are refused naming the edit")
    func keyframeAligned() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("restitch-keyframe")
        defer { MP4Fixtures.remove(folder) }
        let clean = folder + "/clean.mp4"
        try MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "4"), piece(MP4Fixtures.content, "6", "10")]).stitch(to: FilePath(clean))
        let plan = try #require(try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clean, "2", "7"), piece(MP4Fixtures.ad2, "0", "2")]))
        // The end snaps back to clean's keyframe at 6 (content's at 8), as for any source.
        #expect(plan.pieces.first?.sourceRange == range(s(2), s(6)))

        let first = try await Self.firstStitch(in: folder)
        let video = try #require(try MP4Reader.read(path: FilePath(first)).videoTrack)
        for (asked, edit) in [(("0", "8"), 5), (("6", "12"), 8)] {
            #expect(throws: MP4Error.unsupported(
                file: first, boxPath: video.boxPath + "/edts/elst", offset: try #require(video.editListOffset),
                reason: "piece 1 spans the edit at \(edit) s, where its source's video changes media segment inside a GOP: "
                    + "keyframe-aligned cuts hide no frames, so cut there, or use sample-accurate cuts")) {
                try MP4Stitcher(pieces: [piece(MP4Fixtures.ad2, "0", "2"), piece(first, asked.0, asked.1)], cutMode: .keyframeAligned).plan()
            }
        }
    }

    /// content [0,5) | ad1 [0,3) | content [5,10), sample-accurate.
    static func firstStitch(in folder: String) async throws -> String {
        let path = folder + "/first.mp4"
        try MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "5"), piece(MP4Fixtures.ad1, "0", "3"),
                                 piece(MP4Fixtures.content, "5", "10")]).stitch(to: FilePath(path))
        let video = try #require(try MP4Reader.read(path: FilePath(path)).videoTrack)
        try #require(video.editList?.count == 3)
        return path
    }
}
