import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Keyframe-aligned cuts: starts move back to the keyframe at or before them, ends back to the
/// keyframe at or before them (forward to the next one if nothing would be left), ends at or past
/// the end of the video stay. content.mp4 has keyframes every 2 s; ad2.mp4 every 30 frames of
/// 1001/30000 s (0, 1.001, 2.002, 3.003, ...).
@Suite("MP4 stitcher, keyframe-aligned cuts")
struct MP4KeyframeAlignedTests {
    /// ```
    /// asked:   content [2.5,7.5) | ad2 [1,4)      | content [8.5,9) | ad2 [0,7)
    /// plays:   content [2,6)     | ad2 [0,3.003)  | content [8,10)  | ad2 [0,7) (video held 6.006→7)
    /// output:  0                 4                7.003             9.003       16.003
    /// ```
    @Test("snapped ranges are reported and are exactly what plays", .needsFFmpeg)
    func snappedRanges() async throws {
        let pieces = [
            piece(MP4Fixtures.content, "2.5", "7.5"), piece(MP4Fixtures.ad2, "1", "4"),
            piece(MP4Fixtures.content, "8.5", "9"), piece(MP4Fixtures.ad2, "0", "7"),
        ]
        let plan = try #require(try await stitchAndJudge(cutMode: .keyframeAligned, pieces))
        let expected = [("2", "6"), ("0", "3003/1000"), ("8", "10"), ("0", "7")].map {
            MediaTimeRange(start: try! MediaTime(parsing: $0.0), end: try! MediaTime(parsing: $0.1))
        }
        #expect(plan.pieces.map(\.sourceRange) == expected)
        #expect(plan.pieces.map(\.requestedRange) == pieces.map(\.range))
        #expect(plan.duration == (try MediaTime(parsing: "16.003")))
    }

    /// Adjacent ranges of one source stay adjacent after snapping: nothing repeats, nothing is lost.
    @Test("a cut content clip stays continuous around an ad", .needsFFmpeg)
    func continuousContent() async throws {
        let plan = try #require(try await stitchAndJudge(cutMode: .keyframeAligned, [
            piece(MP4Fixtures.content, "0", "8.5"), piece(MP4Fixtures.ad1, "0", "2"), piece(MP4Fixtures.content, "8.5", "20"),
        ]))
        #expect(plan.pieces[0].sourceRange.end == plan.pieces[2].sourceRange.start)
        #expect(plan.pieces[0].sourceRange.end == MediaTime(seconds: 8))
    }

    @Test("no video sample is hidden: every sample in the file is shown", .needsFFmpeg)
    func nothingHidden() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder()
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: [
            piece(MP4Fixtures.content2, "1", "9"), piece(MP4Fixtures.ad1, "2.5", "5"), piece(MP4Fixtures.content, "3", "7"),
        ], cutMode: .keyframeAligned).stitch(to: FilePath(output))
        let movie = try MP4Reader.read(path: FilePath(output))
        let video = try #require(movie.videoTrack)
        #expect(MP4StitchJudge.presentationTimes(of: video).count == video.samples.count)
        #expect(video.editList?.count == 1)
        #expect(movie.audioTrack?.editList?.count == 1)
        // Without edit lists a player still sees the pieces back to back: ffmpeg's own frame
        // times run without a gap from 0.
        let frames = try await tools.videoFrames(output)
        #expect(frames.first?.time == .zero)
        #expect(frames.count == video.samples.count)
    }
}

/// Variable frame rate: 24 fps in the first half of each second, 8 fps in the second, a keyframe
/// each second (as a phone records a scene that darkens). Before, keyframe-aligned cuts of such a
/// clip were refused with "empty range, end 3 s is not after start 0 s".
/// ```
/// frames     |||||||||||| |  |  |  |||||||||||| |  |  |  ...
///            0            0.5        1            1.5         4
/// ```
@Suite("MP4 stitcher, variable frame rate", .needsFFmpeg)
struct MP4VariableFrameRateTests {
    @Test("cut inside GOPs, whole among its own, spliced with itself", arguments: MP4CutMode.allCases)
    func arrangements(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("vfr")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/vfr.mp4"
        try await tools.make([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=4",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
            "-vf", "select='lt(mod(n\\,24)\\,12)+not(mod(n\\,3))'", "-fps_mode", "vfr",
            "-c:v", "libx264", "-force_key_frames", "expr:gte(t,n_forced)", "-c:a", "aac", "-f", "mp4", clip,
        ])
        let samples = try #require(try MP4Reader.read(path: FilePath(clip)).videoTrack?.samples)
        #expect(Set((0..<samples.count).map { samples.durations[$0] }).count > 1, "the clip's frames last differently")
        _ = try await stitchAndJudge(cutMode: mode, [piece(clip, "0.5", "2.5")])
        _ = try await stitchAndJudge(cutMode: mode, [piece(clip, "2", "3"), piece(clip, "0", "3"), piece(clip, "0", "1")])
        _ = try await stitchAndJudge(cutMode: mode, [piece(clip, "1.5", "3"), piece(clip, "0.2", "1.5")])
    }
}
