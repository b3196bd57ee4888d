import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Fragmented MP4 sources in `render`: local fragmented files (as ffmpeg's muxer writes them, in
/// its several layouts) and HLS playlists of fMP4 segments, judged by ffmpeg: the decoded frames
/// are exactly the scheduled source frames, as ffmpeg decodes each source alone.
@Suite("Rendering fragmented MP4 sources (judged by ffmpeg)", .needsFFmpeg)
struct FragmentedSourceTests {
    /// ffmpeg's fragmented layouts: the `tfhd` base data offset given, or counted from the `moof`;
    /// one `moof` per track, fragments that end mid-GOP. (Its CMAF layout has a test of its own.)
    static let layouts: [(name: String, options: [String])] = [
        ("base-offset", ["-movflags", "frag_keyframe+empty_moov"]),
        ("moof-based", ["-movflags", "frag_keyframe+empty_moov+default_base_moof"]),
        ("mid-gop", ["-movflags", "empty_moov+separate_moof+default_base_moof", "-frag_duration", "700000"]),
    ]

    static func fragment(_ name: String, options: [String], into folder: String) async throws -> String {
        let output = folder + "/\(name).mp4"
        let result = try await ChildProcess.run(try FFmpeg.require().ffmpeg, ["-v", "error", "-i", MP4Fixtures.path(name + ".mp4"), "-c", "copy"]
                                                + options + [output])
        #expect(result.status == 0, "\(result.stderr)")
        return output
    }

    /// ```
    /// composition 0        4           7            13
    ///             | content | ad1       | content    |
    ///             | [0, 4)  | [0.5, 3.5)| [4, 10)    |
    /// ```
    @Test("a fragmented MP4 file as content and as an ad", arguments: layouts.map(\.name), MP4CutMode.mixingFormats)
    func fragmentedFiles(layout: String, cut: MP4CutMode) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("fragmented-\(layout)")
        defer { MP4Fixtures.remove(folder) }
        let options = try #require(Self.layouts.first { $0.name == layout }).options
        for name in ["content", "ad1"] { _ = try await Self.fragment(name, options: options, into: folder) }
        let movie = try MP4Reader.read(path: FilePath(folder + "/content.mp4"))
        #expect(movie.tracks.count == 2)
        #expect(movie.videoTrack?.samples.count == (try MP4Reader.read(path: FilePath(MP4Fixtures.content))).videoTrack?.samples.count)
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "\(folder)/content.mp4", "end": 10 } ],
              "breaks": [ { "id": "mid", "at": 4, "ads": [ { "id": "ad", "url": "\(folder)/ad1.mp4", "start": 0.5, "end": 3.5 } ] } ] }
            """.utf8))
        try await renderAndJudge(composition, cut: cut)
    }

    /// ffmpeg's CMAF output has negative composition offsets (`trun` version 1) and no edit
    /// list: by ISO/IEC 14496-12 its first frame presents at 0, its decode time. ffmpeg's mov.c
    /// presents every frame of such a track later by its largest negative offset (`dts_shift`:
    /// pts = dts + dts_shift + ctts), so its frame times cannot judge this file; its frames can.
    @Test("CMAF: negative composition offsets without an edit list present from 0, as ISO says")
    func cmaf() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("fragmented-cmaf")
        defer { MP4Fixtures.remove(folder) }
        let source = try await Self.fragment("content", options: ["-movflags", "cmaf"], into: folder)
        let video = try #require(try MP4Reader.read(path: FilePath(source)).videoTrack)
        #expect(video.samples.compositionOffsets.contains { $0 < 0 })
        #expect(MP4StitchJudge.presentationTimes(of: video).first == .zero)

        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "\(source)" } ], "breaks": [] }
            """.utf8))
        let output = folder + "/out.mp4"
        try await MP4Exporter.render(composition, to: FilePath(output))
        #expect(try await ffmpeg.videoFrames(output).map(\.hash) == ffmpeg.videoFrames(source).map(\.hash))
        #expect(try await ffmpeg.audioDecodeErrors(output).isEmpty)
    }

    @Test("every source an HLS playlist of fMP4 segments: Fixtures/demo-hls-fmp4.json", arguments: MP4CutMode.allCases)
    func fragmentedPlaylists(cut: MP4CutMode) async throws {
        try await renderAndJudge(HLSJoin.composition("demo-hls-fmp4.json"), cut: cut)
    }

    /// The seed's scenario with fMP4 content: HLS content whose decode times start at 100 s, MP4
    /// ads in a pod mid-GOP.
    ///
    /// ```
    /// composition 0     3           8.2       10.2      13.2        20
    ///             | ad1 | content   | ad2     | ad1     | content   |
    ///             | mp4 | [0, 5.2)  | [0, 2)  | [0, 3)  | [5.2, 12) |
    /// ```
    @Test("HLS fMP4 content with MP4 ads", arguments: MP4CutMode.mixingFormats)
    func fragmentedContentWithMP4Ads(cut: MP4CutMode) async throws {
        try await renderAndJudge(HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "hls/fmp4/content/index.m3u8" } ],
              "breaks": [
                { "id": "pre", "at": "preroll", "ads": [ { "id": "a1", "url": "ad1.mp4", "end": 3 } ] },
                { "id": "pod", "at": 5.2, "ads": [ { "id": "a2", "url": "ad2.mp4", "end": 2 },
                                                  { "id": "a3", "url": "ad1.mp4", "end": 3 } ] } ] }
            """.utf8)), cut: cut)
    }

    /// Two fMP4 playlists joined by a discontinuity (their init sections are byte-identical, so
    /// one serves both): decode times start afresh, at 100 s, and the content continues where
    /// ad1's video ends, its audio shifted alike.
    ///
    /// ```
    /// playlist  | ad1 segments (4 s)  |DISCONTINUITY| content segments (12 s)  |
    /// tfdt       0 ............... 4                  100 ................. 112
    /// source     0                 4                  4                       16
    /// ```
    /// An ad encoded elsewhere stitched into the content's playlist, as a server-side ad inserter
    /// writes it: a new `EXT-X-MAP` after each discontinuity. The ad has no B-frames (its video's
    /// edit list starts at 0, the content's at 1,024 ticks) and another picture size.
    ///
    /// ```
    /// playlist  |MAP ad init| ad (2 s, 320x180) |DISC MAP content init| content (12 s, 160x90) |
    /// source     0                              2                                             14
    /// ```
    ///
    /// At 30 fps the ad's video counts 15,360 ticks a second, the content's 12,800: refused, as one
    /// track has one timescale.
    @Test("an fMP4 playlist whose init section changes: each segment is decoded with its own", arguments: [25, 30])
    func initSectionChanges(adRate: Int) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("fmp4-init-change")
        defer { MP4Fixtures.remove(folder) }
        try await ffmpeg.make(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=\(adRate):duration=2", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                               "-c:v", "libx264", "-bf", "0", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k",
                               "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                               "-hls_fmp4_init_filename", "ad-init.mp4", "-hls_segment_filename", folder + "/ad%d.m4s", folder + "/ad.m3u8"])
        let content = HLSJoin.fixtures + "/hls/fmp4/content/"
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (index, (playlist, base)) in [(folder + "/ad.m3u8", folder + "/"), (content + "index.m3u8", content)].enumerated() {
            if index > 0 { lines.append("#EXT-X-DISCONTINUITY") }
            for line in try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("#EXT-X-MAP:URI=\"") {
                    lines.append("#EXT-X-MAP:URI=\"" + base + line.dropFirst("#EXT-X-MAP:URI=\"".count))
                } else if line.hasPrefix("#EXTINF") || !line.hasPrefix("#") {
                    lines.append(line.hasPrefix("#") ? String(line) : base + line)
                }
            }
        }
        lines.append("#EXT-X-ENDLIST")
        let joined = folder + "/joined.m3u8"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: joined))

        let composition = try HLSJoin.composition(json: Array(#"{ "content": [ { "id": "joined", "url": "\#(joined)" } ] }"#.utf8))
        #expect(composition.duration == MediaTime(seconds: 14))
        let output = folder + "/out.mp4"
        guard adRate == 25 else {
            #expect(throws: MP4ExportError(.mp4(.unsupported(
                file: content + "init.mp4", boxPath: "moov/trak[0]", offset: 144,
                reason: "video at 12800 ticks a second, the first init section's at 15360: one track has one timescale")))) {
                try MP4Exporter.render(composition, to: FilePath(output))
            }
            return
        }
        try await MP4Exporter.render(composition, to: FilePath(output))
        let expected = try await ffmpeg.playlistFrames(folder + "/ad.m3u8").map(\.hash)
            + ffmpeg.playlistFrames(content + "index.m3u8").map(\.hash)
        #expect(try await ffmpeg.videoFrames(output).map(\.hash) == expected)
        let video = try #require(try MP4Reader.read(path: FilePath(output)).videoTrack)
        #expect(video.sampleDescriptions.map(\.width) == [320, 160])
        #expect(MP4StitchJudge.presentationTimes(of: video)[50] == MediaTime(seconds: 2))  // the content's first frame
        #expect(try await ffmpeg.audioDecodeErrors(output).isEmpty)
    }

    @Test("a discontinuity in an fMP4 playlist: the next segments continue where the video before ends")
    func discontinuity() async throws {
        try await TransportStreamRenderTests.checkJoinedRender(
            from: "fmp4", header: ["#EXT-X-MAP:URI=\"\(HLSJoin.fixtures)/hls/fmp4/ad1/init.mp4\""], firstContentFrame: 100)  // ad1: 4 s at 25 fps
    }

    /// Where the video's decode times start, and how the audio's priming is hidden: ffmpeg's
    /// init section puts the B-frame delay in the video's edit list (1,024 ticks at 12,800) and
    /// its segments start decoding at 100 s, the audio one AAC frame (its priming) earlier.
    @Test("a playlist's fMP4 source starts at its first video frame, its audio priming hidden")
    func timing() throws {
        var sources = HLSRenderSources()
        let read = try sources.source(MediaLocation(FilePath(HLSJoin.fixtures + "/hls/fmp4/content/index.m3u8")))
        guard case .hls(let source, nil) = read, case .fragmentedMP4 = source.container else { Issue.record("read as \(read)"); return }
        var budget = MP4SampleBudget.movie
        let movie = try MP4Reader.read(source, budget: &budget)
        let video = try #require(movie.videoTrack), audio = try #require(movie.audioTrack)
        #expect(video.samples.decodeTimes.first == 0)
        // Edits count at 192,000 (12,800 and 48,000 both fit it): 12 s.
        #expect(video.movieTimescale == 192_000)
        #expect(video.editList == [MP4EditListEntry(segmentDuration: 2_304_000, mediaTime: 1024)])
        #expect(audio.editList?.first?.mediaTime == 1024)
        #expect(movie.naturalDuration >= MediaTime(seconds: 12))
        #expect(movie.videoTrack?.presentationDuration == MediaTime(seconds: 12))
    }
}
