import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTS

/// A piece is decoded from a keyframe at or before its start. An HEVC open GOP starts at a CRA
/// picture whose leading pictures (decoded after it, shown before it) reference the GOP before:
///
///     source, decode order   ... P20 | CRA24 B22 B21 B23 | P29 B27 ...
///     shown                  ... 20 21 22 23 | 24 25 ...
///     piece [1, 2) s         decode from CRA24; B21..B23 cannot be decoded without P20
///
/// They are never shown (they present before the piece starts), so they are left out of the
/// output: copied, they would be decoded against the previous piece's pictures.
@Suite("MP4 decode starts", .needsFFmpeg)
struct MP4DecodeStartTests {
    /// A 4 s clip of 160x120 at 24 fps with a tone in AAC, its video encoded with `video`
    /// (ffmpeg's codec options).
    static func clip(_ name: String, in folder: String, video: [String], tools: FFmpeg) async throws -> String {
        let path = folder + "/" + name
        try await tools.make(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=4",
                              "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=4", "-c:a", "aac"] + video + [path])
        return path
    }

    /// HEVC with an IDR at 0 and a CRA every second, each with 3 leading pictures.
    static func openGOPClip(in folder: String, tools: FFmpeg) async throws -> String {
        try await clip("open-gop.mp4", in: folder, video: [
            "-c:v", "libx265", "-x265-params", "keyint=24:min-keyint=24:open-gop=1:bframes=4:b-adapt=0:scenecut=0:log-level=error",
            "-tag:v", "hvc1"], tools: tools)
    }

    @Test("HEVC open GOP, cut at and after a CRA, sample-accurate")
    func openGOPSampleAccurate() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("open-gop")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.openGOPClip(in: folder, tools: tools)
        _ = try await stitchAndJudge([piece(clip, "0", "1.5"), piece(clip, "1", "2.25"), piece(clip, "2.5", "4")])
    }

    /// Keyframe-aligned, a piece may start at a CRA (its leading pictures are left out) but not
    /// end at one: its leading pictures show before it and decode after it.
    ///
    ///     keyframes        IDR0    CRA24    CRA48    CRA72    end 96
    ///     [1, 4) s                 |---------------------------|     starts at a CRA: plays
    ///     [0, 1.5) s       |-------x                                   would end at CRA24: refused
    @Test("HEVC open GOP, keyframe-aligned: starts at a CRA, never ends at one")
    func openGOPKeyframeAligned() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("open-gop-keyframes")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.openGOPClip(in: folder, tools: tools)
        let plan = try #require(try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clip, "1.2", "4"), piece(clip, "0", "4")]))
        #expect(plan.pieces.map(\.sourceRange) == [MediaTimeRange(start: MediaTime(seconds: 1), end: MediaTime(seconds: 4)),
                                                    MediaTimeRange(start: .zero, end: MediaTime(seconds: 4))])

        let track = try #require(try MP4Reader.read(path: FilePath(clip)).videoTrack)
        #expect(throws: MP4Error.unsupported(file: clip, boxPath: track.boxPath, offset: track.boxOffset, reason:
            "piece 1 would end at its source's keyframe at 1 s, but frames shown before that keyframe are decoded after it "
            + "(an open GOP's leading pictures), so a keyframe-aligned cut cannot end there: use sample-accurate cuts, "
            + "or end the piece where its source ends")) {
            try MP4Stitcher(pieces: [piece(clip, "2", "4"), piece(clip, "0", "1.5")], cutMode: .keyframeAligned).plan()
        }
    }

    /// x264's intra refresh has one IDR; later pictures flagged sync (by ffmpeg's muxer, as by
    /// GStreamer's) are P pictures that refresh the picture stripe by stripe over the next
    /// frames. Decoding cannot start there, so every piece decodes from the IDR.
    ///
    ///     flagged sync     IDR0     P25      P50      P75      (decode order: 0, 24, 49, 74)
    ///     [1.1, 2) s       decoded from IDR0, frames before 1.1 s hidden (sample-accurate)
    ///                      [0, 4) s (keyframe-aligned: IDR0 is the only keyframe)
    @Test("x264 intra refresh: flagged recovery points are not decode starts", arguments: MP4CutMode.allCases)
    func intraRefresh(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("intra-refresh")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.clip("intra-refresh.mp4", in: folder, video: ["-c:v", "libx264", "-x264-params", "keyint=24:intra-refresh=1"],
                                       tools: tools)
        let track = try #require(try MP4Reader.read(path: FilePath(clip)).videoTrack)
        #expect((0..<track.samples.count).filter(track.samples.isSync) == [0, 24, 49, 74])

        let plan = try #require(try await stitchAndJudge(cutMode: mode, [piece(clip, "2.5", "4"), piece(clip, "1.1", "2"), piece(clip, "0", "1")]))
        if mode == .keyframeAligned {
            #expect(plan.pieces.map(\.sourceRange) == Array(repeating: MediaTimeRange(start: .zero, end: MediaTime(seconds: 4)), count: 3))
        }
    }

    /// A source with one keyframe, cut by a mid-roll, keyframe-aligned: both pieces become the
    /// whole clip, which would play twice. Refused naming the clip, the times and the way out.
    ///
    ///     keyframes   0 (only)                         end 4
    ///     asked       |main 0-1.5|ad|main 1.5-4|
    ///     snapped     |main 0-4  |ad|main 0-4  |       overlap
    @Test("a long GOP cut by a mid-roll, keyframe-aligned, is refused in the clip's terms")
    func longGOP() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("long-gop")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.clip("long-gop.mp4", in: folder, video: ["-c:v", "libx264", "-g", "250"], tools: tools)
        let composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "main", source: MediaLocation(FilePath(clip)), end: MediaTime(seconds: 4))],
            breaks: [AdBreak(id: "mid", placement: .midroll(at: MediaTime(value: 3, timescale: 2)),
                             ads: [Ad(id: "ad", source: MediaLocation(FilePath(MP4Fixtures.ad1)), end: MediaTime(seconds: 1))])]))
        #expect(throws: MP4ExportError(.snapping(.overlappingPieces(item: "main", end: MediaTime(seconds: 4), nextStart: .zero)))) {
            try MP4Exporter.plan(composition, cut: .keyframeAligned)
        }
        _ = try MP4Exporter.plan(composition, cut: .sampleAccurate)
    }
}
