import Testing
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

@Suite("HLS media playlist parsing")
struct HLSMediaPlaylistParsingTests {
    @Test("reads the playlist-level tags")
    func playlistTags() throws {
        let p = try HLSTest.media("""
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:42
            #EXT-X-DISCONTINUITY-SEQUENCE:3
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
            #EXTINF:6,
            a.ts
            #EXT-X-ENDLIST
            """)
        #expect(p.version == 7)
        #expect(p.targetDuration == 6)
        #expect(p.mediaSequence == 42)
        #expect(p.discontinuitySequence == 3)
        #expect(p.playlistType == .vod)
        #expect(p.hasIndependentSegments)
        #expect(p.start?.timeOffset == HLSTest.time("-12.5"))
        #expect(p.start?.isPrecise == true)
        #expect(p.hasEndList)
        #expect(p.isFinite)
        #expect(p.segments.count == 1)
    }

    @Test("absent optional tags read as absent, not as zero")
    func absentTags() throws {
        let p = try HLSTest.media(HLSTest.mediaText("#EXTINF:4,\na.ts\n"))
        #expect(p.version == nil)
        #expect(p.mediaSequence == nil)
        #expect(p.discontinuitySequence == nil)
        #expect(p.playlistType == nil)
        #expect(!p.hasEndList)
        #expect(!p.isFinite)
        #expect(p.start == nil)
    }

    @Test("EXTINF durations are exact decimals", arguments: [
        ("10", MediaTime(seconds: 10)),
        ("10.010", MediaTime(value: 1001, timescale: 100)),
        ("9.009", MediaTime(value: 9009, timescale: 1000)),
        ("2.002000", MediaTime(value: 2002, timescale: 1000)),
        ("0.000000001", MediaTime(value: 1, timescale: 1_000_000_000)),
        ("3.2000000000000", MediaTime(value: 16, timescale: 5)),
    ])
    func extinfDurations(text: String, expected: MediaTime) throws {
        let p = try HLSTest.media(HLSTest.mediaText("#EXTINF:\(text),\na.ts\n"))
        #expect(p.segments[0].duration == expected)
    }

    /// RFC 8216 4.3.3.1: an `EXTINF` rounded to the nearest whole second, halves up, must not
    /// exceed the target duration (`4.5` against a target of 4 is refused: `HLSParseErrorTests`).
    @Test("an EXTINF under half a second over the target duration is accepted",
          arguments: ["4.499999999", "4.4999999999999", "4.49999999999999999999", "4.49", "0.5", "4", ".4"])
    func extinfRoundsHalvesUp(text: String) throws {
        let p = try HLSTest.media("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:\(text),\na.ts\n")
        #expect(p.segments.count == 1)
    }

    /// After its first 64 segments the parser sizes its array from the bytes left: segments of
    /// growing length (the estimate too low) and a long tail of comments (too high) parse the same.
    @Test("a long playlist reads every segment, however its segment lengths vary")
    func longPlaylist() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n"
        for index in 0..<1_000 {
            text += "#EXTINF:4,\n" + String(repeating: "d/", count: index / 50) + "s\(index).ts\n"
        }
        text += String(repeating: "# a comment after the last segment\n", count: 2_000)
        let p = try HLSTest.media(text)
        #expect(p.segments.count == 1_000)
        #expect(p.segments[999].uri == String(repeating: "d/", count: 19) + "s999.ts")
        #expect(p.segments[999].resolvedURI == "https://127.0.0.1/vod/movie/" + p.segments[999].uri)
    }

    @Test("the EXTINF title is optional and may hold commas", arguments: [
        ("#EXTINF:5,", nil),
        ("#EXTINF:5", nil),
        ("#EXTINF:5,Opening", "Opening"),
        ("#EXTINF:5,Act 1, scene 2", "Act 1, scene 2"),
        ("#EXTINF:5,Überschrift", "Überschrift"),
    ] as [(String, String?)])
    func extinfTitles(line: String, title: String?) throws {
        let p = try HLSTest.media(HLSTest.mediaText("\(line)\na.ts\n"))
        #expect(p.segments[0].title == title)
    }

    @Test("segment URIs are resolved against the playlist URL")
    func segmentURIs() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXTINF:4,
            seg1.ts
            #EXTINF:4,
            ../shared/seg2.ts?token=a
            #EXTINF:4,
            /root/seg3.ts
            #EXTINF:4,
            https://other.example/seg4.ts
            """), url: "https://127.0.0.1/vod/movie/index.m3u8")
        #expect(p.segments.map(\.uri) == ["seg1.ts", "../shared/seg2.ts?token=a", "/root/seg3.ts", "https://other.example/seg4.ts"])
        #expect(p.segments.map(\.resolvedURI) == [
            "https://127.0.0.1/vod/movie/seg1.ts",
            "https://127.0.0.1/vod/shared/seg2.ts?token=a",
            "https://127.0.0.1/root/seg3.ts",
            "https://other.example/seg4.ts",
        ])
    }

    @Test("EXT-X-DISCONTINUITY marks only the next segment")
    func discontinuity() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXTINF:4,
            a.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            b.ts
            #EXTINF:4,
            c.ts
            """))
        #expect(p.segments.map(\.isDiscontinuity) == [false, true, false])
    }

    @Test("EXT-X-MAP applies until the next EXT-X-MAP")
    func mapScope() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXT-X-MAP:URI="init1.mp4"
            #EXTINF:4,
            a.m4s
            #EXTINF:4,
            b.m4s
            #EXT-X-MAP:URI="init2.mp4",BYTERANGE="720@0"
            #EXTINF:4,
            c.m4s
            """))
        #expect(p.segments.map { $0.map?.uri } == ["init1.mp4", "init1.mp4", "init2.mp4"])
        #expect(p.segments[0].map?.resolvedURI == "https://127.0.0.1/vod/movie/init1.mp4")
        #expect(p.segments[0].map?.byteRange == nil)
        #expect(p.segments[2].map?.byteRange == HLSByteRange(length: 720, offset: 0))
    }

    @Test("EXT-X-BYTERANGE offsets default to the end of the previous range of the same resource")
    func byteRanges() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXT-X-BYTERANGE:1000@0
            #EXTINF:4,
            all.ts
            #EXT-X-BYTERANGE:500
            #EXTINF:4,
            all.ts
            #EXT-X-BYTERANGE:250
            #EXTINF:4,
            all.ts
            #EXT-X-BYTERANGE:80@10
            #EXTINF:4,
            other.ts
            #EXTINF:4,
            whole.ts
            """))
        #expect(p.segments.map(\.byteRange) == [
            HLSByteRange(length: 1000, offset: 0), HLSByteRange(length: 500, offset: 1000),
            HLSByteRange(length: 250, offset: 1500), HLSByteRange(length: 80, offset: 10), nil,
        ])
    }

    @Test("EXT-X-KEY applies until the next key of the same KEYFORMAT; METHOD=NONE clears")
    func keys() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXTINF:4,
            clear.ts
            #EXT-X-KEY:METHOD=AES-128,URI="k1.key",IV=0x0123456789abcdef0123456789ABCDEF
            #EXTINF:4,
            a.ts
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://k",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXTINF:4,
            b.ts
            #EXT-X-KEY:METHOD=AES-128,URI="k2.key"
            #EXTINF:4,
            c.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:4,
            d.ts
            """))
        let keys = p.segments.map { $0.keys.map { $0.uri ?? "" } }
        #expect(keys == [[], ["k1.key"], ["k1.key", "skd://k"], ["k2.key", "skd://k"], []])
        #expect(p.segments[1].keys[0].method == "AES-128")
        #expect(p.segments[1].keys[0].initializationVector == "0123456789abcdef0123456789ABCDEF")
        #expect(p.segments[1].keys[0].resolvedURI == "https://127.0.0.1/vod/movie/k1.key")
        #expect(p.segments[2].keys[1].keyFormat == "com.apple.streamingkeydelivery")
        #expect(p.segments[2].keys[1].resolvedURI == "skd://k")
    }

    @Test("EXT-X-PROGRAM-DATE-TIME is an exact instant")
    func programDateTime() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:00.040+02:00
            #EXTINF:4,
            a.ts
            #EXTINF:4,
            b.ts
            """))
        let date = try #require(p.segments[0].programDateTime)
        // 2024-05-01T10:00:00.040Z is 1714557600.04 s after the epoch.
        #expect(date.secondsSinceEpoch == HLSTest.time("1714557600.04"))
        #expect(date.utcOffsetMinutes == 120)
        #expect(date.description == "2024-05-01T12:00:00.040+02:00")
        #expect(p.segments[1].programDateTime == nil)
    }

    @Test("EXT-X-DATERANGE attaches to the next segment with typed attributes")
    func dateRange() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXTINF:4,
            a.ts
            #EXT-X-DATERANGE:ID="ad-1",CLASS="com.example.ad",START-DATE="2024-05-01T12:00:04Z",DURATION=30.030,X-AD-ID="abc",SCTE35-OUT=0xFC30
            #EXTINF:4,
            b.ts
            """))
        #expect(p.segments[0].dateRanges.isEmpty)
        let range = try #require(p.segments[1].dateRanges.first)
        #expect(range.id == "ad-1")
        #expect(range.className == "com.example.ad")
        #expect(range.duration == HLSTest.time("30.03"))
        #expect(range.startDate?.description == "2024-05-01T12:00:04.000Z")
        #expect(range.attributes["X-AD-ID"] == .quotedString("abc"))
        #expect(range.attributes["SCTE35-OUT"] == .hexadecimal("FC30"))
    }

    @Test("EXT-X-GAP and the de facto cue tags")
    func gapAndCues() throws {
        let p = try HLSTest.media(HLSTest.mediaText("""
            #EXTINF:4,
            a.ts
            #EXT-X-CUE-OUT:30
            #EXTINF:4,
            ad1.ts
            #EXT-X-CUE-OUT-CONT:ElapsedTime=4,Duration=30
            #EXT-X-GAP
            #EXTINF:4,
            ad2.ts
            #EXT-X-CUE-OUT-CONT:8/30
            #EXTINF:4,
            ad3.ts
            #EXT-X-CUE-IN
            #EXTINF:4,
            b.ts
            """))
        #expect(p.segments[1].cueOut?.duration == MediaTime(seconds: 30))
        #expect(p.segments[2].cueOutContinuation?.elapsed == MediaTime(seconds: 4))
        #expect(p.segments[2].cueOutContinuation?.duration == MediaTime(seconds: 30))
        #expect(p.segments[3].cueOutContinuation?.elapsed == MediaTime(seconds: 8))
        #expect(p.segments.map(\.isGap) == [false, false, true, false, false])
        #expect(p.segments.map(\.isCueIn) == [false, false, false, false, true])
    }

    @Test("EXT-X-CUE-OUT also reads DURATION= and may be bare")
    func cueOutSpellings() throws {
        #expect(HLSCueTag(value: "DURATION=15.5").duration == HLSTest.time("15.5"))
        #expect(HLSCueTag(value: nil).duration == nil)
        let p = try HLSTest.media(HLSTest.mediaText("#EXT-X-CUE-OUT\n#EXTINF:4,\na.ts\n"))
        #expect(p.segments[0].cueOut == HLSCueTag(value: nil))
    }

    @Test("unknown tags and comments attach to the following segment, or to the header")
    func unknownLines() throws {
        let p = try HLSTest.media("""
            #EXTM3U
            # made by a packager
            #EXT-X-VENDOR-THING:1
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            # about a
            a.ts
            #EXT-X-BITRATE:800
            #EXTINF:4,
            b.ts
            #EXT-X-CUE-IN
            # the end
            #EXT-X-ENDLIST
            """)
        #expect(p.headerLines == ["# made by a packager", "#EXT-X-VENDOR-THING:1"])
        #expect(p.segments[0].unknownLines == ["# about a"])
        #expect(p.segments[1].unknownLines == ["#EXT-X-BITRATE:800"])
        #expect(p.trailingLines == ["#EXT-X-CUE-IN", "# the end"])
        #expect(p.hasEndList)
    }

    @Test("CRLF line ends, blank lines and surrounding spaces are tolerated")
    func lineEnds() throws {
        let p = try HLSTest.media("#EXTM3U\r\n#EXT-X-TARGETDURATION:4\r\n\r\n  #EXTINF:4,\r\n a.ts \r\n#EXT-X-ENDLIST")
        #expect(p.segments.map(\.uri) == ["a.ts"])
        #expect(p.hasEndList)
    }

    @Test("EXT-X-I-FRAMES-ONLY and EXT-X-PLAYLIST-TYPE:EVENT")
    func iFramesAndEvent() throws {
        let p = try HLSTest.media(HLSTest.mediaText("#EXT-X-I-FRAMES-ONLY\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:4,\na.ts\n"))
        #expect(p.isIFramesOnly)
        #expect(p.playlistType == .event)
        #expect(!p.isFinite)
    }

    @Test("total duration is the exact sum of EXTINF")
    func totalDuration() throws {
        let body = (0..<30).map { _ in "#EXTINF:3.003,\ns.ts\n" }.joined() + "#EXTINF:0.1,\nlast.ts\n"
        let p = try HLSTest.media(HLSTest.mediaText(body, target: 3))
        #expect(try p.totalDuration == HLSTest.time("90.19"))
        #expect(try p.segmentBoundaries.count == 32)
        #expect(try p.segmentBoundaries[2] == HLSTest.time("6.006"))
    }

    @Test("the playlist kind comes from its tags, and the typed entry points check it")
    func kinds() throws {
        let media = try HLSTest.parse(HLSTest.mediaText("#EXTINF:4,\na.ts\n"))
        guard case .media = media else { Issue.record("expected a media playlist"); return }
        let error = #expect(throws: HLSParseError.self) {
            try HLSTest.multivariant(HLSTest.mediaText("#EXTINF:4,\na.ts\n"))
        }
        #expect(error?.problem == .wrongPlaylistKind(expected: "multivariant", found: "media"))
    }
}

/// Every media-segment tag, one row each: the tag written before a segment, and what the parsed
/// segment then says (the segment before it never carries it).
@Suite("HLS media segment tags, one by one")
struct HLSSegmentTagTableTests {
    enum Effect: Sendable, CustomTestStringConvertible {
        case discontinuity, gap, cueIn, byteRange(UInt64, UInt64), mapURI(String), keyMethods([String])
        case programDateTime(String), dateRangeIDs([String]), cueOutDuration(String?), cueContinuationElapsed(String)
        case unknownLines([String])
        var testDescription: String { "\(self)" }
    }

    static let rows: [(String, Effect)] = [
        ("#EXT-X-DISCONTINUITY", .discontinuity),
        ("#EXT-X-GAP", .gap),
        ("#EXT-X-CUE-IN", .cueIn),
        ("#EXT-X-BYTERANGE:512@1024", .byteRange(512, 1024)),
        (#"#EXT-X-MAP:URI="init.mp4""#, .mapURI("https://127.0.0.1/vod/movie/init.mp4")),
        (#"#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="skd://k",KEYFORMAT="x""#, .keyMethods(["SAMPLE-AES-CTR"])),
        ("#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.5Z", .programDateTime("2024-01-01T00:00:00.500Z")),
        (#"#EXT-X-DATERANGE:ID="d",START-DATE="2024-01-01T00:00:00Z",END-ON-NEXT=YES,CLASS="c""#, .dateRangeIDs(["d"])),
        ("#EXT-X-CUE-OUT:12.5", .cueOutDuration("12.5")),
        ("#EXT-X-CUE-OUT", .cueOutDuration(nil)),
        ("#EXT-X-CUE-OUT-CONT:2.5/12.5", .cueContinuationElapsed("2.5")),
        ("#EXT-X-PART:DURATION=1,URI=\"p.mp4\"", .unknownLines(["#EXT-X-PART:DURATION=1,URI=\"p.mp4\""])),
        ("#EXT-X-SOMETHING-NEW:42", .unknownLines(["#EXT-X-SOMETHING-NEW:42"])),
        ("# just a comment", .unknownLines(["# just a comment"])),
    ]

    @Test("each tag applies to the segment after it", arguments: rows)
    func tag(line: String, effect: Effect) throws {
        let p = try HLSTest.media(HLSTest.mediaText("#EXTINF:4,\nfirst.ts\n\(line)\n#EXTINF:4,second\nsecond.ts\n"))
        let (before, segment) = (p.segments[0], p.segments[1])
        #expect(segment.title == "second")
        switch effect {
        case .discontinuity: #expect(segment.isDiscontinuity && !before.isDiscontinuity)
        case .gap: #expect(segment.isGap && !before.isGap)
        case .cueIn: #expect(segment.isCueIn && !before.isCueIn)
        case .byteRange(let length, let offset):
            #expect(segment.byteRange == HLSByteRange(length: length, offset: offset))
            #expect(before.byteRange == nil)
        case .mapURI(let uri):
            #expect(segment.map?.resolvedURI == uri)
            #expect(before.map == nil)
        case .keyMethods(let methods):
            #expect(segment.keys.map(\.method) == methods)
            #expect(before.keys.isEmpty)
        case .programDateTime(let text):
            #expect(segment.programDateTime?.description == text)
            #expect(before.programDateTime == nil)
        case .dateRangeIDs(let ids):
            #expect(segment.dateRanges.map(\.id) == ids)
            #expect(before.dateRanges.isEmpty)
        case .cueOutDuration(let duration):
            #expect(segment.cueOut != nil && before.cueOut == nil)
            #expect(segment.cueOut?.duration == duration.map(HLSTest.time))
        case .cueContinuationElapsed(let elapsed):
            #expect(segment.cueOutContinuation?.elapsed == HLSTest.time(elapsed))
            #expect(before.cueOutContinuation == nil)
        case .unknownLines(let lines):
            #expect(segment.unknownLines == lines)
            #expect(before.unknownLines.isEmpty)
        }
        // And the canonical text reads back the same.
        #expect(try HLSTest.media(p.text) == p)
    }
}
