import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Compositions of HLS sources stitched end to end, judged by ffmpeg: each stitched media playlist
/// decodes to the sources' frames of the snapped ranges in the planned order, lasts exactly as long
/// as the reported composition, and has its breaks at segment boundaries, a discontinuity at every
/// switch and a date range per break.
@Suite("HLS join: compositions stitched into playlists (judged by ffmpeg)", .needsFFmpeg)
struct HLSJoinFFmpegTests {
    /// `Fixtures/demo-hls.json`, MPEG-TS, segments of unequal length (boundaries below), frame rates
    /// 24, 25 and 30, every cut asked between boundaries:
    ///
    /// ```
    /// feature  0  1.5 2.25  4  5.125  6.5  8  9.375  10  11.25  12      ad1  0  1.3  2  3.1  4
    /// extra    0  .8  2  2.6  4.2  5  6.4  7.2  8                        ad2  0  .6  1.8  2.4  3
    ///
    /// asked  |a1 0-3.5|feature 0-8.5|a2 0-4|a3 .5-2.5|feature 8.5-12|extra 1-3.3 |a5 0-3|extra 3.3-8|a4 1-4  |
    /// plays  |a1 0-3.1|feature 0-8  |a2 0-4|a3 .6-2.4|feature 8-12  |extra .8-2.6|a5 0-3|extra 2.6-8|a4 1.3-4|
    /// comp.  0        3.1           11.1   15.1      16.9           20.9         22.7   25.7        31.1     33.8
    /// ```
    @Test("MPEG-TS: frames, durations, boundaries, discontinuities and date ranges")
    func mpegTS() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-join-ts")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try HLSJoin.stitch(try HLSJoin.composition("demo-hls.json"), folder: folder)
        #expect(stitched.composition.duration == t("33.8"))
        #expect(stitched.composition.breaks.map(\.compositionRange.start) == [s(0), t("11.1"), t("22.7"), t("31.1")])
        let variant = try #require(stitched.variants.first)
        try checkStitchedPlaylist(variant, composition: stitched.composition)
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        try await judge.judge(variant.url, composition: stitched.composition, sourcePlaylists: variant.sourcePlaylistURLs)
    }

    /// Content with its audio in two renditions (English at 440 Hz, French at 880 Hz), as ffmpeg
    /// packages it (the renditions listed again as audio-only variants), and an ad packaged the same
    /// way (English at 660 Hz, French at 1320 Hz) at 5:
    ///
    /// ```
    /// video     |C 0-4 |ad 0-4 |C 4-12 |      segments of 2 s; the break snaps to 4
    /// audio en  |C en  |ad en  |C en   |      segments of ~2 s (AAC frames): cut nearest the video's
    /// audio fr  |C fr  |ad fr  |C fr   |
    /// ```
    ///
    /// The video decodes to the sources' frames; each audio rendition decodes to as long as the
    /// composition, within the tolerance of its cuts, in its own language's tones: the content's,
    /// then the ad's, then the content's.
    @Test("demuxed audio renditions: video frames exact, each rendition's audio as long as the composition, in its language")
    func audioRenditions() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-join-renditions")
        defer { MP4Fixtures.remove(folder) }
        let json = try await Self.demuxedContentAndAd(ffmpeg, in: folder)
        let stitched = try HLSJoin.stitch(try HLSJoin.composition(json: Array(json.utf8)), folder: folder)
        #expect(stitched.renditions.count == 2 && stitched.variants.count == 3)
        #expect(stitched.composition.segments.map(\.sourceRange) == [
            MediaTimeRange(start: s(0), end: s(4)), MediaTimeRange(start: s(0), end: s(4)), MediaTimeRange(start: s(4), end: s(12)),
        ])
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        try await judge.judge(stitched.variants[0].url, composition: stitched.composition, sourcePlaylists: stitched.variants[0].sourcePlaylistURLs)

        for (rendition, tones) in zip(stitched.renditions, [(440.0, 660.0), (880.0, 1320.0)]) {
            let samples = try await Self.decodedAudio(ffmpeg, rendition.url)
            let seconds = Double(samples.count) / 48_000
            #expect(abs(seconds - 16) < 0.25, "\(rendition.url): \(seconds) s of audio")
            // Half a second inside each stretch, clear of the cuts' tolerance.
            for (range, hertz) in [(0.5..<3.5, tones.0), (4.5..<7.5, tones.1), (8.5..<15.5, tones.0)] {
                let tone = Self.frequency(samples, seconds: range)
                #expect(abs(tone - hertz) < 10, "\(rendition.url) \(range): \(tone) Hz, not \(hertz)")
            }
        }
    }

    /// Content with English subtitles (a cue at 0.5, 5 and 9 s) as ffmpeg packages them (WebVTT
    /// segments of 2 s), and an ad without subtitles at 5:
    ///
    /// ```
    /// video      |C 0-4       |ad1 0-4 |C 4-12             |
    /// subtitles  |C "first"   |(empty) |C "second" "third" |      stitched-empty.vtt for the ad
    /// ```
    ///
    /// ffmpeg reads the stitched subtitle playlist, the empty segment included, to the three cues in
    /// order, each at its time in its own segment; the video decodes to the sources' frames.
    @Test("subtitle renditions: ffmpeg reads every cue of the kept content, and nothing for the ad")
    func subtitleRenditions() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-join-subtitles")
        defer { MP4Fixtures.remove(folder) }
        let cues = "1\n00:00:00,500 --> 00:00:01,500\nfirst\n\n2\n00:00:05,000 --> 00:00:06,000\nsecond\n\n"
            + "3\n00:00:09,000 --> 00:00:10,000\nthird\n"
        try Data(cues.utf8).write(to: URL(fileURLWithPath: folder + "/cues.srt"))
        let made = try await ChildProcess.run(ffmpeg.ffmpeg, [
            // (ffmpeg lists no variant for a video without audio.)
            "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=12",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=12:sample_rate=48000", "-i", folder + "/cues.srt",
            "-map", "0:v", "-map", "1:a", "-map", "2:s", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", "-c:a", "aac", "-c:s", "webvtt",
            "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
            "-var_stream_map", "v:0,a:0,s:0,sgroup:subs,language:en,name:v", "-hls_segment_filename", folder + "/%v/s%d.ts",
            folder + "/%v/index.m3u8",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let json = #"{ "content": [ { "id": "C", "url": "\#(folder)/master.m3u8" } ], "#
            + #""breaks": [ { "id": "b", "at": 5, "ads": [ { "id": "ad", "url": "hls/ts/ad1/index.m3u8" } ] } ] }"#
        let stitched = try HLSJoin.stitch(try HLSJoin.composition(json: Array(json.utf8)), folder: folder)
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        try await judge.judge(stitched.variants[0].url, composition: stitched.composition, sourcePlaylists: stitched.variants[0].sourcePlaylistURLs)

        let subtitles = try #require(stitched.renditions.first)
        #expect(stitched.renditions.count == 1)
        let read = try await ChildProcess.run(ffmpeg.ffmpeg, ["-v", "error", "-i", subtitles.url, "-f", "webvtt", "-"])
        #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
        let lines = read.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { !$0.hasPrefix("WEBVTT") && !$0.contains("-->") } == ["first", "second", "third"])
        #expect(lines.filter { $0.contains("-->") }.map { $0.prefix(9) } == ["00:00.580", "00:05.080", "00:09.080"])
        #expect(try String(contentsOfFile: folder + "/stitched-empty.vtt", encoding: .utf8) == "WEBVTT\n")
    }

    /// 12 s of demuxed content (`testsrc`, tones 440/880 Hz) and a 4 s demuxed ad (`smptebars`,
    /// 660/1,320 Hz) packaged in `folder`; returns a schedule of the content with the ad at 5.
    static func demuxedContentAndAd(_ ffmpeg: FFmpeg, in folder: String) async throws -> String {
        try await packageDemuxed(ffmpeg, folder: folder + "/content", seconds: 12, video: "testsrc", tones: (440, 880))
        try await packageDemuxed(ffmpeg, folder: folder + "/ad", seconds: 4, video: "smptebars", tones: (660, 1320))
        return #"{ "content": [ { "id": "C", "url": "\#(folder)/content/master.m3u8" } ], "#
            + #""breaks": [ { "id": "b", "at": 5, "ads": [ { "id": "ad", "url": "\#(folder)/ad/master.m3u8" } ] } ] }"#
    }

    /// `seconds` of video and two audio renditions (`en`, `fr`, sine tones at 48 kHz) packaged by
    /// ffmpeg as HLS in `folder`: `master.m3u8`, the video in `v/`, the audio in `en/` and `fr/`.
    static func packageDemuxed(
        _ ffmpeg: FFmpeg, folder: String, seconds: Int, video: String, tones: (Int, Int)
    ) async throws {
        let made = try await ChildProcess.run(ffmpeg.ffmpeg, [
            "-v", "error", "-f", "lavfi", "-i", "\(video)=size=160x90:rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=\(tones.0):duration=\(seconds):sample_rate=48000",
            "-f", "lavfi", "-i", "sine=frequency=\(tones.1):duration=\(seconds):sample_rate=48000",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", "-keyint_min", "25",
            "-sc_threshold", "0", "-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
            "-master_pl_name", "master.m3u8",
            "-var_stream_map", "v:0,agroup:aud,name:v a:0,agroup:aud,language:en,name:en a:1,agroup:aud,language:fr,name:fr",
            "-hls_segment_filename", folder + "/%v/s%d.ts", folder + "/%v/index.m3u8",
        ])
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// A playlist's first audio stream decoded to 48 kHz mono samples; ffmpeg must report nothing.
    static func decodedAudio(_ ffmpeg: FFmpeg, _ url: String) async throws -> [Int16] {
        let decoded = try await ChildProcess.run(ffmpeg.ffmpeg, [
            "-v", "error", "-i", url, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(url): \(decoded.stderr.prefix(300))")
        return stride(from: 0, to: decoded.stdoutBytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(decoded.stdoutBytes[$0]) | UInt16(decoded.stdoutBytes[$0 + 1]) << 8)
        }
    }

    /// A pure tone's frequency over `seconds` of 48 kHz samples: zero crossings per second, halved.
    static func frequency(_ samples: [Int16], seconds: Range<Double>) -> Double {
        let window = samples[min(samples.count, Int(seconds.lowerBound * 48_000))..<min(samples.count, Int(seconds.upperBound * 48_000))]
        let crossings = zip(window, window.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(crossings) / (seconds.upperBound - seconds.lowerBound) / 2
    }

    /// `Fixtures/demo-hls-fmp4.json`, fragmented MP4 (`EXT-X-MAP` re-emitted at every switch). The
    /// sources follow each other in ffmpeg's fMP4 order (see `Fixtures/generate-hls.sh`):
    ///
    /// ```
    /// feature  0  1.2  2  3.6  4.4  6  7.6  8.4  10  10.8  12           ad1  0  1.2  2  3.2  4
    /// extra    0  .8  2  2.6  4.2  5  6.4  7.2  8                        ad2  0  .6  1.8  2.4  3
    ///
    /// asked  |a1 0-3.3|feature 0-7.3|a2 .2-3|extra 1.5-8|
    /// plays  |a1 0-3.2|feature 0-7.6|a2 0-3 |extra 2-8  |     mid1 asked at content 7.3, plays at 7.6
    /// comp.  0        3.2           10.8    13.8        19.8
    /// ```
    @Test("fragmented MP4: frames, durations, EXT-X-MAP at every switch, date ranges")
    func fragmentedMP4() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-join-fmp4")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try HLSJoin.stitch(try HLSJoin.composition("demo-hls-fmp4.json"), folder: folder)
        #expect(stitched.composition.segments.map(\.compositionRange.end) == [t("3.2"), t("10.8"), t("13.8"), t("19.8")])
        #expect(stitched.breaks.map(\.position) == [s(0), t("7.6")])
        let variant = try #require(stitched.variants.first)
        #expect(variant.result.playlist.segments.allSatisfy { $0.map != nil })
        #expect(variant.result.text.components(separatedBy: "#EXT-X-MAP:").count - 1 == 4)
        try checkStitchedPlaylist(variant, composition: stitched.composition)
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        try await judge.judge(variant.url, composition: stitched.composition, sourcePlaylists: variant.sourcePlaylistURLs)
    }

    /// `Fixtures/demo-hls-multivariant.json`: content with two variants, ads from a multivariant
    /// playlist whose variants are listed the other way round; each ad plays its variant nearest in
    /// bandwidth. Both variants have the same boundaries, so one composition describes both:
    ///
    /// ```
    /// content (hi, lo)  0  1.5 2.25  4  5.125  6.5  8  9.375  10  11.25  12     ad1 (lo, hi)  0  1.3  2  3.1  4
    ///
    /// asked  |a1 0-2.5|feature 0-5.5  |a2 1.2-4|feature 5.5-12  |a3 .4-3 |
    /// plays  |a1 0-2  |feature 0-5.125|a2 1.3-4|feature 5.125-12|a3 0-3.1|
    /// comp.  0        2               7.125    9.825            16.7     19.8
    ///
    /// stitched-0.m3u8  content hi (320x180)  + ad hi (320x180)
    /// stitched-1.m3u8  content lo (160x90)   + ad lo (160x90)
    /// ```
    @Test("multivariant: one stitched playlist per content variant, each judged; ads nearest in bandwidth")
    func multivariant() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-join-mv")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try HLSJoin.stitch(try HLSJoin.composition("demo-hls-multivariant.json"), folder: folder)
        #expect(stitched.composition.duration == t("19.8"))
        #expect(stitched.variants.map(\.url) == [folder + "/stitched-0.m3u8", folder + "/stitched-1.m3u8"])
        #expect(stitched.variants.map { $0.interstitialVariants.map(\.uri) } == [["hi/index.m3u8"], ["lo/index.m3u8"]])
        let master = try HLSPlaylistParser().parseMultivariantPlaylist(
            Array(try String(contentsOfFile: folder + "/stitched.m3u8", encoding: .utf8).utf8), url: folder + "/stitched.m3u8")
        #expect(master.variants.map(\.uri) == ["stitched-0.m3u8", "stitched-1.m3u8"])
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        for variant in stitched.variants {
            #expect(variant.sourcePlaylistURLs.allSatisfy { $0.hasSuffix(variant.contentVariant!.uri) })
            try checkStitchedPlaylist(variant, composition: stitched.composition)
            try await judge.judge(variant.url, composition: stitched.composition, sourcePlaylists: variant.sourcePlaylistURLs)
        }
    }

    /// Breaks at random places between segment boundaries, ads cut at random places, over segments of
    /// unequal length (seeded, so a failure can be replayed). Each ad range is longer than any
    /// segment and breaks are at least 2 s apart, so nothing snaps to empty:
    ///
    /// ```
    /// asked  |feature 0-T1      |ad x-y|feature T1-12 + extra s-e ...|ad ...|...
    /// plays  |feature 0-b(T1)   |ad b(x)-b(y)|...                          b = nearest boundary
    /// ```
    @Test("breaks between boundaries, irregular segments: random schedules", arguments: [1, 2, 3] as [UInt64])
    func randomSchedules(seed: UInt64) async throws {
        let ffmpeg = try FFmpeg.require()
        var random = SeededGenerator(seed: seed)
        let folder = try MP4Fixtures.makeScratchFolder("hls-join-random")
        defer { MP4Fixtures.remove(folder) }
        let json = Self.randomSchedule(&random)
        let requested = try HLSJoin.composition(json: Array(json.utf8))
        let stitched = try HLSJoin.stitch(requested, folder: folder)
        #expect(stitched.requested == requested)
        // The content before every mid-roll was asked to end off a segment boundary (and
        // checkStitchedPlaylist checks that it plays to one).
        for (segment, next) in zip(requested.segments, requested.segments.dropFirst()) where !segment.isAd && next.adPosition?.breakID.hasPrefix("mid") == true {
            #expect(!(try HLSJoin.boundaries(segment.source.url)).contains(segment.sourceRange.end), "\(json)")
        }
        let variant = try #require(stitched.variants.first)
        try checkStitchedPlaylist(variant, composition: stitched.composition)
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        try await judge.judge(variant.url, composition: stitched.composition, sourcePlaylists: variant.sourcePlaylistURLs)
    }

    /// Content `feature` (all 12 s) then `extra` (a random part of content2), a random pre-roll, two
    /// or three mid-rolls at random hundredths of a second, never on a segment boundary and at least
    /// 2 s from each other and from the clips' ends, and a post-roll; every ad a random range of ad1
    /// or ad2 at least 1.5 s long.
    static func randomSchedule(_ random: inout SeededGenerator) -> String {
        let extraStart = Int.random(in: 0...150, using: &random)
        let extraEnd = Int.random(in: 650...800, using: &random)
        let contentEnd = 1200 + extraEnd - extraStart
        func onBoundary(_ at: Int) -> Bool {
            at < 1200 ? featureBoundaries.contains(at) : extraBoundaries.contains(at - 1200 + extraStart)
        }
        func ad(_ id: String) -> String {
            let (url, length) = Bool.random(using: &random) ? ("hls/ts/ad1/index.m3u8", 400) : ("hls/ts/ad2/index.m3u8", 300)
            let start = Int.random(in: 0...(length - 150), using: &random)
            let end = Int.random(in: (start + 150)...length, using: &random)
            return #"{ "id": "\#(id)", "url": "\#(url)", "start": \#(seconds(start)), "end": \#(seconds(end)) }"#
        }
        var breaks = [#"{ "id": "pre", "at": "preroll", "ads": [\#(ad("p1"))] }"#]
        var at = 0
        for index in 1...Int.random(in: 2...3, using: &random) {
            at += Int.random(in: 200...450, using: &random)
            while onBoundary(at) || abs(at - 1200) < 200 { at += 3 }
            guard at < contentEnd - 200 else { break }
            breaks.append(#"{ "id": "mid\#(index)", "at": \#(seconds(at)), "ads": [\#(ad("m\(index)a")), \#(ad("m\(index)b"))] }"#)
        }
        breaks.append(#"{ "id": "post", "at": "postroll", "ads": [\#(ad("q1"))] }"#)
        return #"""
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" },
                           { "id": "extra", "url": "hls/ts/content2/index.m3u8", "start": \#(seconds(extraStart)), "end": \#(seconds(extraEnd)) } ],
              "breaks": [ \#(breaks.joined(separator: ",\n")) ] }
            """#
    }

    /// The segment boundaries of `hls/ts/content` and `hls/ts/content2`, in hundredths of a second
    /// (5.125 and 9.375 are not whole hundredths, so no hundredth is on them).
    static let featureBoundaries: Set<Int> = [0, 150, 225, 400, 650, 800, 1000, 1125, 1200]
    static let extraBoundaries: Set<Int> = [0, 80, 200, 260, 420, 500, 640, 720, 800]

    /// Hundredths of a second as a JSON number (`1.05`), read exactly by the schedule reader.
    static func seconds(_ hundredths: Int) -> String {
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + String(fraction)
    }
}
