import Testing
import CompositorTestSupport
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

@Suite("HLS stitched playlists")
struct HLSStitcherTests {
    static let anchor = "2024-05-01T12:00:00Z"
    static let output = "https://127.0.0.1/out/show/stitched.m3u8"

    /// A VOD media playlist at `url` with one segment per duration, named `<prefix><n>.<ext>`.
    static func source(
        _ url: String, _ durations: [String], prefix: String = "s", ext: String = "ts", header: String = ""
    ) throws -> HLSMediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-PLAYLIST-TYPE:VOD\n" + header
        for (i, d) in durations.enumerated() { text += "#EXTINF:\(d),\n\(prefix)\(i).\(ext)\n" }
        return try HLSTest.media(text + "#EXT-X-ENDLIST\n", url: url)
    }

    static func t(_ text: String) -> MediaTime { HLSTest.time(text) }
    static func range(_ a: String, _ b: String) -> MediaTimeRange { MediaTimeRange(start: t(a), end: t(b)) }

    static let content = "https://127.0.0.1/media/feature/index.m3u8"
    static let ad = "https://127.0.0.1/media/ads/a1/index.m3u8"

    // content  |--4--|--4--|--4--|--4--|--4--|
    //          0     4     8     12    16    20
    // ad       |-3.003-|-3.003-|2.002|
    //          0       3.003   6.006 8.008
    static func feature() throws -> HLSMediaPlaylist { try source(content, ["4", "4", "4", "4", "4"], prefix: "c") }
    static func adOne() throws -> HLSMediaPlaylist { try source(ad, ["3.003", "3.003", "2.002"], prefix: "a") }

    @Test("a break asked for between boundaries snaps to the nearest one, and the report says where")
    func snapsToNearest() throws {
        // Asked:   C[0, 9.9) | A[0, 8.008) | C[9.9, 20)
        // 9.9 is 1.9 after 8 and 2.1 before 12, so the cut moves to 8:
        // Plays:   C[0, 8)   | A[0, 8.008) | C[8, 20)
        //          0         8             16.008                28.008
        let feature = try Self.feature(), ad = try Self.adOne()
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("0", "9.9"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: ad, sourceRange: Self.range("0", "8.008"), kind: .interstitial, plannedCompositionStart: Self.t("9.9")),
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("9.9", "20"), kind: .content, plannedCompositionStart: Self.t("17.908")),
        ])
        #expect(result.pieces.map(\.sourceRange) == [Self.range("0", "8"), Self.range("0", "8.008"), Self.range("8", "20")])
        #expect(result.pieces.map(\.compositionRange) == [
            Self.range("0", "8"), Self.range("8", "16.008"), Self.range("16.008", "28.008"),
        ])
        #expect(result.pieces.map(\.drift) == [.zero, Self.t("-1.9"), Self.t("-1.9")])
        #expect(result.duration == Self.t("28.008"))
        #expect(try result.playlist.totalDuration == result.duration)
        #expect(result.droppedPieces.isEmpty)
        // The last content segment before the ad, the ad's first and last, the first after it.
        let uris = result.playlist.segments.map(\.uri)
        #expect(uris == ["../../media/feature/c0.ts", "../../media/feature/c1.ts",
                         "../../media/ads/a1/a0.ts", "../../media/ads/a1/a1.ts", "../../media/ads/a1/a2.ts",
                         "../../media/feature/c2.ts", "../../media/feature/c3.ts", "../../media/feature/c4.ts"])
        #expect(result.pieces.map(\.segments) == [0..<2, 2..<5, 5..<8])
        // A discontinuity at each switch, none inside a piece.
        #expect(result.playlist.segments.map(\.isDiscontinuity) == [false, false, true, false, false, true, false, false])
    }

    /// Issue 13, C2: the nearest-boundary search subtracted the cut from the boundaries, and
    /// `1/2147483647` shares no timescale with the decimal `EXTINF` boundaries within Int32: `hls`
    /// trapped. It now compares the cut with the midpoint exactly.
    ///
    /// ```
    /// content  |--1.5--|--1.5--|...      cut at 1/2147483647 s: 0.0000000005 s from 0, 1.4999... from 1.5
    /// ```
    @Test("a cut at 1/2147483647 s snaps to the nearest boundary instead of trapping", arguments: [
        ("1/2147483647", "0"), ("3221225470/2147483647", "1.5"), ("1610612735/2147483647", "0"),  // 1.4999999..., 0.74999999...
        ("1610612736/2147483647", "1.5"),  // 0.7500000001...: past the midpoint 0.75
    ])
    func snapsAPrimeTimescaleCut(cut: String, boundary: String) throws {
        let content = try Self.source(Self.content, ["1.5", "1.5", "1.5"], prefix: "c")
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: content, sourceRange: Self.range(cut, "4.5"), kind: .content, plannedCompositionStart: .zero),
        ])
        #expect(result.pieces[0].sourceRange == Self.range(boundary, "4.5"))
        #expect(HLSStitcher.nearest(Self.t(cut), [Self.t("0"), Self.t("1.5"), Self.t("3")]) == (boundary == "0" ? 0 : 1))
    }

    @Test("a cut exactly halfway between two boundaries goes to the earlier one")
    func tiesGoEarlier() throws {
        // content |--4--|--4--|--4--|..., cut at 10: 2 from 8 and 2 from 12.
        let feature = try Self.feature()
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("0", "10"), kind: .content, plannedCompositionStart: .zero),
        ])
        #expect(result.pieces[0].sourceRange == Self.range("0", "8"))
    }

    @Test("irregular segments snap to their own boundaries; a piece that snaps to nothing is dropped and reported")
    func irregularSegments() throws {
        // source  |-1.5-|----4----|.5|---3---|
        //         0     1.5       5.5 6      9
        let source = try Self.source(Self.content, ["1.5", "4", "0.5", "3"])
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            // [2, 5.8): 2 is nearer 1.5 than 5.5; 5.8 is nearer 6 than 5.5.
            HLSStitchPiece(playlist: source, sourceRange: Self.range("2", "5.8"), kind: .content, plannedCompositionStart: .zero),
            // [5.6, 5.7): both ends snap to 5.5, nothing is left.
            HLSStitchPiece(playlist: source, sourceRange: Self.range("5.6", "5.7"), kind: .interstitial, plannedCompositionStart: Self.t("3.8")),
            // [3.5, 3.6): 3.5 is 2 from 1.5 and 2 from 5.5 (earlier wins); 3.6 is nearer 5.5.
            HLSStitchPiece(playlist: source, sourceRange: Self.range("3.5", "3.6"), kind: .content, plannedCompositionStart: Self.t("3.8")),
        ])
        #expect(result.pieces.map(\.index) == [0, 2])
        #expect(result.pieces.map(\.sourceRange) == [Self.range("1.5", "6"), Self.range("1.5", "5.5")])
        #expect(result.pieces.map(\.compositionRange) == [Self.range("0", "4.5"), Self.range("4.5", "8.5")])
        #expect(result.droppedPieces == [HLSDroppedPiece(
            index: 1, item: nil, url: Self.content, requestedSourceRange: Self.range("5.6", "5.7"), snappedSourceRange: Self.range("5.5", "5.5"))])
        // The dropped piece leaves no trace: one switch, between pieces 0 and 2.
        #expect(result.playlist.segments.map(\.isDiscontinuity) == [false, false, true])
    }

    @Test("the other snapping rules cover, stay within, or move every cut later or earlier", arguments: [
        (HLSCutSnapping.covering, "1.5", "6"), (.within, "5.5", "5.5"), (.nearest, "1.5", "6"),
        (.next, "5.5", "6"), (.previous, "1.5", "5.5"),
    ])
    func snappingRules(rule: HLSCutSnapping, start: String, end: String) throws {
        let source = try Self.source(Self.content, ["1.5", "4", "0.5", "3"])
        let piece = HLSStitchPiece(playlist: source, sourceRange: Self.range("2", "5.8"), kind: .content, plannedCompositionStart: .zero)
        if start == end {
            #expect(throws: HLSStitchError.nothingToStitch) { try HLSStitcher(outputURL: Self.output, snapping: rule).stitch([piece]) }
        } else {
            let result = try HLSStitcher(outputURL: Self.output, snapping: rule).stitch([piece])
            #expect(result.pieces[0].sourceRange == Self.range(start, end))
        }
    }

    @Test("a range past the end of the source snaps to its end")
    func pastTheEnd() throws {
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: try Self.adOne(), sourceRange: Self.range("0", "60"), kind: .interstitial, plannedCompositionStart: .zero),
        ])
        #expect(result.pieces[0].sourceRange == Self.range("0", "8.008"))
    }

    @Test("fMP4 pieces re-emit EXT-X-MAP after every discontinuity; markers become one DATERANGE per group")
    func fmp4Text() throws {
        // content |--4--|--4--|--4--|     ad1 |-2-|-2-|     ad2 |-3-|
        // Plays:  C[0,4) | ad1 | ad2 | C[4,12), the two ads one pod marked "pod-1".
        let feature = try Self.source(Self.content, ["4", "4", "4"], prefix: "c", ext: "m4s", header: "#EXT-X-MAP:URI=\"init.mp4\"\n")
        let ad1 = try Self.source("https://ads.example.net/a1/index.m3u8", ["2", "2"], prefix: "a", ext: "m4s",
                                  header: "#EXT-X-MAP:URI=\"init.mp4\"\n")
        let ad2 = try Self.source("https://127.0.0.1/media/ads/a2/index.m3u8", ["3"], prefix: "b", ext: "m4s",
                                  header: "#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"700@0\"\n")
        let pod = HLSStitchMarker(id: "pod-1", className: "com.example.ad", attributes: [HLSAttribute("X-POD", .decimalInteger(1))])
        let result = try HLSStitcher(outputURL: Self.output, programDateTime: Self.anchor).stitch([
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("0", "4"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: ad1, sourceRange: Self.range("0", "4"), kind: .interstitial, marker: pod, plannedCompositionStart: Self.t("4")),
            HLSStitchPiece(playlist: ad2, sourceRange: Self.range("0", "3"), kind: .interstitial, marker: pod, plannedCompositionStart: Self.t("8")),
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("4", "12"), kind: .content, plannedCompositionStart: Self.t("11")),
        ])
        #expect(result.text == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="../../media/feature/init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:00.000Z
            #EXTINF:4,
            ../../media/feature/c0.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="https://ads.example.net/a1/init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:04.000Z
            #EXT-X-DATERANGE:ID="pod-1",CLASS="com.example.ad",START-DATE="2024-05-01T12:00:04.000Z",DURATION=7,X-POD=1
            #EXTINF:2,
            https://ads.example.net/a1/a0.m4s
            #EXTINF:2,
            https://ads.example.net/a1/a1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="../../media/ads/a2/init.mp4",BYTERANGE="700@0"
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:08.000Z
            #EXTINF:3,
            ../../media/ads/a2/b0.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="../../media/feature/init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:11.000Z
            #EXTINF:4,
            ../../media/feature/c1.m4s
            #EXTINF:4,
            ../../media/feature/c2.m4s
            #EXT-X-ENDLIST

            """)
        #expect(result.markers.map(\.id) == ["pod-1"])
        #expect(result.markers[0].compositionRange == Self.range("4", "11"))
        #expect(result.markers[0].pieces == [1, 2])
        // What was written reads back as the same playlist.
        #expect(try HLSTest.media(result.text, url: Self.output) == result.playlist)
    }

    @Test("DATERANGE durations and start dates are exact for each group")
    func dateRangeDurations() throws {
        // C[0,4) | A (8.008, group x) | C[4,8) | A[0, 6.006) (group y) | C[8,20)
        let feature = try Self.feature(), ad = try Self.adOne()
        let result = try HLSStitcher(outputURL: Self.output, programDateTime: "2024-05-01T23:59:58.5+02:00").stitch([
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("0", "4"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: ad, sourceRange: Self.range("0", "8.008"), kind: .interstitial,
                           marker: HLSStitchMarker(id: "x"), plannedCompositionStart: Self.t("4")),
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("4", "8"), kind: .content, plannedCompositionStart: Self.t("12.008")),
            HLSStitchPiece(playlist: ad, sourceRange: Self.range("0", "6.006"), kind: .interstitial,
                           marker: HLSStitchMarker(id: "y", className: "c"), plannedCompositionStart: Self.t("16.008")),
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("8", "20"), kind: .content, plannedCompositionStart: Self.t("22.014")),
        ])
        let ranges = result.playlist.segments.flatMap(\.dateRanges)
        #expect(ranges.map(\.id) == ["x", "y"])
        #expect(ranges.map(\.duration) == [Self.t("8.008"), Self.t("6.006")])
        #expect(ranges.map { $0.startDate?.description } == ["2024-05-02T00:00:02.500+02:00", "2024-05-02T00:00:14.508+02:00"])
        #expect(ranges[1].className == "c")
        // Each date range sits on its group's first segment.
        #expect(result.playlist.segments[1].dateRanges.map(\.id) == ["x"])
        #expect(result.playlist.segments[5].dateRanges.map(\.id) == ["y"])
    }

    @Test("target duration is recomputed from the stitched segments")
    func targetDuration() throws {
        // content segments of 4 s (target 10 in its playlist); an ad with a 6.5 s segment, which rounds to 7.
        let ad = try Self.source(Self.ad, ["6.5", "1"])
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: try Self.feature(), sourceRange: Self.range("0", "8"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: ad, sourceRange: Self.range("0", "7.5"), kind: .interstitial, plannedCompositionStart: Self.t("8")),
        ])
        #expect(result.playlist.targetDuration == 7)
        #expect(result.playlist.version == 3)
        #expect(result.playlist.mediaSequence == 0)
        #expect(result.playlist.discontinuitySequence == 0)
        #expect(result.playlist.hasEndList)
    }

    @Test("keys are re-emitted after discontinuities, and a clear piece gets METHOD=NONE")
    func keys() throws {
        let key = "#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example.com/k1\",IV=0x000102030405060708090A0B0C0D0E0F\n"
        let feature = try Self.source(Self.content, ["4", "4", "4"], prefix: "c", header: key)
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("0", "4"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: try Self.adOne(), sourceRange: Self.range("0", "3.003"), kind: .interstitial, plannedCompositionStart: Self.t("4")),
            HLSStitchPiece(playlist: feature, sourceRange: Self.range("4", "12"), kind: .content, plannedCompositionStart: Self.t("7.003")),
        ])
        let keyLines = result.text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY") || $0 == "#EXT-X-DISCONTINUITY" }
        #expect(keyLines == [
            "#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example.com/k1\",IV=0x000102030405060708090A0B0C0D0E0F",
            "#EXT-X-DISCONTINUITY", "#EXT-X-KEY:METHOD=NONE",
            "#EXT-X-DISCONTINUITY", "#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example.com/k1\",IV=0x000102030405060708090A0B0C0D0E0F",
        ])
        #expect(result.playlist.segments.map { $0.keys.count } == [1, 0, 1, 1])
    }

    @Test("byte ranges are kept with explicit offsets")
    func byteRanges() throws {
        let source = try HLSTest.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-BYTERANGE:100@0
            #EXTINF:4,
            all.ts
            #EXT-X-BYTERANGE:200
            #EXTINF:4,
            all.ts
            #EXT-X-ENDLIST
            """, url: Self.content)
        let result = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: source, sourceRange: Self.range("4", "8"), kind: .content, plannedCompositionStart: .zero),
        ])
        #expect(result.text.contains("#EXT-X-BYTERANGE:200@100\n#EXTINF:4,\n../../media/feature/all.ts\n"))
        #expect(result.playlist.version == 4)
    }

    @Test("MPEG-TS and fragmented MP4 pieces cannot share a playlist")
    func mixedFormats() throws {
        let fmp4 = try Self.source(Self.ad, ["2", "2"], ext: "m4s", header: "#EXT-X-MAP:URI=\"init.mp4\"\n")
        let error = #expect(throws: HLSStitchError.self) {
            try HLSStitcher(outputURL: Self.output).stitch([
                HLSStitchPiece(playlist: try Self.feature(), sourceRange: Self.range("0", "4"), kind: .content, plannedCompositionStart: .zero),
                HLSStitchPiece(playlist: fmp4, sourceRange: Self.range("0", "4"), kind: .interstitial, plannedCompositionStart: Self.t("4")),
            ])
        }
        #expect(error == .incompatibleSegmentFormats(piece: 1, url: Self.ad, format: .fragmentedMP4, expected: .mpegTS))
        #expect(error?.description.contains("cannot mix") == true)
    }

    @Test("a live source, a negative range and markers without an anchor are typed errors")
    func inputErrors() throws {
        let live = try HLSTest.media("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n", url: Self.ad)
        #expect(throws: HLSStitchError.sourceNotFinite(piece: 0, url: Self.ad)) {
            try HLSStitcher(outputURL: Self.output).stitch([
                HLSStitchPiece(playlist: live, sourceRange: Self.range("0", "4"), kind: .interstitial, plannedCompositionStart: .zero),
            ])
        }
        #expect(throws: HLSStitchError.invalidSourceRange(piece: 0, range: Self.range("-1", "4"))) {
            try HLSStitcher(outputURL: Self.output).stitch([
                HLSStitchPiece(playlist: try Self.feature(), sourceRange: Self.range("-1", "4"), kind: .content, plannedCompositionStart: .zero),
            ])
        }
        #expect(throws: HLSStitchError.markerNeedsProgramDateTime(id: "m")) {
            try HLSStitcher(outputURL: Self.output).stitch([
                HLSStitchPiece(playlist: try Self.feature(), sourceRange: Self.range("0", "4"), kind: .content,
                               marker: HLSStitchMarker(id: "m"), plannedCompositionStart: .zero),
            ])
        }
        #expect(throws: HLSStitchError.nothingToStitch) { try HLSStitcher(outputURL: Self.output).stitch([]) }
        #expect(throws: HLSStitchError.self) {
            try HLSStitcher(outputURL: Self.output, programDateTime: "yesterday").stitch([])
        }
    }

    @Test("a marker group must be contiguous and agree on its attributes")
    func markerGroups() throws {
        let feature = try Self.feature(), ad = try Self.adOne()
        let m = HLSStitchMarker(id: "m")
        func piece(_ p: HLSMediaPlaylist, _ marker: HLSStitchMarker?) -> HLSStitchPiece {
            HLSStitchPiece(playlist: p, sourceRange: Self.range("0", "4"), kind: .interstitial, marker: marker, plannedCompositionStart: .zero)
        }
        let stitcher = HLSStitcher(outputURL: Self.output, programDateTime: Self.anchor)
        #expect(throws: HLSStitchError.markerGroupSplit(id: "m", piece: 2)) {
            try stitcher.stitch([piece(ad, m), piece(feature, nil), piece(ad, m)])
        }
        #expect(throws: HLSStitchError.conflictingMarker(id: "m", piece: 1)) {
            try stitcher.stitch([piece(ad, m), piece(ad, HLSStitchMarker(id: "m", className: "other"))])
        }
    }

    @Test("URIs are relative where the output shares scheme and host, absolute elsewhere")
    func relativeURIs() throws {
        let result = try HLSStitcher(outputURL: "file:///srv/out/stitched.m3u8").stitch([
            HLSStitchPiece(playlist: try Self.source("file:///srv/media/c/index.m3u8", ["4"], prefix: "c"),
                           sourceRange: Self.range("0", "4"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: try Self.source("https://ads.example.net/x/index.m3u8", ["4"], prefix: "a"),
                           sourceRange: Self.range("0", "4"), kind: .interstitial, plannedCompositionStart: Self.t("4")),
        ])
        #expect(result.playlist.segments.map(\.uri) == ["../media/c/c0.ts", "https://ads.example.net/x/a0.ts"])
        #expect(result.playlist.segments.map(\.resolvedURI) == ["file:///srv/media/c/c0.ts", "https://ads.example.net/x/a0.ts"])
    }

    @Test("a discontinuity inside a source range is kept; content keeps its unknown lines and cues, an ad does not; source dates are not kept")
    func sourceTags() throws {
        let source = try HLSTest.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PROGRAM-DATE-TIME:2020-01-01T00:00:00Z
            #EXTINF:4,
            a.ts
            # note
            #EXT-X-CUE-OUT:4
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            b.ts
            #EXT-X-ENDLIST
            """, url: Self.content)
        let content = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: source, sourceRange: Self.range("0", "8"), kind: .content, plannedCompositionStart: .zero),
        ])
        #expect(content.playlist.segments.map(\.isDiscontinuity) == [false, true])
        #expect(content.text.contains("# note\n#EXT-X-DISCONTINUITY\n#EXT-X-CUE-OUT:4\n#EXTINF:4,\n"))
        #expect(!content.text.contains("PROGRAM-DATE-TIME"))
        let ad = try HLSStitcher(outputURL: Self.output).stitch([
            HLSStitchPiece(playlist: source, sourceRange: Self.range("0", "8"), kind: .interstitial, plannedCompositionStart: .zero),
        ])
        #expect(ad.playlist.segments.map(\.isDiscontinuity) == [false, true])
        #expect(!ad.text.contains("CUE") && !ad.text.contains("# note") && !ad.text.contains("PROGRAM-DATE-TIME"))
    }
}

@Suite("HLS variant matching")
struct HLSVariantMatchingTests {
    static func multivariant(_ bandwidths: [UInt64], codecs: String = "avc1.64001f,mp4a.40.2", prefix: String) throws -> HLSMultivariantPlaylist {
        var text = "#EXTM3U\n"
        for (i, b) in bandwidths.enumerated() {
            text += "#EXT-X-STREAM-INF:BANDWIDTH=\(b),AVERAGE-BANDWIDTH=\(b / 2),CODECS=\"\(codecs)\",RESOLUTION=640x360,AUDIO=\"aac\"\n\(prefix)\(i).m3u8\n"
        }
        return try HLSTest.multivariant(text, url: "https://127.0.0.1/\(prefix)/master.m3u8")
    }

    @Test("each content variant gets the ad variant nearest in bandwidth")
    func nearest() throws {
        let content = try Self.multivariant([800_000, 2_400_000, 6_000_000], prefix: "c")
        let ad = try Self.multivariant([3_000_000, 1_000_000], prefix: "a")
        let matches = HLSVariantMatching.nearestByBandwidth(content: content, interstitial: ad)
        #expect(matches.map(\.contentIndex) == [0, 1, 2])
        #expect(matches.map(\.interstitial.bandwidth) == [1_000_000, 3_000_000, 3_000_000])
        #expect(matches.map(\.interstitialIndex) == [1, 0, 0])
    }

    @Test("a tie goes to the lower bandwidth", arguments: [(UInt64(2_000_000), UInt64(1_000_000)), (2_000_001, 3_000_000), (1_999_999, 1_000_000)])
    func ties(bandwidth: UInt64, expected: UInt64) throws {
        let ad = try Self.multivariant([3_000_000, 1_000_000], prefix: "a")
        let index = try #require(HLSVariantMatching.nearest(toBandwidth: bandwidth, in: ad.variants))
        #expect(ad.variants[index].bandwidth == expected)
        #expect(HLSVariantMatching.nearest(toBandwidth: 1, in: []) == nil)
    }

    @Test("the stitched multivariant playlist lists one stitched playlist per content variant")
    func stitchedMultivariant() throws {
        let content = try Self.multivariant([800_000, 2_400_000], prefix: "c")
        let ad = try Self.multivariant([3_000_000, 1_000_000], codecs: "avc1.4d401e,mp4a.40.2", prefix: "a")
        let matches = HLSVariantMatching.nearestByBandwidth(content: content, interstitial: ad)
        let variants = matches.enumerated().map { i, match in
            HLSStitchedVariant(content: match.content, interstitials: [match.interstitial],
                               playlistURL: "https://127.0.0.1/out/v\(i)/stitched.m3u8")
        }
        let playlist = HLSStitcher.multivariantPlaylist(for: variants, url: "https://127.0.0.1/out/master.m3u8")
        #expect(playlist.text == """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS="avc1.64001f,mp4a.40.2,avc1.4d401e",RESOLUTION=640x360
            v0/stitched.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,CODECS="avc1.64001f,mp4a.40.2,avc1.4d401e",RESOLUTION=640x360
            v1/stitched.m3u8

            """)
        #expect(try HLSTest.multivariant(playlist.text, url: playlist.url) == playlist)
    }
}
