import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
@testable import CompositorTS

/// HEVC in MPEG-TS, both ways: HLS playlists of HEVC TS segments read by `render` (VPS, SPS and PPS
/// into an `hvc1` entry, IRAP pictures as sync samples), and HEVC MP4s packaged into TS segments
/// (stream type 0x24, an access unit delimiter and the `hvcC` parameter sets before each
/// keyframe). The clips are 4 s at 24 fps with a keyframe every second, made as HLS by ffmpeg:
///
///     open GOP     IDR0 | CRA24 (leading pictures) | CRA48 | CRA72 | end 96
///     closed GOP   IDR0 | IDR24 | IDR48 | IDR72 | end 96
@Suite("HEVC in MPEG-TS (judged by ffmpeg)", .needsFFmpeg)
struct HEVCTransportStreamTests {
    /// An HEVC clip (open or closed GOP) and ffmpeg's HLS packaging of it in 1 s TS segments.
    /// (ffmpeg's last `EXTINF` says 1.125 s, past the media's end at 4.01 s, so schedules give
    /// the content's end.)
    static func sources(openGOP: Bool, in folder: String, tools: FFmpeg) async throws -> (mp4: String, playlist: String) {
        let clip = openGOP
            ? try await MP4DecodeStartTests.openGOPClip(in: folder, tools: tools)
            : try await MP4DecodeStartTests.clip("closed-gop.mp4", in: folder, video: [
                "-c:v", "libx265", "-x265-params", "keyint=24:min-keyint=24:open-gop=0:bframes=4:b-adapt=0:scenecut=0:log-level=error",
                "-tag:v", "hvc1"], tools: tools)
        let playlist = folder + "/hevc.m3u8"
        try await tools.make(["-i", clip, "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                              "-hls_segment_filename", folder + "/hevc%d.ts", playlist])
        return (clip, playlist)
    }

    /// ```
    /// composition  0            1.3           2.55                5.05
    ///              | TS         | MP4 ad      | TS                |
    ///              | [0.2, 1.5) | [0.5, 1.75) | [1.5, 4)          |
    /// ```
    /// Sample-accurate on open GOPs (the stitcher leaves out the leading pictures of a piece's
    /// first CRA and marks it BLA); keyframe-aligned on closed GOPs (a keyframe-aligned piece
    /// cannot end at a CRA: `MP4DecodeStartTests`).
    @Test("HEVC TS content with an HEVC MP4 ad inside a GOP", arguments: [(true, MP4CutMode.sampleAccurate), (false, .keyframeAligned)])
    func render(openGOP: Bool, cut: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hevc-ts-render")
        defer { MP4Fixtures.remove(folder) }
        let (mp4, playlist) = try await Self.sources(openGOP: openGOP, in: folder, tools: tools)
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "\(playlist)", "start": 0.2, "end": 4 } ],
              "breaks": [ { "id": "mid", "at": 1.5, "ads": [ { "id": "ad", "url": "\(mp4)", "start": 0.5, "end": 1.75 } ] } ] }
            """.utf8))
        try await renderAndJudge(composition, cut: cut)
    }

    @Test("the rendered track describes HEVC as the segments' parameter sets say")
    func sampleEntry() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hevc-ts-entry")
        defer { MP4Fixtures.remove(folder) }
        let (_, playlist) = try await Self.sources(openGOP: true, in: folder, tools: tools)
        let output = folder + "/out.mp4"
        try await MP4Exporter.render(HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "\(playlist)", "end": 4 } ], "breaks": [] }
            """.utf8)), to: FilePath(output))
        let description = try #require(try MP4Reader.read(path: FilePath(output)).videoTrack?.sampleDescriptions.first)
        #expect(description.format == "hvc1")
        #expect(description.width == 160 && description.height == 120)
        guard case .hevc(let configuration) = description.codec else { Issue.record("not hvcC: \(description.codec)"); return }
        #expect(configuration.nalLengthSize == 4)
        #expect(configuration.parameterSets.map { ($0[0] >> 1) & 0x3F } == [32, 33, 34])
        let probed = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-select_streams", "v", "-show_entries",
                                                               "stream=codec_name,profile,width,height", "-of", "csv=p=0", output])
        #expect(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hevc,Main,160,120")
    }

    /// Closed GOPs: each piece starts at an IDR. (An open-GOP source's segments start at CRA
    /// pictures; after a discontinuity, a decoder that does not reset there, such as ffmpeg
    /// reading the whole playlist, finds its picture order counts repeated.)
    @Test("an HEVC MP4 packaged into MPEG-TS segments, with itself as a mid-roll")
    func packaging() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hevc-ts-packaging")
        defer { MP4Fixtures.remove(folder) }
        let (mp4, _) = try await Self.sources(openGOP: false, in: folder, tools: tools)
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "\(mp4)" } ],
              "breaks": [ { "id": "mid", "at": 2, "ads": [ { "id": "ad", "url": "\(mp4)", "start": 1, "end": 3 } ] } ] }
            """.utf8))
        let stitched = try await HLSPackagingFFmpegTests().judged(composition, container: .mpegTS, label: "hevc")
        // One packaging of the file serves both pieces.
        #expect(stitched.packagedSources.map(\.packaging.container) == [.mpegTS])
    }

    @Test("a playlist whose video changes from H.264 to HEVC is refused, naming the segment")
    func formatChange() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hevc-ts-change")
        defer { MP4Fixtures.remove(folder) }
        _ = try await Self.sources(openGOP: false, in: folder, tools: tools)
        let h264 = HLSJoin.fixtures + "/hls/ts/content/seg0.ts"
        try MP4Fixtures.write(Array("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:6,
            \(h264)
            #EXT-X-DISCONTINUITY
            #EXTINF:1,
            hevc0.ts
            #EXT-X-ENDLIST

            """.utf8), to: folder + "/mixed.m3u8")
        let source = try TransportStreamSourceTests.segments(folder + "/mixed.m3u8")
        var budget = MP4SampleBudget.movie
        #expect(throws: MP4Error.unsupportedStream(file: folder + "/hevc0.ts", offset: 376,
                                                   reason: "segment 2's video is HEVC, the segments' before it H.264; one track has one format")) {
            try TransportStreamReader.read(source, budget: &budget)
        }
    }
}
