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

/// `HLSExporter.stitchInterstitials` and `hls --interstitials`: the content alone, each
/// break an `EXT-X-DATERANGE` of class `com.apple.hls.interstitial` (draft-pantos-hls-rfc8216bis-17,
/// appendix D), checked attribute by attribute against the spec, and judged by ffmpeg.
///
/// The fixtures' segment boundaries (`Fixtures/generate-hls.sh`):
///
/// ```
/// feature  0  1.5 2.25  4  5.125  6.5  8  9.375  10  11.25  12      ad1  0  1.3  2  3.1  4
/// extra    0  .8  2  2.6  4.2  5  6.4  7.2  8                        ad2  0  .6  1.8  2.4  3
/// ```
@Suite("HLS interstitials: the content with one interstitial date range per break")
struct HLSInterstitialsTests {
    /// Stitches `json` as interstitials with the output at `folder/stitched.m3u8` and writes every file.
    static func stitch(
        _ json: String, folder: String, restrictingJumps: Bool = false, options: HLSExportOptions = .default
    ) throws -> HLSExport {
        let (schedule, durations) = try HLSJoin.schedule(json: json)
        let stitched = try HLSExporter(outputURL: folder + "/stitched.m3u8", options: options)
            .stitchInterstitials(schedule, naturalDurations: durations, restrictingJumps: restrictingJumps)
        for file in stitched.files { try Data(file.text.utf8).write(to: URL(fileURLWithPath: file.url)) }
        return stitched
    }

    /// The interstitial date ranges of the media playlist at `url`, after checking the playlist
    /// against the spec (`InterstitialRules`).
    static func interstitials(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [HLSDateRange] {
        let playlist = try HLSPlaylistParser().parseMediaPlaylist(Array(try String(contentsOfFile: url, encoding: .utf8).utf8), url: url)
        let problems = try InterstitialRules.violations(in: playlist)
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
        return playlist.segments.flatMap(\.dateRanges)
    }

    /// `ID START CUE ASSET DURATION RESUME SNAP`, one line per date range (`-` for absent), offsets
    /// from the first program date-time: a table to compare with the schedule.
    static func table(_ dateRanges: [HLSDateRange], anchor: String = HLSExportOptions.defaultProgramDateTime) throws -> [String] {
        let zero = try HLSDateTime(parsing: anchor)
        return try dateRanges.map { range in
            let start = try #require(range.startDate)
            let asset = range.attributes.quotedString("X-ASSET-URI") ?? range.attributes.quotedString("X-ASSET-LIST") ?? "-"
            func value(_ name: String) -> String { range.attributes[name].map { "\($0)" } ?? "-" }
            return [range.id, "+\(try start.offset(from: zero))", value("CUE"), asset, value("DURATION"), value("X-RESUME-OFFSET"),
                    value("X-SNAP"), value("X-PLAYOUT-LIMIT"), value("X-RESTRICT")].joined(separator: " ")
        }
    }

    /// `Fixtures/demo-hls.json` as interstitials:
    ///
    /// ```
    /// content    |feature 0 ............ 8 ............ 12|extra .8 ... 2.6 ......... 8|   19.2 s
    /// playlist   0                       8                12        13.8               19.2
    /// breaks     ^pre (a1 0-3.1)         ^mid1 (a2, a3)               ^mid2 (a5)          ^post (a4 1.3-4)
    /// ```
    ///
    /// The cuts land where the spliced stitch puts them (the same composition plays), and the
    /// content's own time is the playlist's.
    @Test("demo-hls.json: four interstitials where the spliced stitch puts the breaks, the same composition")
    func demoSchedule() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-demo")
        defer { MP4Fixtures.remove(folder) }
        let json = try HLSJoin.fixture("demo-hls.json")
        let stitched = try Self.stitch(json, folder: folder)
        let (schedule, durations) = try HLSJoin.schedule(json: json)
        let spliced = try HLSExporter(outputURL: folder + "/spliced.m3u8")
            .stitch(try Composition(schedule: schedule, naturalDurations: durations))
        #expect(stitched.composition == spliced.composition)
        #expect(stitched.variants.count == 1 && stitched.multivariantPlaylist == nil)
        #expect(stitched.variants[0].result.duration == t("19.2"))
        #expect(try Self.table(try Self.interstitials(folder + "/stitched.m3u8")) == [
            #"pre +0 "PRE" interstitial-1-1.m3u8 3.1 0 - - -"#,
            #"mid1 +8 "ONCE" interstitial-2.json 5.8 0 "OUT,IN" - -"#,
            #"mid2 +13.8 - interstitial-3-1.m3u8 3 0 "OUT,IN" - -"#,
            #"post +19.2 "POST" interstitial-4-1.m3u8 2.7 0 - - -"#,
        ])
        #expect(stitched.files.map(\.name) == [
            "stitched.m3u8", "interstitial-1-1.m3u8", "interstitial-2-1.m3u8", "interstitial-2-2.m3u8", "interstitial-2.json",
            "interstitial-3-1.m3u8", "interstitial-4-1.m3u8",
        ])
        // The pod's asset list: each ad's playlist, as long as it plays.
        let list = try String(contentsOfFile: folder + "/interstitial-2.json", encoding: .utf8)
        #expect(list == #"{"ASSETS":[{"URI":"interstitial-2-1.m3u8","DURATION":4},{"URI":"interstitial-2-2.m3u8","DURATION":1.8}]}"# + "\n")
        // Each ad's playlist holds the segments the spliced stitch played for it, and no markers.
        let splicedSegments = spliced.variants[0].result.playlist.segments
        for (name, piece) in [("interstitial-1-1.m3u8", 0), ("interstitial-2-2.m3u8", 3), ("interstitial-4-1.m3u8", 8)] {
            let ad = try HLSPlaylistParser().parseMediaPlaylist(Array(try String(contentsOfFile: folder + "/" + name, encoding: .utf8).utf8), url: folder + "/" + name)
            #expect(ad.segments.map(\.resolvedURI) == splicedSegments[spliced.variants[0].result.pieces[piece].segments].map(\.resolvedURI), "\(name)")
            #expect(ad.segments.allSatisfy { $0.dateRanges.isEmpty && !$0.isDiscontinuity } && ad.hasEndList)
        }
    }

    /// `assetBaseURL`, for hls.js 1.6, which resolves asset URIs against the page: every URI that
    /// names an asset, in the playlist and in the asset lists, is under it; nothing else changes.
    @Test("an asset base URL: asset URIs and asset lists' URIs under it", arguments: ["http://127.0.0.1:8080/show/42/", "/show/42/"])
    func assetBaseURL(base: String) throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-base")
        defer { MP4Fixtures.remove(folder) }
        let json = try HLSJoin.fixture("demo-hls.json")
        let relative = try Self.stitch(json, folder: folder)
        let relativeTable = try Self.table(try Self.interstitials(folder + "/stitched.m3u8"))
        let based = try Self.stitch(json, folder: folder, options: try HLSExportOptions(assetBaseURL: base))
        #expect(based.composition == relative.composition)
        // Not checked by InterstitialRules, which reads each asset where its URI says: not served here.
        let url = folder + "/stitched.m3u8"
        let playlist = try HLSPlaylistParser().parseMediaPlaylist(Array(try String(contentsOfFile: url, encoding: .utf8).utf8), url: url)
        let table = try Self.table(playlist.segments.flatMap(\.dateRanges))
        #expect(table == relativeTable.map { $0.replacingOccurrences(of: " interstitial-", with: " \(base)interstitial-") })
        #expect(table[1].hasPrefix("mid1 +8 \"ONCE\" \(base)interstitial-2.json "))
        let list = try String(contentsOfFile: folder + "/interstitial-2.json", encoding: .utf8)
        #expect(list == #"{"ASSETS":[{"URI":""# + base + #"interstitial-2-1.m3u8","DURATION":4},{"URI":""# + base
            + #"interstitial-2-2.m3u8","DURATION":1.8}]}"# + "\n")
    }

    /// A break that replaces content, one whose ad runs past what was asked, and restrictions:
    ///
    /// ```
    /// feature  0 ... 4 ===replaced=== 6.5 ......... 10 ..... 11.25 ..... 12
    ///                ^r (a1 0-3: segments 0-3.1,      ^s (a2 0-2,    ^o (a2 0-1.8, once,
    ///                   limited to 3; not skippable)     skippable     skippable)
    ///                                                    after 5 s)
    /// ```
    @Test("X-RESUME-OFFSET from the resume offset, X-PLAYOUT-LIMIT where segments run long, X-RESTRICT from the restrictions")
    func resumeLimitAndRestrictions() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-attributes")
        defer { MP4Fixtures.remove(folder) }
        let json = """
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
              "breaks": [
                { "id": "r", "at": 4, "resumeOffset": 2.5, "skippable": false,
                  "ads": [ { "id": "a1", "url": "hls/ts/ad1/index.m3u8", "end": 3 } ] },
                { "id": "s", "at": 10, "skippableAfter": 5, "ads": [ { "id": "a2", "url": "hls/ts/ad1/index.m3u8", "end": 2 } ] },
                { "id": "o", "at": 11.25, "policy": "once", "ads": [ { "id": "a3", "url": "hls/ts/ad2/index.m3u8", "end": 1.8 } ] } ] }
            """
        let stitched = try Self.stitch(json, folder: folder, restrictingJumps: true)
        #expect(try Self.table(try Self.interstitials(folder + "/stitched.m3u8")) == [
            #"r +4 - interstitial-1-1.m3u8 3 2.5 "OUT,IN" 3 "SKIP,JUMP""#,
            #"s +10 - interstitial-2-1.m3u8 2 0 "OUT,IN" - "SKIP,JUMP""#,
            #"o +11.25 "ONCE" interstitial-3-1.m3u8 1.8 0 "OUT,IN" - -"#,
        ])
        // The composition that plays: a1 stopped at 3 s by the limit, content resumed at 6.5.
        let composition = stitched.composition
        #expect(composition.segments.map(\.sourceRange) == [
            MediaTimeRange(start: s(0), end: s(4)), MediaTimeRange(start: s(0), end: s(3)),
            MediaTimeRange(start: t("6.5"), end: s(10)), MediaTimeRange(start: s(0), end: s(2)),
            MediaTimeRange(start: s(10), end: t("11.25")), MediaTimeRange(start: s(0), end: t("1.8")),
            MediaTimeRange(start: t("11.25"), end: s(12)),
        ])
        #expect(composition.breaks.map(\.resumeContentTime) == [t("6.5"), s(10), t("11.25")])
        // The limited ad's own playlist has whole segments: 3.1 s.
        let ad = try HLSPlaylistParser().parseMediaPlaylist(
            Array(try String(contentsOfFile: folder + "/interstitial-1-1.m3u8", encoding: .utf8).utf8), url: folder + "/interstitial-1-1.m3u8")
        #expect(try ad.segmentBoundaries.last == t("3.1"))
    }

    @Test("an ad in another segment format than the content plays as its own item: allowed, unlike a spliced playlist")
    func mixedFormats() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-mixed")
        defer { MP4Fixtures.remove(folder) }
        let json = """
            { "content": [ { "id": "feature", "url": "hls/fmp4/content/index.m3u8" } ],
              "breaks": [ { "id": "m", "at": 6, "ads": [ { "id": "a", "url": "hls/ts/ad1/index.m3u8" } ] } ] }
            """
        let (schedule, durations) = try HLSJoin.schedule(json: json)
        #expect(throws: HLSExportError.self) {
            try HLSExporter(outputURL: folder + "/x.m3u8").stitch(try Composition(schedule: schedule, naturalDurations: durations))
        }
        let stitched = try Self.stitch(json, folder: folder)
        #expect(try Self.table(try Self.interstitials(folder + "/stitched.m3u8")) == [#"m +6 - interstitial-1-1.m3u8 4 0 "OUT,IN" - -"#])
        #expect(stitched.variants[0].result.playlist.segments.allSatisfy { $0.map != nil })
    }

    /// `Fixtures/demo-hls-multivariant.json`: a multivariant content gives a multivariant playlist
    /// whose every variant carries the same interstitials; a multivariant ad is a multivariant
    /// playlist of its own, every variant trimmed alike.
    @Test("multivariant content and ads: the same date ranges in every variant; each ad a multivariant playlist")
    func multivariant() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-multivariant")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try Self.stitch(try HLSJoin.fixture("demo-hls-multivariant.json"), folder: folder)
        #expect(stitched.multivariantPlaylist?.variants.count == 2)
        let tables = try stitched.variants.map { try Self.table(try Self.interstitials($0.url)) }
        #expect(tables.count == 2 && tables[0] == tables[1])
        #expect(tables[0].map { $0.split(separator: " ").prefix(4).joined(separator: " ") } == [
            #"pre +0 "PRE" interstitial-1-1.m3u8"#, "mid1 +5.125 - interstitial-2-1.m3u8", #"post +12 "POST" interstitial-3-1.m3u8"#,
        ])
        guard case .multivariant(let ad) = try HLSPlaylistParser().parse(
            Array(try String(contentsOfFile: folder + "/interstitial-1-1.m3u8", encoding: .utf8).utf8), url: folder + "/interstitial-1-1.m3u8")
        else { Issue.record("the ad is not a multivariant playlist"); return }
        #expect(ad.variants.map(\.uri) == ["interstitial-1-1-0.m3u8", "interstitial-1-1-1.m3u8"])
        let lengths = try ad.variants.map { variant in
            try HLSPlaylistParser().parseMediaPlaylist(Array(try String(contentsOfFile: variant.resolvedURI, encoding: .utf8).utf8), url: variant.resolvedURI)
                .segmentBoundaries.last
        }
        #expect(lengths[0] == lengths[1] && lengths[0] == stitched.composition.segments[0].compositionRange.duration)
    }

    /// Content replaced at a clip's start (a pre-roll's `resumeOffset`, issue 50) or across a
    /// clip's edge is content time in the timeline as in the content playlist, so the player
    /// resumes where the timeline says.
    ///
    /// ```
    /// content playlist  |feature 0-12 ................|extra 0-8 (at 12) ....|
    /// pre-roll          ^ X-RESUME-OFFSET=1.5 -> resumes at feature 1.5
    /// x at 10           ^ X-RESUME-OFFSET=4.6 -> resumes at 14.6: extra 2.6
    /// ```
    @Test("content replaced at a clip's start or across its edge resumes where the timeline says", arguments: [
        (#"{ "id": "pre", "at": "preroll", "resumeOffset": 1.5, "ads": [ { "id": "a", "url": "hls/ts/ad1/index.m3u8" } ] }"#,
         "1.5", ["0-0", "1.5-12", "12-20"]),
        (#"{ "id": "x", "at": 10, "resumeOffset": 4.6, "ads": [ { "id": "a", "url": "hls/ts/ad1/index.m3u8" } ] }"#,
         "4.6", ["0-10", "10-10", "14.6-20"]),
    ])
    func replacedAtClipEdges(breakJSON: String, resumeOffset: String, contentRanges: [String]) throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-edges")
        defer { MP4Fixtures.remove(folder) }
        let json = """
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" }, { "id": "extra", "url": "hls/ts/content2/index.m3u8" } ],
              "breaks": [ \(breakJSON) ] }
            """
        let stitched = try Self.stitch(json, folder: folder)
        #expect(stitched.interstitialEvents.map(\.resumptionOffset) == [try MediaTime(parsing: resumeOffset)])
        #expect(stitched.composition.segments.map { "\($0.contentRange.start)-\($0.contentRange.end)" } == contentRanges)
        #expect(stitched.composition.contentDuration == s(20))
    }

    @Test("a bad schedule is a schedule error, and nothing is written")
    func refusals() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-refused")
        defer { MP4Fixtures.remove(folder) }
        let (schedule, durations) = try HLSJoin.schedule(json: """
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
              "breaks": [ { "id": "late", "at": 13, "ads": [ { "id": "a", "url": "hls/ts/ad1/index.m3u8" } ] } ] }
            """)
        #expect(throws: HLSExportError(.schedule(.midrollOutsideContent(breakID: "late", at: s(13), contentDuration: s(12))))) {
            try HLSExporter(outputURL: folder + "/s.m3u8").stitchInterstitials(schedule, naturalDurations: durations)
        }
        #expect(MP4Fixtures.listing(folder).isEmpty)
    }

    /// ffmpeg ignores date ranges, so the playlist plays as the content alone: the sources' frames
    /// of the snapped clips; and each ad's playlist plays as the frames of its snapped range.
    @Test("judged by ffmpeg: the playlist decodes to the content's frames, each ad's playlist to the ad's", .needsFFmpeg)
    func decodesAsContent() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-ffmpeg")
        defer { MP4Fixtures.remove(folder) }
        let json = try HLSJoin.fixture("demo-hls.json")
        let stitched = try Self.stitch(json, folder: folder)
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        // The content alone, cut as in the composition that plays: feature 0-12, extra .8-8.
        let (schedule, durations) = try HLSJoin.schedule(json: json)
        let content = try Composition(schedule: schedule, naturalDurations: durations, excludingBreaks: Set(schedule.breaks.map(\.id)))
        let played = try content.replacingSourceRanges([
            MediaTimeRange(start: s(0), end: s(12)), MediaTimeRange(start: t("0.8"), end: s(8)),
        ])
        try await judge.judge(stitched.outputURL, composition: played, sourcePlaylists: stitched.variants[0].sourcePlaylistURLs)
        // Each ad, from its own playlist.
        let ads = stitched.composition.segments.filter(\.isAd)
        let names = ["interstitial-1-1.m3u8", "interstitial-2-1.m3u8", "interstitial-2-2.m3u8", "interstitial-3-1.m3u8", "interstitial-4-1.m3u8"]
        for (ad, name) in zip(ads, names) {
            var alone = Schedule()
            try alone.appendContentClip(ContentClip(id: ad.id, source: ad.source, start: ad.sourceRange.start, end: ad.sourceRange.end))
            try await judge.judge(folder + "/" + name, composition: try Composition(schedule: alone), sourcePlaylists: [hlsURL(ad.source)])
        }
    }

    /// Content and ad each with English and French audio renditions (the ad's at 660 and 1320 Hz,
    /// see `HLSJoinFFmpegTests.demuxedContentAndAd`), the ad an interstitial at 5:
    ///
    /// ```
    /// stitched.m3u8            content video, audio en/fr in stitched-audio-0/1.m3u8, the date range at 4
    /// interstitial-1-1.m3u8    ad video 0-4, its audio en/fr in interstitial-1-1-audio-0/1.m3u8
    /// ```
    @Test("demuxed content and ad: the ad's playlist lists its own audio renditions, each in its language", .needsFFmpeg)
    func demuxedRenditions() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-interstitials-renditions")
        defer { MP4Fixtures.remove(folder) }
        let json = try await HLSJoinFFmpegTests.demuxedContentAndAd(ffmpeg, in: folder)
        let stitched = try Self.stitch(json, folder: folder)
        #expect(stitched.renditions.count == 2)
        #expect(try Self.table(try Self.interstitials(stitched.variants[0].url)).map { $0.split(separator: " ").prefix(4).joined(separator: " ") }
            == ["b +4 - interstitial-1-1.m3u8"])
        let adURL = folder + "/interstitial-1-1.m3u8"
        #expect(InterstitialRules.assetProblems(adURL, id: "b").isEmpty, "\(InterstitialRules.assetProblems(adURL, id: "b"))")
        guard case .multivariant(let ad) = try HLSPlaylistParser().parse(Array(try String(contentsOfFile: adURL, encoding: .utf8).utf8), url: adURL)
        else { Issue.record("the ad is not a multivariant playlist"); return }
        #expect(ad.renditions.map { "\($0.language ?? "-") \($0.uri ?? "-")" } == ["en interstitial-1-1-audio-0.m3u8", "fr interstitial-1-1-audio-1.m3u8"])
        for (rendition, hertz) in zip(ad.renditions, [660.0, 1320.0]) {
            let samples = try await HLSJoinFFmpegTests.decodedAudio(ffmpeg, try #require(rendition.resolvedURI))
            #expect(abs(Double(samples.count) / 48_000 - 4) < 0.1, "\(rendition.name): \(Double(samples.count) / 48_000) s")
            let tone = HLSJoinFFmpegTests.frequency(samples, seconds: 0.5..<3.5)
            #expect(abs(tone - hertz) < 10, "\(rendition.name): \(tone) Hz")
        }
    }

    @Test("hls --interstitials writes the playlist, the ads' playlists and asset lists, and says what each break is")
    func command() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-interstitials-cli")
        defer { MP4Fixtures.remove(scratch) }
        let out = scratch + "/out"
        let result = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", out, "--interstitials", "--restrict-jumps"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("wrote \(out)/stitched.m3u8: the content alone, 19.2 s, MPEG-TS segments, with 4 interstitials"))
        #expect(result.stdout.contains(#"  mid2: START-DATE="2026-01-01T00:00:13.800Z",DURATION=3,X-ASSET-URI="interstitial-3-1.m3u8","#
            + #"X-RESUME-OFFSET=0,X-RESTRICT="JUMP",X-SNAP="OUT,IN""#))
        #expect(MP4Fixtures.listing(out) == [
            ".compositor-output", "interstitial-1-1.m3u8", "interstitial-2-1.m3u8", "interstitial-2-2.m3u8", "interstitial-2.json",
            "interstitial-3-1.m3u8", "interstitial-4-1.m3u8", "queue-plan.json", "stitched.m3u8", "timeline.json",
        ])
        // A spliced stitch may replace it (the folder holds only what a stitch wrote), and back.
        #expect(try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", out]).status == 0)
        #expect(MP4Fixtures.listing(out) == [".compositor-output", "queue-plan.json", "stitched.m3u8", "timeline.json"])

        let usage = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/x", "--restrict-jumps"])
        #expect(usage.status == 64 && usage.stderr.contains("--restrict-jumps applies to --interstitials only"))
    }
}

/// The rules of draft-pantos-hls-rfc8216bis-17 for interstitial date ranges (section 4.4.5.1 and
/// appendix D.2), written from the spec independently of the writer: every violation as a line.
enum InterstitialRules {
    static func violations(in playlist: HLSMediaPlaylist) throws -> [String] {
        var problems: [String] = []
        let dates = playlist.segments.compactMap(\.programDateTime)
        let ranges = playlist.segments.flatMap(\.dateRanges)
        // 4.4.5.1: a playlist with EXT-X-DATERANGE has EXT-X-PROGRAM-DATE-TIME.
        if !ranges.isEmpty, dates.isEmpty { problems.append("date ranges without EXT-X-PROGRAM-DATE-TIME") }
        if Set(ranges.map(\.id)).count != ranges.count { problems.append("IDs not unique") }
        let total = try playlist.segmentBoundaries.last ?? .zero
        for range in ranges where range.className == HLSExporter.interstitialClass {
            let id = range.id, list = range.attributes
            func problem(_ text: String) { problems.append("\(id): \(text)") }
            guard let start = range.startDate else { problem("no START-DATE"); continue }
            if let first = dates.first {
                let offset = try start.offset(from: first)
                if offset.isNegative || offset > total { problem("START-DATE outside the playlist (\(offset) s)") }
            }
            // D.2: exactly one of X-ASSET-URI and X-ASSET-LIST, a quoted-string.
            let uri = list.quotedString("X-ASSET-URI"), assetList = list.quotedString("X-ASSET-LIST")
            if (uri == nil) == (assetList == nil) { problem("needs exactly one of X-ASSET-URI and X-ASSET-LIST") }
            for name in ["X-ASSET-URI", "X-ASSET-LIST"] {
                if let value = list[name], case .quotedString = value {} else if list[name] != nil { problem("\(name) is not a quoted-string") }
            }
            if let uri { problems += assetProblems(URIReference.resolve(uri, against: playlist.url), id: id) }
            if let assetList { problems += assetListProblems(URIReference.resolve(assetList, against: playlist.url), id: id) }
            // Enumerated-string-lists are quoted strings of known values.
            for (name, allowed) in [("CUE", ["PRE", "POST", "ONCE"]), ("X-SNAP", ["OUT", "IN"]), ("X-RESTRICT", ["SKIP", "JUMP"])] {
                guard let value = list[name] else { continue }
                guard case .quotedString(let text) = value else { problem("\(name) is not a quoted-string"); continue }
                let items = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                if items.contains(where: { !allowed.contains($0) }) || Set(items).count != items.count { problem("\(name)=\"\(text)\"") }
                if name == "CUE", items.contains("PRE"), items.contains("POST") { problem("CUE has PRE and POST") }
            }
            // Decimal-floating-point attributes: X-RESUME-OFFSET (may be 0), X-PLAYOUT-LIMIT (> 0).
            for (name, mayBeZero) in [("X-RESUME-OFFSET", true), ("X-PLAYOUT-LIMIT", false), ("DURATION", true)] {
                guard let value = list[name] else { continue }
                guard let time = value.exactTime, !time.isNegative, mayBeZero || time > .zero else { problem("\(name)=\(value)"); continue }
            }
            if let cue = list.quotedString("CUE"), cue.contains("PRE"), let first = dates.first, try start.offset(from: first) != .zero {
                problem("a PRE interstitial not at the playlist's start")
            }
        }
        return problems
    }

    /// The asset is a playlist that parses, ends, and has segments.
    static func assetProblems(_ url: String, id: String) -> [String] {
        guard let text = try? String(contentsOfFile: url, encoding: .utf8) else { return ["\(id): asset \(url) missing"] }
        do {
            switch try HLSPlaylistParser().parse(Array(text.utf8), url: url) {
            case .media(let media): return media.hasEndList && !media.segments.isEmpty ? [] : ["\(id): asset \(url) is not a whole VOD playlist"]
            case .multivariant(let multivariant):
                let uris = multivariant.variants.map(\.resolvedURI) + multivariant.renditions.compactMap(\.resolvedURI)
                return uris.flatMap { assetProblems($0, id: id) }
            }
        } catch {
            return ["\(id): asset \(url): \(error)"]
        }
    }

    /// D.2: the asset list is a JSON object whose `ASSETS` is an array of objects with a `URI`
    /// string (relative to the list) and a `DURATION` number of seconds.
    static func assetListProblems(_ url: String, id: String) -> [String] {
        guard let text = try? String(contentsOfFile: url, encoding: .utf8),
              case .object(let root)? = try? JSONValue(parsing: Array(text.utf8)),
              case .array(let assets)? = root["ASSETS"], !assets.isEmpty
        else { return ["\(id): asset list \(url) is not {\"ASSETS\": [...]}"] }
        return assets.flatMap { asset -> [String] in
            guard case .object(let object) = asset, case .string(let uri)? = object["URI"], case .number(let duration)? = object["DURATION"],
                  let seconds = try? MediaTime(parsing: duration), !seconds.isNegative
            else { return ["\(id): asset list entry \(asset)"] }
            return assetProblems(URIReference.resolve(uri, against: url), id: id)
        }
    }
}

extension HLSDateTime {
    /// Seconds from `other` to this instant.
    func offset(from other: HLSDateTime) throws -> MediaTime { try secondsSinceEpoch.subtracting(other.secondsSinceEpoch) }
}
