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

/// HLS sources of MPEG-TS segments in `render`, mixed with MP4 sources, judged by ffmpeg: the
/// decoded frames are exactly the scheduled source frames (a playlist's frames in its own time,
/// 0 at its first frame), each shown when its edit list says, audio decodes cleanly, and both
/// streams end where the composition does.
@Suite("Rendering HLS (MPEG-TS) sources to MP4 (judged by ffmpeg)", .needsFFmpeg)
struct TransportStreamRenderTests {
    /// The seed's scenario in small: HLS content, an MP4 pre-roll, a pod of an MP4 and an HLS ad
    /// mid-GOP in the content, an MP4 post-roll.
    ///
    /// ```
    /// composition 0     3          8.125       10.125  12.125              19          21
    ///             | ad1 | content  | ad2 (mp4) | ad2   | content           | ad1 (mp4) |
    ///             | mp4 | [0,5.125)|  [0, 2)   | (ts)  | [5.125, 12)       |  [0, 2)   |
    /// ```
    static let mixed = """
        { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
          "breaks": [
            { "id": "pre", "at": "preroll", "ads": [ { "id": "a1", "url": "ad1.mp4", "end": 3 } ] },
            { "id": "pod", "at": 5.125, "ads": [ { "id": "a2", "url": "ad2.mp4", "end": 2 },
                                                { "id": "a3", "url": "hls/ts/ad2/index.m3u8", "start": 0.6, "end": 2.6 } ] },
            { "id": "post", "at": "postroll", "ads": [ { "id": "a4", "url": "ad1.mp4", "end": 2 } ] } ] }
        """

    /// The reverse: MP4 content, HLS ads, one cut inside a TS segment.
    static let reverse = """
        { "content": [ { "id": "feature", "url": "content.mp4", "end": 10 } ],
          "breaks": [
            { "id": "pre", "at": "preroll", "ads": [ { "id": "a1", "url": "hls/ts/ad1/index.m3u8", "start": 0.5, "end": 3.1 } ] },
            { "id": "mid", "at": 4, "ads": [ { "id": "a2", "url": "hls/ts/ad1/index.m3u8" } ] } ] }
        """

    @Test("HLS content with MP4 ads, and MP4 content with HLS ads", arguments: [mixed, reverse], MP4CutMode.mixingFormats)
    func mixedSources(schedule: String, cut: MP4CutMode) async throws {
        try await renderAndJudge(HLSJoin.composition(json: Array(schedule.utf8)), cut: cut)
    }

    @Test("the seed's scenario: Fixtures/seed-scenario.json", arguments: MP4CutMode.mixingFormats)
    func seedScenario(cut: MP4CutMode) async throws {
        try await renderAndJudge(HLSJoin.composition("seed-scenario.json"), cut: cut)
    }

    @Test("every source an HLS playlist: Fixtures/demo-hls.json", arguments: MP4CutMode.allCases)
    func allPlaylists(cut: MP4CutMode) async throws {
        try await renderAndJudge(HLSJoin.composition("demo-hls.json"), cut: cut)
    }

    @Test("a multivariant source plays its highest-bandwidth variant, whatever the listing order")
    func multivariant() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("ts-multivariant")
        defer { MP4Fixtures.remove(folder) }
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "ad", "url": "hls/multivariant/ad1/master.m3u8" } ], "breaks": [] }
            """.utf8))
        let output = folder + "/out.mp4"
        try await MP4Exporter.render(composition, to: FilePath(output))
        // ad1's master lists lo (160x90) first, hi (320x180, the higher BANDWIDTH) second.
        let hi = try await ffmpeg.playlistFrames(HLSJoin.fixtures + "/hls/multivariant/ad1/hi/index.m3u8").map(\.hash)
        #expect(try await ffmpeg.videoFrames(output).map(\.hash) == hi)
        #expect(try MP4Reader.read(path: FilePath(output)).videoTrack?.sampleDescriptions.first?.width == 320)
    }

    /// ```
    /// ad1/master.m3u8   lo/index.m3u8 (160x90, 96925 bit/s)   hi/index.m3u8 (320x180, 262365 bit/s)
    /// "variant"          "lo/index.m3u8" -> lo                 none -> hi (the highest BANDWIDTH)
    /// ```
    @Test("a source names its variant by URI as the master writes it, or by STABLE-VARIANT-ID", arguments: ["uri", "stable id"])
    func namedVariant(naming: String) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("ts-named-variant")
        defer { MP4Fixtures.remove(folder) }
        let variants = HLSJoin.fixtures + "/hls/multivariant/ad1/"
        var master = "hls/multivariant/ad1/master.m3u8", name = "lo/index.m3u8"
        if naming == "stable id" {
            master = folder + "/master.m3u8"
            name = "small"
            try Data("""
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=262365,STABLE-VARIANT-ID="large"
                \(variants)hi/index.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=96925,STABLE-VARIANT-ID="small"
                \(variants)lo/index.m3u8
                """.utf8).write(to: URL(fileURLWithPath: master))
        }
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "lo", "url": "\(master)", "variant": "\(name)" } ], "breaks": [] }
            """.utf8))
        let output = folder + "/out.mp4"
        try await MP4Exporter.render(composition, to: FilePath(output))
        let lo = try await ffmpeg.playlistFrames(variants + "lo/index.m3u8").map(\.hash)
        #expect(try await ffmpeg.videoFrames(output).map(\.hash) == lo)
        #expect(try MP4Reader.read(path: FilePath(output)).videoTrack?.sampleDescriptions.map(\.width) == [160])
    }

    @Test("two variants of one master are two sources: lo's frames, then hi's")
    func twoVariants() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-two-variants")
        defer { MP4Fixtures.remove(folder) }
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "lo", "url": "hls/multivariant/ad1/master.m3u8", "variant": "lo/index.m3u8" },
                           { "id": "hi", "url": "hls/multivariant/ad1/master.m3u8" } ], "breaks": [] }
            """.utf8))
        #expect(composition.segments.map(\.source.variant) == ["lo/index.m3u8", nil])
        let output = folder + "/out.mp4"
        try MP4Exporter.render(composition, to: FilePath(output))
        let video = try #require(try MP4Reader.read(path: FilePath(output)).videoTrack)
        #expect(video.sampleDescriptions.map(\.width) == [160, 320])
    }

    @Test("a variant the master does not have, or one named for a media playlist or an MP4: errors naming it", arguments: [
        ("hls/multivariant/ad1/master.m3u8", "mid/index.m3u8",
         "no variant 'mid/index.m3u8' (by URI or STABLE-VARIANT-ID); its variants: \"lo/index.m3u8\", \"hi/index.m3u8\""),
        ("hls/multivariant/ad1/lo/index.m3u8", "lo", "a media playlist has no variants to choose from, yet variant 'lo' is named"),
        ("ad1.mp4", "lo", "ad1.mp4 (variant \"lo\"): an MP4 file, not a multivariant playlist: it has no variants to choose from"),
    ])
    func unknownVariant(url: String, variant: String, reason: String) throws {
        let schedule = try ScheduleDocument.decode(Array("""
            { "content": [ { "id": "c", "url": "\(url)", "variant": "\(variant)" } ] }
            """.utf8), baseFolder: FilePath(HLSJoin.fixtures))
        let failures = SourceProbe.probeAll(schedule).failures.values.map(\.description)
        #expect(failures.count == 1 && failures[0].hasSuffix(reason), "\(failures)")
        // The render reads the playlist itself and says the same.
        guard url.hasSuffix(".m3u8") else { return }
        let duration = [schedule.content[0].source: MediaTime(seconds: 4)]
        let error = #expect(throws: MP4ExportError.self) {
            try MP4Exporter.plan(try Composition(schedule: schedule, naturalDurations: duration))
        }
        #expect(error?.description.hasSuffix(reason) == true, "\(String(describing: error))")
    }

    /// ```
    /// playlist  | ad1 segments (4 s)     |DISCONTINUITY| content segments (12 s)         |
    /// timestamps 1.48 ............ 5.48                1.48 ........................ 13.48
    /// source     0                 4                   4                                16
    /// ```
    @Test("a discontinuity starts the next segments at the sum of the EXTINFs before them")
    func discontinuity() async throws {
        try await Self.checkJoinedRender(from: "ts", firstContentFrame: 120)  // ad1: 4 s at 30 fps
    }

    /// Renders `joinedPlaylist(from:header:)` and checks it decodes to ad1's frames then the
    /// content's, the content's first frame (`firstContentFrame`) showing at 4 s exactly by the
    /// file's own tables, and the audio decodes cleanly.
    static func checkJoinedRender(from fixtures: String, header: [String] = [], firstContentFrame: Int,
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("\(fixtures)-discontinuity")
        defer { MP4Fixtures.remove(folder) }
        let joined = try joinedPlaylist(in: folder, from: fixtures, header: header)
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "joined", "url": "\(joined)" } ], "breaks": [] }
            """.utf8))
        #expect(composition.duration == MediaTime(seconds: 16), sourceLocation: sourceLocation)
        let output = folder + "/out.mp4"
        let rendered = try await MP4Exporter.render(composition, to: FilePath(output))
        #expect(rendered.plan.duration == MediaTime(seconds: 16), sourceLocation: sourceLocation)

        let expected = try await ffmpeg.playlistFrames(HLSJoin.fixtures + "/hls/\(fixtures)/ad1/index.m3u8").map(\.hash)
            + ffmpeg.playlistFrames(HLSJoin.fixtures + "/hls/\(fixtures)/content/index.m3u8").map(\.hash)
        let decoded = try await ffmpeg.videoFrames(output)
        #expect(decoded.map(\.hash) == expected, sourceLocation: sourceLocation)
        let video = try #require(try MP4Reader.read(path: FilePath(output)).videoTrack, sourceLocation: sourceLocation)
        #expect(MP4StitchJudge.presentationTimes(of: video)[firstContentFrame] == MediaTime(seconds: 4), sourceLocation: sourceLocation)
        #expect(try await ffmpeg.audioDecodeErrors(output).isEmpty, sourceLocation: sourceLocation)
    }

    /// The ad1 and content playlists of `Fixtures/hls/FOLDER` joined by a discontinuity, segments
    /// by absolute path, after `header` (an `EXT-X-MAP`, say).
    static func joinedPlaylist(in folder: String, from fixtures: String = "ts", header: [String] = []) throws -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"] + header
        for (index, name) in ["ad1", "content"].enumerated() {
            let source = HLSJoin.fixtures + "/hls/\(fixtures)/\(name)/"
            let text = try String(contentsOfFile: source + "index.m3u8", encoding: .utf8)
            if index > 0 { lines.append("#EXT-X-DISCONTINUITY") }
            for line in text.split(separator: "\n") where line.hasPrefix("#EXTINF") || !line.hasPrefix("#") {
                lines.append(line.hasPrefix("#") ? String(line) : source + line)
            }
        }
        lines.append("#EXT-X-ENDLIST")
        let path = folder + "/joined.m3u8"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
