import Foundation
import Testing
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
