import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

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
