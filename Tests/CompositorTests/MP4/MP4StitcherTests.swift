import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// A piece from a fixture, times written as exact decimal or rational strings.
func piece(_ path: String, _ start: String, _ end: String) -> MP4StitchPiece {
    MP4StitchPiece(path: FilePath(path), range: MediaTimeRange(start: try! MediaTime(parsing: start), end: try! MediaTime(parsing: end)))
}

/// Stitches, then lets ffmpeg judge: exactly the sources' frames in each piece's range, audio that
/// decodes cleanly through every sample description, both tracks as long as the composition, one
/// edit per piece (or fewer, joined where the media runs on), and our own reader reading the output back.
func stitchAndJudge(cutMode: MP4CutMode = .sampleAccurate, _ pieces: [MP4StitchPiece],
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> MP4StitchPlan? {
    let stitcher = MP4Stitcher(pieces: pieces, cutMode: cutMode)
    let plan = try stitcher.plan()
    // Composition ranges are contiguous from 0 and as long as the source ranges that play.
    var cursor = MediaTime.zero
    for piece in plan.pieces {
        #expect(piece.compositionRange.start == cursor, sourceLocation: sourceLocation)
        #expect(piece.compositionRange.duration == piece.sourceRange.duration, sourceLocation: sourceLocation)
        cursor = piece.compositionRange.end
    }
    let tools = try FFmpeg.require()
    let folder = try MP4Fixtures.makeScratchFolder()
    // COMPOSITOR_KEEP_OUTPUT=1 keeps the stitched files for inspection.
    defer { if ProcessInfo.processInfo.environment["COMPOSITOR_KEEP_OUTPUT"] != "1" { MP4Fixtures.remove(folder) } else { print("kept", folder) } }
    let output = folder + "/stitched.mp4"
    try stitcher.write(plan, to: FilePath(output))
    #expect(MP4Fixtures.listing(folder) == ["stitched.mp4"], "temporary files left behind", sourceLocation: sourceLocation)

    var judge = MP4StitchJudge(tools: tools)
    try await judge.check(output, against: plan, sourceLocation: sourceLocation)

    let movie = try MP4Reader.read(path: FilePath(output))
    #expect(movie.tracks.count == (plan.pieces.contains { $0.sourceHasAudio } ? 1 : 0) + (plan.pieces.contains { $0.sourceHasVideo } ? 1 : 0),
            sourceLocation: sourceLocation)
    #expect(UInt64(try Data(contentsOf: URL(fileURLWithPath: output)).count) == plan.outputSize, sourceLocation: sourceLocation)
    for track in movie.tracks {
        #expect(track.presentationDuration == plan.duration, "\(track.kind) edit list total", sourceLocation: sourceLocation)
        guard cutMode == .sampleAccurate, let edits = track.editList else { continue }
        // One edit per piece with the piece's boundaries, joined where the media runs on (a cut
        // on a keyframe with nothing hidden); where a piece lacks this track (or its track starts
        // late), video extends the edit before it (the last frame holds) or starts with an empty
        // edit, and audio plays an edit of silence.
        var editBoundaries: [MediaTime] = [.zero]
        for edit in edits { editBoundaries.append(editBoundaries.last! + MediaTime(value: Int64(edit.segmentDuration), timescale: movie.timescale)) }
        // Where each media segment a piece shows of this track starts showing: at the piece's
        // start, later when the source's track starts late (after its leading empty edits), and
        // where the source's next segment starts (a source that is itself a stitch).
        let startsByPiece = try plan.pieces.map { piece -> [MediaTime] in
            guard let sourceTrack = try MP4Reader.read(path: piece.path).tracks.first(where: { $0.kind == track.kind }) else { return [] }
            return try SourceTrackTimeline.timelines(of: sourceTrack, file: "\(piece.path)").compactMap { timeline in
                let start = MediaTime.max(piece.sourceRange.start, timeline.presentationStart)
                guard start < MediaTime.min(piece.sourceRange.end, timeline.presentationEnd) else { return nil }
                return piece.compositionRange.start + (start - piece.sourceRange.start)
            }
        }
        let mediaStarts = startsByPiece.flatMap { $0 }
        // Where a piece's media starts inside an edit, the edit was joined: its media runs on.
        var editStart = MediaTime.zero
        for edit in edits {
            let editEnd = editStart + MediaTime(value: Int64(edit.segmentDuration), timescale: movie.timescale)
            for start in mediaStarts where editStart < start && start < editEnd {
                #expect(edit.mediaTime != nil, "\(track.kind): media starts at \(start) inside an empty edit", sourceLocation: sourceLocation)
            }
            editStart = editEnd
        }
        #expect(Set(editBoundaries).isSubset(of: Set([.zero] + plan.pieces.map(\.compositionRange.end) + mediaStarts)),
                "\(track.kind): every edit boundary is a piece boundary or where a piece's media starts", sourceLocation: sourceLocation)
        // Audio plays an edit of silence where a piece has none (or its audio starts late).
        let silences = track.kind == .audio
            ? zip(plan.pieces, startsByPiece).filter { piece, starts in starts.first.map { $0 > piece.compositionRange.start } ?? true }.count
            : 0
        #expect(edits.filter { $0.mediaTime != nil }.count <= mediaStarts.count + silences,
                "\(track.kind): at most one media edit per piece, and one of silence per gap in audio", sourceLocation: sourceLocation)
    }
    return plan
}

@Suite("MP4 stitcher, judged by ffmpeg", .needsFFmpeg)
struct MP4StitcherTests {
    /// ```
    /// content [0,20) | ad1 [0,10) | content2 [0,16) | ad2 [0,7)
    /// 0             20           30                46          53
    /// ```
    @Test("whole clips back to back, four settings", arguments: MP4CutMode.mixingFormats)
    func wholeClips(mode: MP4CutMode) async throws {
        let plan = try await stitchAndJudge(cutMode: mode, [
            piece(MP4Fixtures.content, "0", "20"), piece(MP4Fixtures.ad1, "0", "10"),
            piece(MP4Fixtures.content2, "0", "16"), piece(MP4Fixtures.ad2, "0", "7"),
        ])
        #expect(plan?.duration == MediaTime(seconds: 53))
    }

    /// Keyframes of content.mp4 every 2 s; both cuts fall inside GOPs.
    /// ```
    /// content [2.5,7.5) | content [8.5,13.3)
    /// 0                 5                   9.8
    /// ```
    @Test("cuts inside a GOP")
    func cutsInsideGOP() async throws {
        _ = try await stitchAndJudge([piece(MP4Fixtures.content, "2.5", "7.5"), piece(MP4Fixtures.content, "8.5", "13.3")])
    }

    /// Cuts one frame (1/24 s) either side of the keyframes at 2, 4 and 6 s, where B-frames
    /// decode after the P-frame they precede.
    @Test("cuts next to keyframes and B-frames", arguments: [
        ("49/24", "97/24"),   // one frame after a keyframe, to the frame just after the next one
        ("47/24", "95/24"),   // the frame just before a keyframe, to just before the next
        ("2", "4"),           // exactly on keyframes
        ("2", "49/24"),       // a single keyframe
        ("95/24", "4"),       // the single frame before a keyframe
    ])
    func cutsNextToBFrames(start: String, end: String) async throws {
        _ = try await stitchAndJudge([piece(MP4Fixtures.content, start, end), piece(MP4Fixtures.content2, start, end)])
    }

    /// ```
    /// content [0,8.5) | ad2 [1,4) 29.97 fps | content [8.5,12)
    /// 0               8.5                   11.5              15
    /// ```
    @Test("a 29.97 fps ad between content cuts", arguments: MP4CutMode.mixingFormats)
    func ntscAd(mode: MP4CutMode) async throws {
        _ = try await stitchAndJudge(cutMode: mode, [
            piece(MP4Fixtures.content, "0", "8.5"), piece(MP4Fixtures.ad2, "1", "4"), piece(MP4Fixtures.content, "8.5", "12"),
        ])
    }

    /// 48 kHz stereo, 44.1 kHz mono, 48 kHz stereo again: three audio sample descriptions in one
    /// track, switched at piece boundaries.
    @Test("mixed audio settings", arguments: MP4CutMode.mixingFormats)
    func mixedAudio(mode: MP4CutMode) async throws {
        _ = try await stitchAndJudge(cutMode: mode, [
            piece(MP4Fixtures.ad1, "0.5", "3.25"), piece(MP4Fixtures.content, "5", "9"),
            piece(MP4Fixtures.ad2, "0", "2"), piece(MP4Fixtures.content2, "1", "5"), piece(MP4Fixtures.ad1, "6", "8"),
        ])
    }

    /// ad2's video ends at 6.006 s, its audio at 7 s: the last frame is held to 7 s.
    /// ```
    /// ad2 [0,7): video 0──────6.006 held→7 | content [0,3)
    /// ```
    @Test("the ad whose audio runs longer than its video")
    func longerAudio() async throws {
        _ = try await stitchAndJudge([piece(MP4Fixtures.ad2, "0", "7"), piece(MP4Fixtures.content, "0", "3")])
        _ = try await stitchAndJudge([piece(MP4Fixtures.content, "0", "3"), piece(MP4Fixtures.ad2, "5", "7")])
        // A piece entirely after the video's end: no frame of its own, the previous one holds.
        _ = try await stitchAndJudge([piece(MP4Fixtures.content, "0", "3"), piece(MP4Fixtures.ad2, "6.2", "7"), piece(MP4Fixtures.ad1, "0", "1")])
    }

    /// A source without audio gets silence; a source without video gets no frames.
    @Test("sources missing a track", arguments: MP4CutMode.mixingFormats)
    func missingTracks(mode: MP4CutMode) async throws {
        _ = try await stitchAndJudge(cutMode: mode, [
            piece(MP4Fixtures.content, "0", "3"), piece(MP4Fixtures.videoOnly, "0", "2"),
            piece(MP4Fixtures.audioOnly, "0", "2"), piece(MP4Fixtures.content, "3", "5"),
        ])
        _ = try await stitchAndJudge(cutMode: mode, [piece(MP4Fixtures.videoOnly, "0", "2"), piece(MP4Fixtures.ad1, "0", "1")])
        _ = try await stitchAndJudge(cutMode: mode, [piece(MP4Fixtures.audioOnly, "0", "2"), piece(MP4Fixtures.ad1, "0", "1")])
    }

    /// The bundled demo schedule, flattened: pre-roll, content cut by a pod and a mid-roll, post-roll.
    @Test("the demo schedule's order of pieces", arguments: MP4CutMode.mixingFormats)
    func demo(mode: MP4CutMode) async throws {
        _ = try await stitchAndJudge(cutMode: mode, [
            piece(MP4Fixtures.ad1, "0", "5"),
            piece(MP4Fixtures.content, "0", "8.5"),
            piece(MP4Fixtures.ad1, "0", "10"), piece(MP4Fixtures.ad2, "1", "4"),
            piece(MP4Fixtures.content, "8.5", "20"),
            piece(MP4Fixtures.content2, "3", "9"),
            piece(MP4Fixtures.videoOnly, "0", "2"),
            piece(MP4Fixtures.content2, "9", "16"),
            piece(MP4Fixtures.ad2, "0", "7"),
        ])
    }

    /// A source remuxed without an edit list: its media timeline is its presentation (the first
    /// video frame presents 2 frames late, the audio priming is audible), and cuts follow it.
    @Test("a source without an edit list")
    func noEditList() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("noedit")
        defer { MP4Fixtures.remove(folder) }
        let source = folder + "/no-edit-list.mp4"
        let remux = try await ChildProcess.run(tools.ffmpeg, ["-v", "error", "-i", MP4Fixtures.content, "-c", "copy", "-use_editlist", "0", source])
        #expect(remux.status == 0, "\(remux.stderr)")
        #expect(try MP4Reader.read(path: FilePath(source)).tracks.allSatisfy { $0.editList == nil })
        _ = try await stitchAndJudge([piece(MP4Fixtures.ad1, "0", "1"), piece(source, "1", "5.5"), piece(MP4Fixtures.content, "5.5", "7")])
    }
}
