import Foundation
import Testing
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Audio keeps its place in both cut modes, and audio in any codec joins when no silence must be
/// made. The clips are made here by ffmpeg: a 4 s video (a keyframe every second) whose tone
/// starts late, as a camera or an editor writes it (an empty edit, then the audio), in AAC and in
/// AC-3; and clips whose MP3 or AC-3 audio covers the whole video.
/// Silence is made only in AAC: any other audio that needs filling is refused.
@Suite("MP4 stitcher, audio placement", .needsFFmpeg)
struct MP4AudioPlacementTests {
    /// Where the tone plays is judged by decoding it (see `FFmpeg.loudSpans`), with 40 ms of slack:
    /// the judge's 10 ms windows, half a frame (keyframe mode takes whole frames) and the decoder's
    /// overlap. Before, keyframe mode played the tone from 0 and 6, half a second early.
    /// ```
    /// late.mp4 video   0 ───────────────────────── 4
    ///          audio         0.478 ─────────────── 4   (tone)
    ///
    /// pieces   late [0,4)                | late [1,3)  | late [0,2)
    /// tone     ·····0.478━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 6 ·····6.478━━━ 8
    /// ```
    @Test("audio that starts late keeps its offset, in both cut modes", arguments: MP4CutMode.allCases)
    func lateAudioKeepsItsPlace(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("late-audio")
        defer { MP4Fixtures.remove(folder) }
        let late = try await Self.lateAudioClip(in: folder, codec: "aac", tools: tools)
        let silent = try #require(try MP4Reader.read(path: FilePath(late)).audioTrack?.editList?.first)
        #expect(silent.isEmpty, "the clip starts its audio with an empty edit")

        let pieces = [piece(late, "0", "4"), piece(late, "1", "3"), piece(late, "0", "2")]
        let plan = try #require(try await stitchAndJudge(cutMode: mode, pieces))
        #expect(plan.duration == MediaTime(seconds: 8))
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: pieces, cutMode: mode).stitch(to: FilePath(output))
        let spans = try await tools.loudSpans(output)
        try #require(spans.count == 2, "\(spans)")
        expect(spans[0], near: 0.478...6)
        expect(spans[1], near: 6.478...8)
    }

    /// Keyframe mode used to make silence for every piece, so any audio but AAC was refused even
    /// where nothing is missing. Whole clips and cuts at keyframes join in MP3 and AC-3.
    @Test("MP3 and AC-3 audio that covers the pieces joins in keyframe mode", arguments: ["libmp3lame", "ac3"])
    func otherCodecsNeedingNoSilence(codec: String) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("audio-codecs")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/clip.mp4"
        try await tools.make([
            "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2.2",
            "-c:v", "libx264", "-g", "10", "-c:a", codec, "-f", "mp4", clip,
        ])
        _ = try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clip, "0", "2")])
        _ = try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clip, "0", "1"), piece(clip, "1", "2"), piece(clip, "0", "1")])
    }

    /// Late AC-3 needs silence before it, in either mode (keyframe mode has one edit per track;
    /// sample mode plays silence, not an empty edit, where ffmpeg would mishandle one), and only
    /// AAC silence can be made: refused naming the codec, the gap and what to do.
    @Test("late AC-3 audio is refused naming the codec and the gap", arguments: MP4CutMode.allCases)
    func lateOtherCodec(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("late-ac3")
        defer { MP4Fixtures.remove(folder) }
        let late = try await Self.lateAudioClip(in: folder, codec: "ac3", tools: tools)
        do {
            _ = try MP4Stitcher(pieces: [piece(late, "0", "2"), piece(late, "0", "2")], cutMode: mode).plan()
            Issue.record("late AC-3 planned")
        } catch {
            guard case .unsupported(let file, let boxPath, _, let reason) = error else { throw error }
            #expect(file == late)
            #expect(boxPath == "moov/trak[1]")
            // AC-3's 256 samples of encoder delay shorten the 0.5 s offset.
            #expect(reason.hasPrefix("piece 0 has no audio for 0.494 s, to be filled with silence"), "\(reason)")
            #expect(reason.contains("this audio is AC-3"), "\(reason)")
            #expect(reason.hasSuffix("Cut where the source has audio, or give the pieces AAC audio"), "\(reason)")
        }
        // Cut where the audio plays, it joins.
        _ = try await stitchAndJudge(cutMode: mode, [piece(late, "1", "2"), piece(late, "3", "4")])
    }

    /// A 4 s, 25 fps clip with a keyframe every second and a tone that starts at 0.5 s.
    static func lateAudioClip(in folder: String, codec: String, tools: FFmpeg) async throws -> String {
        let clip = folder + "/late-\(codec).mp4"
        try await tools.make([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4",
            "-itsoffset", "0.5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3.5",
            "-c:v", "libx264", "-g", "25", "-c:a", codec, "-f", "mp4", clip,
        ])
        return clip
    }

    func expect(_ span: ClosedRange<Double>, near expected: ClosedRange<Double>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(span.lowerBound - expected.lowerBound) <= 0.04 && abs(span.upperBound - expected.upperBound) <= 0.04,
                "tone plays \(span), expected \(expected)", sourceLocation: sourceLocation)
    }
}
