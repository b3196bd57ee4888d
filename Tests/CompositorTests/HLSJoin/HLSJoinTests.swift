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

/// The join of compositions and the HLS stitcher, without a decoder: where cuts snap, the
/// composition reported for the output, the queue plan, variants, and every refusal.
@Suite("HLS join: snapping, reported composition, variants, errors")
struct HLSJoinTests {
    /// `Fixtures/demo-hls.json` (segment boundaries of each source below):
    ///
    /// ```
    /// feature  0  1.5 2.25  4  5.125  6.5  8  9.375  10  11.25  12      ad1  0  1.3  2  3.1  4
    /// extra    0  .8  2  2.6  4.2  5  6.4  7.2  8                        ad2  0  .6  1.8  2.4  3
    ///
    /// asked  |a1 0-3.5|feature 0-8.5|a2 0-4|a3 .5-2.5|feature 8.5-12|extra 1-3.3 |a5 0-3|extra 3.3-8|a4 1-4  |
    /// plays  |a1 0-3.1|feature 0-8  |a2 0-4|a3 .6-2.4|feature 8-12  |extra .8-2.6|a5 0-3|extra 2.6-8|a4 1.3-4|
    /// comp.  0        3.1           11.1   15.1      16.9           20.9         22.7   25.7        31.1     33.8
    /// content 0       0             8      8         8              12           13.8   13.8        19.2     19.2
    /// ```
    @Test("every cut snaps to the nearest boundary, and the reported composition is exact for the output")
    func snappedComposition() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-join")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try HLSJoin.stitch(try HLSJoin.composition("demo-hls.json"), folder: folder)
        let composition = stitched.composition
        #expect(composition.segments.map(\.sourceRange) == [
            range(s(0), t("3.1")), range(s(0), s(8)), range(s(0), s(4)), range(t("0.6"), t("2.4")), range(s(8), s(12)),
            range(t("0.8"), t("2.6")), range(s(0), s(3)), range(t("2.6"), s(8)), range(t("1.3"), s(4)),
        ])
        #expect(composition.segments.map(\.compositionRange.end)
            == [t("3.1"), t("11.1"), t("15.1"), t("16.9"), t("20.9"), t("22.7"), t("25.7"), t("31.1"), t("33.8")])
        #expect(composition.contentDuration == t("19.2"))
        #expect(stitched.breaks.map(\.requestedPosition) == [s(0), t("8.5"), t("14.3"), s(19)])
        #expect(stitched.breaks.map(\.position) == [s(0), s(8), t("13.8"), t("19.2")])
        #expect(stitched.breaks.map(\.moved) == [true, true, true, true])  // the pre-roll is shorter: it ends earlier
        // The engine's placement and the reported composition agree, piece by piece.
        #expect(stitched.variants[0].result.pieces.map(\.compositionRange) == composition.segments.map(\.compositionRange))
        #expect(stitched.variants[0].result.duration == composition.duration)

        // Mapping on the output: the last instant before mid1, its first instant, where content resumes.
        let tick = MediaTime(value: 1, timescale: 1000)
        #expect(composition.locate(t("11.1") - tick)?.segment.id == "feature")
        #expect(composition.locate(t("11.1"))?.ad?.position.adID == "a2")
        #expect(composition.compositionTime(forContentTime: s(8)) == t("16.9"))
        #expect(composition.compositionTime(forContentTime: s(8), bias: .beforeBreaks) == t("11.1"))
        #expect(composition.contentTime(forCompositionTime: t("16.9")) == s(8))
        #expect(composition.locate(t("16.9"))?.sourceTime == s(8))
    }

    @Test("the queue plan keeps the exact cuts of the schedule")
    func queuePlanIsExact() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-join")
        defer { MP4Fixtures.remove(folder) }
        let requested = try HLSJoin.composition("demo-hls.json")
        let stitched = try HLSJoin.stitch(requested, folder: folder)
        #expect(stitched.queuePlan == QueuePlan(composition: requested))
        #expect(stitched.queuePlan.items.map(\.forwardPlaybackEndTime)
            == [t("3.5"), t("8.5"), s(4), t("2.5"), s(12), t("3.3"), s(3), s(8), s(4)])
        #expect(stitched.queuePlan.duration == t("34.5"))
    }

    @Test("segment and map URIs are written relative to the output and resolve to the sources' segments")
    func relativeURIs() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-join")
        defer { MP4Fixtures.remove(folder) }
        for name in ["demo-hls.json", "demo-hls-fmp4.json"] {
            let stitched = try HLSJoin.stitch(try HLSJoin.composition(name), folder: folder)
            let variant = stitched.variants[0]
            var sourceSegments: Set<String> = []
            for url in Set(variant.sourcePlaylistURLs) {
                guard case .media(let playlist) = try HLSProbe.load(url) else { continue }
                for segment in playlist.segments {
                    sourceSegments.insert(segment.resolvedURI)
                    if let map = segment.map { sourceSegments.insert(map.resolvedURI) }
                }
            }
            let written = try HLSPlaylistParser().parseMediaPlaylist(Array(variant.result.text.utf8), url: variant.url)
            for segment in written.segments {
                #expect(segment.uri.hasPrefix("../"), "\(segment.uri)")
                #expect(sourceSegments.contains(segment.resolvedURI), "\(segment.resolvedURI)")
                if let map = segment.map { #expect(sourceSegments.contains(map.resolvedURI)) }
            }
        }
    }

    /// ```
    /// content  master: hi 245654 bit/s (320x180), lo 117914 bit/s (160x90)
    /// ad1      master: lo  96925 bit/s (160x90),  hi 262365 bit/s (320x180)
    /// stitched master: stitched-0 (hi + ad hi), stitched-1 (lo + ad lo)
    /// ```
    @Test("a multivariant content gives a multivariant playlist: peak BANDWIDTH, every codec, one playlist per variant")
    func multivariantPlaylist() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-join")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try HLSJoin.stitch(try HLSJoin.composition("demo-hls-multivariant.json"), folder: folder)
        #expect(stitched.files.map(\.name) == ["stitched.m3u8", "stitched-0.m3u8", "stitched-1.m3u8"])
        let master = try #require(stitched.multivariantPlaylist)
        #expect(master.variants.map(\.bandwidth) == [262365, 117914])
        #expect(master.variants.map(\.codecs) == [["avc1.64000c", "mp4a.40.2", "avc1.64000d"], ["avc1.64000a", "mp4a.40.2", "avc1.64000b"]])
        #expect(master.variants.map { $0.resolution.map { "\($0.width)x\($0.height)" } } == ["320x180", "160x90"])
        #expect(master.hasIndependentSegments)
        #expect(stitched.variants.map { $0.contentVariant?.uri } == ["hi/index.m3u8", "lo/index.m3u8"])
        #expect(stitched.variants.map { $0.interstitialVariants.map(\.bandwidth) } == [[262365], [96925]])
        // Both variants have the same boundaries, so they snap alike, to the one reported composition.
        #expect(stitched.variants[0].result.pieces.map(\.sourceRange) == stitched.variants[1].result.pieces.map(\.sourceRange))
        #expect(stitched.composition.segments.map(\.sourceRange) == stitched.variants[1].result.pieces.map(\.sourceRange))
    }

    /// ```
    /// content  master, "variant": "lo/index.m3u8"  ->  stitched master: stitched-0 (lo + ad lo) only
    /// ad1      master, no variant named            ->  its variant nearest lo's bandwidth: lo
    /// ```
    @Test("a content source naming its variant gives a multivariant playlist of that variant alone")
    func namedContentVariant() throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-join")
        defer { MP4Fixtures.remove(folder) }
        var json = try String(contentsOfFile: HLSJoin.fixtures + "/demo-hls-multivariant.json", encoding: .utf8)
        json = json.replacingOccurrences(of: #"content/master.m3u8""#, with: #"content/master.m3u8", "variant": "lo/index.m3u8""#)
        let stitched = try HLSJoin.stitch(try HLSJoin.composition(json: Array(json.utf8)), folder: folder)
        #expect(stitched.files.map(\.name) == ["stitched.m3u8", "stitched-0.m3u8"])
        #expect(stitched.multivariantPlaylist?.variants.map(\.bandwidth) == [117914])
        #expect(stitched.variants.map { $0.contentVariant?.uri } == ["lo/index.m3u8"])
        #expect(stitched.variants.map { $0.interstitialVariants.map(\.bandwidth) } == [[96925]])
        // Unknown names are refused before anything is stitched, naming the choices.
        let unknown = json.replacingOccurrences(of: #""variant": "lo/index.m3u8""#, with: #""variant": "4k""#)
        let schedule = try ScheduleDocument.decode(Array(unknown.utf8), baseFolder: FilePath(HLSJoin.fixtures))
        let composition = try Composition(schedule: schedule, naturalDurations: [
            schedule.content[0].source: MediaTime(seconds: 10), schedule.breaks[0].ads[0].source: MediaTime(seconds: 4)])
        #expect(throws: HLSExportError(.noSuchVariant(
            url: HLSJoin.fixtures + "/hls/multivariant/content/master.m3u8", name: "4k", known: #""hi/index.m3u8", "lo/index.m3u8""#))) {
            try HLSExporter(outputURL: folder + "/stitched.m3u8").stitch(composition)
        }
    }

    // MARK: Refusals, each naming the item or the file

    @Test("an item whose cuts snap to one boundary is an error naming it, not a silent drop")
    func snapsToNothing() throws {
        // ad1's boundaries: 0  1.3  2  3.1  4;  [1.2, 1.5) has 1.3 nearest at both ends.
        let composition = try HLSJoin.composition(json: Array(#"""
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
              "breaks": [ { "id": "b", "at": 4, "ads": [ { "id": "tiny", "url": "hls/ts/ad1/index.m3u8", "start": 1.2, "end": 1.5 } ] } ] }
            """#.utf8))
        #expect(throws: HLSExportError(.snapsToNothing(
            item: "tiny", url: HLSJoin.fixtures + "/hls/ts/ad1/index.m3u8", requested: range(t("1.2"), t("1.5")),
            snapped: range(t("1.3"), t("1.3"))))) {
            try HLSExporter(outputURL: "/tmp/out/stitched.m3u8").stitch(composition)
        }
    }

    @Test("MPEG-TS and fragmented MP4 in one composition: an error naming both items and files")
    func mixedFormats() throws {
        let composition = try HLSJoin.composition(json: Array(#"""
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
              "breaks": [ { "id": "b", "at": 4, "ads": [ { "id": "a", "url": "hls/fmp4/ad1/index.m3u8" } ] } ] }
            """#.utf8))
        let error = HLSExportError(.mixedSegmentFormats(
            item: "a", url: HLSJoin.fixtures + "/hls/fmp4/ad1/index.m3u8", format: HLSSegmentFormat.fragmentedMP4.description,
            previousItem: "feature", previousURL: HLSJoin.fixtures + "/hls/ts/content/index.m3u8", previousFormat: HLSSegmentFormat.mpegTS.description))
        #expect(throws: error) { try HLSExporter(outputURL: "/tmp/out/stitched.m3u8").stitch(composition) }
        #expect(error.description.contains("'a' (\(HLSJoin.fixtures)/hls/fmp4/ad1/index.m3u8) has fragmented MP4 segments"))
    }

    @Test("an MP4 source whose codec MPEG-TS cannot carry is refused, named; fragmented MP4 carries it")
    func unpackageableMP4Source() throws {
        let composition = try HLSJoin.composition(json: Array(#"""
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
              "breaks": [ { "id": "b", "at": 4, "ads": [ { "id": "a", "url": "mpeg4-part2.mp4" } ] } ] }
            """#.utf8))
        do {
            _ = try HLSExporter(outputURL: "/tmp/out/stitched.m3u8").stitch(composition)
            Issue.record("packaged MPEG-4 Part 2 video as MPEG-TS")
        } catch {
            guard case .packaging(let item, .unsupported(let file, let boxPath, _, let reason)) = error.detail else { Issue.record("\(error)"); return }
            #expect(item == "a")
            #expect(file == HLSJoin.fixtures + "/mpeg4-part2.mp4")
            #expect(boxPath.hasSuffix("/stsd"))
            #expect(reason.contains("MPEG-4 Part 2 (mp4v, object type 0x20) video; MPEG-TS segments are packaged from H.264 or HEVC video and AAC audio"))
            #expect(error.description.hasPrefix("'a': cannot package it into segments: "))
        }
        let stitcher = HLSExporter(
            outputURL: "/tmp/out/stitched.m3u8", options: try HLSExportOptions(segmentContainer: .fragmentedMP4))
        let composition2 = try HLSJoin.composition(json: Array(#"""
            { "content": [ { "id": "feature", "url": "mpeg4-part2.mp4" } ], "breaks": [] }
            """#.utf8))
        #expect(try stitcher.stitch(composition2).packagedSources.first?.usedSegments == [0])
    }

    /// Issue 13, C2, as `hls` met it: a clip starting at `"1/2147483647"` on an HLS source trapped
    /// in the nearest-boundary search. The cut snaps to 0 and the report says so.
    @Test("a clip starting at 1/2147483647 s on an HLS source is stitched, its cut snapped to 0")
    func primeTimescaleStart() throws {
        let composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: MediaLocation(parsing: Self.base + "c.m3u8"),
                                  start: MediaTime(value: 1, timescale: 2_147_483_647), end: s(12))],
            breaks: []))
        let stitched = try Self.stitch(composition, ["c.m3u8": Self.media(["4", "4", "4"])])
        #expect(stitched.composition.segments.map(\.sourceRange) == [MediaTimeRange(start: .zero, end: s(12))])
    }

    /// In-memory playlists for the cases no fixture has.
    static let base = "https://cdn.example/"
    static func media(_ durations: [String], end: Bool = true, prefix: String = "s") -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n" + durations.enumerated().map { "#EXTINF:\($1),\n\(prefix)\($0).ts\n" }.joined()
            + (end ? "#EXT-X-ENDLIST\n" : "")
    }

    /// `C [0, 12)` with break `b` (ad `A`, `ad.m3u8` [0, 4)) at content 5.
    static func composition(content: String = "c.m3u8") throws -> Composition {
        try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: MediaLocation(parsing: base + content), end: s(12))],
            breaks: [AdBreak(id: "b", placement: .midroll(at: s(5)),
                             ads: [Ad(id: "A", source: MediaLocation(parsing: base + "ad.m3u8"), end: s(4))])]))
    }

    static func stitch(_ composition: Composition, _ files: [String: String]) throws(HLSExportError) -> HLSExport {
        var all = ["ad.m3u8": media(["2", "2"])]
        all.merge(files) { $1 }
        let loader = HLSPlaylistLoader.inMemory(Dictionary(uniqueKeysWithValues: all.map { (base + $0, $1) }))
        return try HLSExporter(outputURL: base + "out/stitched.m3u8", loader: loader).stitch(composition)
    }

    @Test("malformed playlists and unreadable ones are told apart, and from unsupported ones")
    func loadingErrors() throws {
        let composition = try Self.composition()
        #expect(throws: HLSExportError(.unreadable(url: Self.base + "c.m3u8", reason: "\(Self.base)c.m3u8: no such playlist"))) {
            try Self.stitch(composition, [:])
        }
        do {
            _ = try Self.stitch(composition, ["c.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n"])
            Issue.record("stitched a malformed playlist")
        } catch {
            guard case .malformed(let url, let reason) = error.detail else { Issue.record("\(error)"); return }
            #expect(url == Self.base + "c.m3u8")
            #expect(reason == HLSParseError(line: 3, lineText: "#EXTINF:4,", problem: .extinfWithoutURI).description)
        }
        #expect(throws: HLSExportError(.unsupported(
            url: Self.base + "c.m3u8", reason: "a live playlist (no EXT-X-ENDLIST, not PLAYLIST-TYPE VOD) has no fixed segments to stitch"))) {
            try Self.stitch(composition, ["c.m3u8": Self.media(["4", "4", "4"], end: false)])
        }
    }

    /// ```
    /// v0  0   2   4   6 ...     the break at 5 is halfway: the earlier boundary, 4
    /// v1  0     3     6 ...     the break at 5: 6 is nearer
    /// ```
    @Test("variants whose segments are not aligned are refused: one timeline could not describe them")
    func variantsDisagree() throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            v0.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000
            v1.m3u8
            """
        #expect(throws: HLSExportError(.variantsDisagree(
            item: "C", variantURL: Self.base + "out/stitched-1.m3u8", range: range(s(0), s(6)),
            firstVariantURL: Self.base + "out/stitched-0.m3u8", firstRange: range(s(0), s(4))))) {
            try Self.stitch(try Self.composition(content: "master.m3u8"), [
                "master.m3u8": master, "v0.m3u8": Self.media(Array(repeating: "2", count: 6)), "v1.m3u8": Self.media(["3", "3", "3", "3"]),
            ])
        }
    }

    /// Content whose audio is in two renditions (English, French), an ad whose audio is muxed, and
    /// one whose audio is in its own renditions:
    ///
    /// ```
    /// video       |C v0 0-4|ad |C v0 4-12|        stitched-0.m3u8
    /// audio en    |C en 0-4|ad |C en 4-12|        stitched-audio-0.m3u8: the muxed ad, or the ad's "en"
    /// audio fr    |C fr 0-4|ad |C fr 4-12|        stitched-audio-1.m3u8: the muxed ad, or the ad's "fr"
    /// ```
    @Test("the content's audio renditions are stitched beside the variants, each ad's audio matched by language")
    func audioRenditions() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Français",LANGUAGE="fr",URI="fr.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac"
            v0.m3u8
            """
        let files = [
            "master.m3u8": master, "v0.m3u8": Self.media(["4", "4", "4"], prefix: "v"),
            "en.m3u8": Self.media(["4", "4", "4"], prefix: "en"), "fr.m3u8": Self.media(["4", "4", "4"], prefix: "fr"),
        ]
        let composition = try Self.composition(content: "master.m3u8")
        let stitched = try Self.stitch(composition, files)
        let text = try #require(stitched.multivariantPlaylist?.text)
        #expect(text.contains(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="stitched-audio-0.m3u8""#))
        #expect(text.contains(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Français",LANGUAGE="fr",URI="stitched-audio-1.m3u8""#))
        #expect(text.contains(#"AUDIO="aac""#))
        func names(_ playlist: HLSStitchedVariantPlaylist) -> [String] { playlist.result.playlist.segments.map { String($0.uri.split(separator: "/").last!) } }
        #expect(stitched.variants.map(names) == [["v0.ts", "s0.ts", "s1.ts", "v1.ts", "v2.ts"]])
        #expect(stitched.renditions.map(names) == [["en0.ts", "s0.ts", "s1.ts", "en1.ts", "en2.ts"], ["fr0.ts", "s0.ts", "s1.ts", "fr1.ts", "fr2.ts"]])
        #expect(stitched.files.map(\.name) == ["stitched.m3u8", "stitched-0.m3u8", "stitched-audio-0.m3u8", "stitched-audio-1.m3u8"])

        // An ad with its own audio renditions: each stitched rendition takes the ad's of its language.
        let adMaster = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="fr",LANGUAGE="fr",URI="adfr.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",LANGUAGE="en",URI="aden.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a"
            adv.m3u8
            """
        var withAd = files
        withAd["ad.m3u8"] = adMaster
        withAd["adv.m3u8"] = Self.media(["2", "2"], prefix: "adv")
        withAd["aden.m3u8"] = Self.media(["2", "2"], prefix: "aden")
        withAd["adfr.m3u8"] = Self.media(["2", "2"], prefix: "adfr")
        let matched = try Self.stitch(composition, withAd)
        #expect(matched.variants.map(names) == [["v0.ts", "adv0.ts", "adv1.ts", "v1.ts", "v2.ts"]])
        #expect(matched.renditions.map(names) == [["en0.ts", "aden0.ts", "aden1.ts", "en1.ts", "en2.ts"], ["fr0.ts", "adfr0.ts", "adfr1.ts", "fr1.ts", "fr2.ts"]])

        // A rendition whose segments do not line up with the video's (3 and 6 are as near to 4; the
        // earlier wins): one timeline could not describe both.
        var misaligned = files
        misaligned["fr.m3u8"] = Self.media(["3", "3", "3", "3"], prefix: "fr")
        #expect(throws: HLSExportError(.variantsDisagree(
            item: "C", variantURL: Self.base + "out/stitched-audio-1.m3u8", range: range(s(0), s(3)),
            firstVariantURL: Self.base + "out/stitched-0.m3u8", firstRange: range(s(0), s(4))))) {
            try Self.stitch(composition, misaligned)
        }
    }

    /// Content with English and French subtitles and its English audio listed again as an
    /// audio-only variant (as ffmpeg packages it); an ad with French subtitles only:
    ///
    /// ```
    /// video          |C v0 0-4|ad      |C v0 4-12|      stitched-0.m3u8
    /// audio-only     |C en 0-4|ad en   |C en 4-12|      stitched-1.m3u8: the ad's English audio
    /// subtitles en   |C en 0-4|(empty) |C en 4-12|      stitched-subtitles-0.m3u8, stitched-empty.vtt
    /// subtitles fr   |C fr 0-4|ad fr   |C fr 4-12|      stitched-subtitles-1.m3u8
    /// ```
    @Test("subtitle renditions are stitched, an empty WebVTT segment where a source has none; audio-only variants play each ad's audio")
    func subtitleRenditions() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="en.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="sen.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",URI="sfr.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac",SUBTITLES="subs"
            v0.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2",AUDIO="aac"
            en.m3u8
            """
        let adMaster = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",LANGUAGE="en",URI="aden.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="t",NAME="fr",LANGUAGE="fr",URI="adsfr.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a",SUBTITLES="t"
            adv.m3u8
            """
        func vtt(_ prefix: String, _ durations: [String]) -> String {
            Self.media(durations, prefix: prefix).replacingOccurrences(of: ".ts", with: ".vtt")
        }
        let files = [
            "master.m3u8": master, "v0.m3u8": Self.media(["4", "4", "4"], prefix: "v"), "en.m3u8": Self.media(["4", "4", "4"], prefix: "en"),
            "sen.m3u8": vtt("sen", ["4", "4", "4"]), "sfr.m3u8": vtt("sfr", ["4", "4", "4"]),
            "ad.m3u8": adMaster, "adv.m3u8": Self.media(["2", "2"], prefix: "adv"), "aden.m3u8": Self.media(["2", "2"], prefix: "aden"),
            "adsfr.m3u8": vtt("adsfr", ["2", "2"]),
        ]
        let stitched = try Self.stitch(try Self.composition(content: "master.m3u8"), files)
        let text = try #require(stitched.multivariantPlaylist?.text)
        #expect(text.contains(#"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="stitched-subtitles-0.m3u8""#))
        #expect(text.contains(#"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",URI="stitched-subtitles-1.m3u8""#))
        #expect(text.contains(#"AUDIO="aac",SUBTITLES="subs""#))
        func names(_ playlist: HLSStitchedVariantPlaylist) -> [String] { playlist.result.playlist.segments.map { String($0.uri.split(separator: "/").last!) } }
        #expect(stitched.variants.map(names) == [["v0.ts", "adv0.ts", "adv1.ts", "v1.ts", "v2.ts"], ["en0.ts", "aden0.ts", "aden1.ts", "en1.ts", "en2.ts"]])
        #expect(stitched.renditions.map(names) == [
            ["en0.ts", "aden0.ts", "aden1.ts", "en1.ts", "en2.ts"],
            ["sen0.vtt", "stitched-empty.vtt", "sen1.vtt", "sen2.vtt"],
            ["sfr0.vtt", "adsfr0.vtt", "adsfr1.vtt", "sfr1.vtt", "sfr2.vtt"],
        ])
        // The empty stretch lasts as long as the ad, on the same boundaries as the video.
        let english = try #require(stitched.renditions.dropFirst().first)
        #expect(try english.result.playlist.segmentBoundaries == [s(0), s(4), s(8), s(12), s(16)])
        #expect(english.result.playlist.segments[1].isDiscontinuity && english.result.playlist.segments[2].isDiscontinuity)
        // The audio-only variant lists the content's audio codec, not the ad's video.
        #expect(stitched.multivariantPlaylist?.variants[1].codecs == ["mp4a.40.2"])
        #expect(stitched.files.map(\.name) == [
            "stitched.m3u8", "stitched-0.m3u8", "stitched-1.m3u8", "stitched-audio-0.m3u8",
            "stitched-subtitles-0.m3u8", "stitched-subtitles-1.m3u8", "stitched-empty.vtt",
        ])
        #expect(stitched.files.last?.text == "WEBVTT\n")
    }

    @Test("media-playlist content with an ad whose audio is only in renditions: refused, naming the group")
    func adAudioInRenditions() throws {
        let adMaster = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="en",URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="aac"
            v0.m3u8
            """
        let composition = try Self.composition()
        do {
            _ = try Self.stitch(composition, ["c.m3u8": Self.media(["4", "4", "4"]), "ad.m3u8": adMaster, "v0.m3u8": Self.media(["2", "2"])])
            Issue.record("stitched an ad without its audio")
        } catch {
            guard case .unsupported(let url, let reason) = error.detail else { Issue.record("\(error)"); return }
            #expect(url == Self.base + "ad.m3u8")
            #expect(reason.contains("rendition group 'aac'"))
        }
        // A group whose default rendition has no URI is muxed in the variant: that one stitches.
        let muxed = adMaster.replacingOccurrences(
            of: "#EXT-X-MEDIA:", with: "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"main\",DEFAULT=YES\n#EXT-X-MEDIA:")
        let stitched = try Self.stitch(composition, ["c.m3u8": Self.media(["4", "4", "4"]), "ad.m3u8": muxed, "v0.m3u8": Self.media(["2", "2"])])
        #expect(stitched.renditions.isEmpty && stitched.multivariantPlaylist == nil)
    }

    @Test("media-playlist content with a multivariant ad: one output, the ad's first-listed variant")
    func mediaContentMultivariantAd() throws {
        let adMaster = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=900000
            ad-hi.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=300000
            ad-lo.m3u8
            """
        let stitched = try Self.stitch(try Self.composition(), [
            "c.m3u8": Self.media(["4", "4", "4"]), "ad.m3u8": adMaster,
            "ad-hi.m3u8": Self.media(["2", "2"], prefix: "hi"), "ad-lo.m3u8": Self.media(["2", "2"], prefix: "lo"),
        ])
        #expect(stitched.multivariantPlaylist == nil)
        #expect(stitched.files.map(\.url) == [Self.base + "out/stitched.m3u8"])
        #expect(stitched.variants[0].sourcePlaylistURLs == [Self.base + "c.m3u8", Self.base + "ad-hi.m3u8", Self.base + "c.m3u8"])
        #expect(stitched.variants[0].result.text.contains("../hi0.ts"))
        // The break asked at 5 plays at 4, the nearest boundary (0  4  8  12).
        #expect(stitched.breaks[0].position == s(4))
    }

    /// ```
    /// c.m3u8   0       4       8       12       the break asked at 5
    /// nearest  |C 0-4  |ad|C 4-12          |    break at content 4
    /// within   |C 0-4  |ad|        C 8-12  |    content [4, 8) skipped: resumes at 8
    /// covering |C 0-8      |ad|C 4-12      |    [4, 8) twice: no timeline; refused
    /// ```
    @Test("other snapping rules: within skips content (reported), covering would repeat it (refused)")
    func snappingRules() throws {
        let composition = try Self.composition()
        let files = ["c.m3u8": Self.media(["4", "4", "4"])]
        func stitch(_ rule: HLSCutSnapping) throws(HLSExportError) -> HLSExport {
            var all = ["ad.m3u8": Self.media(["2", "2"])]
            all.merge(files) { $1 }
            let loader = HLSPlaylistLoader.inMemory(Dictionary(uniqueKeysWithValues: all.map { (Self.base + $0, $1) }))
            let options: HLSExportOptions
            do { options = try HLSExportOptions(snapping: rule) } catch { throw HLSExportError(.stitch(item: nil, reason: "\(error)")) }
            return try HLSExporter(outputURL: Self.base + "out/stitched.m3u8", options: options, loader: loader).stitch(composition)
        }
        let within = try stitch(.within)
        #expect(within.composition.segments.map(\.sourceRange) == [range(s(0), s(4)), range(s(0), s(4)), range(s(8), s(12))])
        #expect(within.composition.breaks[0].position == s(4) && within.composition.breaks[0].resumeContentTime == s(8))
        #expect(within.composition.compositionTime(forContentTime: s(6)) == s(8))  // skipped content maps to where it resumes
        #expect(within.composition.duration == s(12))
        do {
            _ = try stitch(.covering)
            Issue.record("covering stitched content twice")
        } catch {
            guard error.cause == .snapping else { Issue.record("\(error)"); return }
        }
    }

    @Test("an ID that cannot go in a quoted string is refused before anything is written")
    func unwritableID() throws {
        let composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: MediaLocation(parsing: Self.base + "c.m3u8"), end: s(12))],
            breaks: [AdBreak(id: #"say "hi""#, placement: .midroll(at: s(4)),
                             ads: [Ad(id: "A", source: MediaLocation(parsing: Self.base + "ad.m3u8"), end: s(4))])]))
        #expect(throws: HLSExportError(.unwritableID(#"say "hi""#))) {
            try Self.stitch(composition, ["c.m3u8": Self.media(["4", "4", "4"])])
        }
    }

    @Test("variant playlists are named after the output: stitched.m3u8 -> stitched-0.m3u8")
    func variantNames() {
        #expect(HLSOutputLocation("/a/b/stitched.m3u8").variant(0) == "/a/b/stitched-0.m3u8")
        #expect(HLSOutputLocation("https://127.0.0.1/x.y/out").variant(2) == "https://127.0.0.1/x.y/out-2.m3u8")
        // Only the path's last segment is renamed: never a query, a fragment, or a dotted folder.
        let location = HLSOutputLocation("https://127.0.0.1:8080/a.b/stitched.m3u8?token=x.y/z#t")
        #expect(location.variant(1, kind: "audio-") == "https://127.0.0.1:8080/a.b/stitched-audio-1.m3u8")
        #expect(location.sibling("-empty.vtt") == "https://127.0.0.1:8080/a.b/stitched-empty.vtt")
        #expect(location.folder == "https://127.0.0.1:8080/a.b/")
        #expect(location.beside("interstitial-1.json") == "https://127.0.0.1:8080/a.b/interstitial-1.json")
        #expect(HLSOutputLocation("file:///srv/out/stitched.m3u8").beside("c-0.ts") == "file:///srv/out/c-0.ts")
        #expect(HLSOutputLocation("/srv/.hidden").variant(0) == "/srv/.hidden-0.m3u8")
    }
}
