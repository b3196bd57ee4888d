import Testing
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

/// Playlists RFC 8216 and its successor draft allow (or that real packagers write within their
/// SHOULDs) that must read, and read back unchanged from the written text.
@Suite("HLS: every valid playlist reads")
struct HLSValidPlaylistTests {
    /// Parses `text`, writes it, parses the written text: the model must be the same and a second
    /// write the same text. Returns the first parse.
    static func roundTrip(_ text: String, url: String = HLSTest.url) throws -> HLSMediaPlaylist {
        let first = try HLSTest.media(text, url: url)
        let written = first.text
        let second = try HLSTest.media(written, url: url)
        #expect(second == first, "\(hlsFirstDifference(second, first))")
        #expect(second.text == written)
        return first
    }

    // MARK: EXTINF durations

    /// A `MediaTime` holds a timescale up to `Int32.max`: nine decimals always fit, and more fit when
    /// the value reduces (`0.0000000005` is `1/2000000000`). What does not fit is rounded to the
    /// nearest nanosecond, halves up, and the text is kept to be written back.
    @Test("EXTINF with any number of decimals: exact where a timescale holds it, else rounded to the nanosecond", arguments: [
        ("2.002002002002002", MediaTime(value: 2_002_002_002, timescale: 1_000_000_000), true),
        // Exact, but with more decimals (20) than the canonical form writes (18): the text is kept.
        ("1.0000000001", MediaTime(seconds: 1), true),
        ("1.99999999996", MediaTime(seconds: 2), true),
        ("0.33333333333333333333333", MediaTime(value: 333_333_333, timescale: 1_000_000_000), true),
        ("0.0000000005", MediaTime(value: 1, timescale: 2_000_000_000), false),
        ("0.00000095367431640625", MediaTime(value: 1, timescale: 1_048_576), true),
        ("4.0000000000000000000", MediaTime(seconds: 4), false),
        ("6.006000", MediaTime(value: 6006, timescale: 1000), false),
    ])
    func longDecimals(text: String, expected: MediaTime, keepsText: Bool) throws {
        let p = try Self.roundTrip(HLSTest.mediaText("#EXTINF:\(text),\na.ts\n#EXT-X-ENDLIST\n"))
        #expect(p.segments[0].duration == expected)
        #expect(p.segments[0].durationText == (keepsText ? text : nil))
        // A kept text is written as it was read; otherwise the canonical form is.
        let canonical = "#EXTINF:\(expected.hlsDecimalString),\n"
        #expect(p.text.contains(keepsText ? "#EXTINF:\(text),\n" : canonical))
    }

    @Test("a playlist of 15-decimal durations sums them at nanoseconds and writes them back as read")
    func longDecimalPlaylist() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXTINF:2.002002002002002,
            s1.ts
            #EXTINF:2.002002002002002,intro
            s2.ts
            #EXTINF:1.001001001001001,
            s3.ts
            #EXT-X-ENDLIST

            """
        let p = try Self.roundTrip(text)
        #expect(try p.totalDuration == MediaTime(value: 5_005_005_005, timescale: 1_000_000_000))
        #expect(p.text == text)
        // Changing a duration drops the text it was rounded from.
        var edited = p
        edited.segments[0].duration = MediaTime(seconds: 2)
        #expect(edited.segments[0].durationText == nil)
        #expect(edited.text.contains("#EXTINF:2,\ns1.ts"))
    }

    /// The RFC's `decimal-floating-point` is "characters from the set [0..9] and '.'": a leading or
    /// trailing point is such a number, as a missing comma is tolerated (`#EXTINF:5`).
    @Test("EXTINF with a leading or trailing point, with or without the comma", arguments: [
        ("#EXTINF:.5,", MediaTime(value: 1, timescale: 2)),
        ("#EXTINF:.5", MediaTime(value: 1, timescale: 2)),
        ("#EXTINF:.5,title", MediaTime(value: 1, timescale: 2)),
        ("#EXTINF:5.,", MediaTime(seconds: 5)),
        ("#EXTINF:5", MediaTime(seconds: 5)),
        ("#EXTINF:0.5,", MediaTime(value: 1, timescale: 2)),
    ])
    func pointSpellings(line: String, expected: MediaTime) throws {
        let p = try Self.roundTrip(HLSTest.mediaText("\(line)\na.ts\n"))
        #expect(p.segments[0].duration == expected)
    }

    @Test("EXTINF values that are not a decimal-floating-point are malformed, naming the line", arguments: [
        "#EXTINF:.,", "#EXTINF:,", "#EXTINF:1.2.3,", "#EXTINF:1..2,", "#EXTINF:+1,", "#EXTINF: 1,",
    ])
    func notDecimals(line: String) {
        let error = HLSTest.error(HLSTest.mediaText("\(line)\na.ts\n"))
        #expect(error?.line == 3)
        #expect(error?.category == .malformed)
        #expect(error?.problem == .invalidTagValue(tag: "EXTINF", reason: "expected a non-negative decimal duration"))
    }

    // MARK: Vendor cue tags

    /// MediaConvert writes `#EXT-X-CUE-IN:4,SpliceType=VOD_DAI`, Envivio `#EXT-X-CUE-IN:ID=…`: the
    /// tag is known, its value is not standardised, so it is kept as written.
    @Test("EXT-X-CUE-IN with a value is kept verbatim and written back", arguments: [
        "4,SpliceType=VOD_DAI", "ID=1234", #"ID="break-7",DURATION=30"#,
    ])
    func cueInValues(value: String) throws {
        let p = try Self.roundTrip(HLSTest.mediaText("""
            #EXTINF:4,
            a.ts
            #EXT-X-CUE-OUT:4
            #EXTINF:4,
            ad.ts
            #EXT-X-CUE-IN:\(value)
            #EXTINF:4,
            b.ts
            #EXT-X-ENDLIST

            """))
        #expect(p.segments.map(\.isCueIn) == [false, false, true])
        #expect(p.segments[2].cueIn == HLSCueTag(value: value))
        #expect(p.text.contains("#EXT-X-CUE-IN:\(value)\n#EXTINF:4,\nb.ts\n"))
    }

    // MARK: Comments between EXT-X-STREAM-INF and its URI

    @Test("comments and unknown tags between EXT-X-STREAM-INF and its URI are kept with the variant")
    func streamInfComments() throws {
        let text = """
            #EXTM3U
            # ladder
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            # 360p, made by the packager
            #EXT-X-VENDOR-NOTE:rung=1
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            high/index.m3u8
            """
        let p = try HLSTest.multivariant(text)
        #expect(p.variants.map(\.uri) == ["low/index.m3u8", "high/index.m3u8"])
        #expect(p.variants[0].leadingLines == ["# ladder", "# 360p, made by the packager", "#EXT-X-VENDOR-NOTE:rung=1"])
        #expect(p.variants[0].resolvedURI == "https://127.0.0.1/vod/movie/low/index.m3u8")
        #expect(p.variants[1].leadingLines.isEmpty)
        let again = try HLSTest.multivariant(p.text)
        #expect(again == p)
        #expect(again.text == p.text)
    }

    @Test("a known tag between EXT-X-STREAM-INF and its URI is still an error naming the STREAM-INF line")
    func streamInfThenKnownTag() {
        let error = HLSTest.error("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n# note\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"n\"\nv.m3u8\n")
        #expect(error?.problem == .streamInfWithoutURI)
        #expect(error?.line == 2)
    }

    // MARK: Date-times without a zone

    /// RFC 8216 4.3.2.6: the date-time SHOULD indicate a time zone. One without is read as UTC and
    /// written back without a zone, so the playlist says what it said.
    @Test("EXT-X-PROGRAM-DATE-TIME without a zone is read as UTC and written back without one")
    func programDateTimeWithoutZone() throws {
        let p = try Self.roundTrip(HLSTest.mediaText("""
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:00.040
            #EXTINF:4,
            a.ts
            #EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:04Z
            #EXTINF:4,
            b.ts

            """))
        let zoneless = try #require(p.segments[0].programDateTime)
        let utc = try #require(p.segments[1].programDateTime)
        #expect(zoneless.utcOffsetMinutes == nil)
        #expect(zoneless.secondsSinceEpoch == HLSTest.time("1714564800.04"))
        #expect(try utc.secondsSinceEpoch.subtracting(zoneless.secondsSinceEpoch) == HLSTest.time("3.96"))
        #expect(p.text.contains("#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:00.040\n"))
        #expect(p.text.contains("#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:04.000Z\n"))
    }

    @Test("EXT-X-DATERANGE dates without a zone read as UTC too")
    func dateRangeWithoutZone() throws {
        let p = try Self.roundTrip(HLSTest.mediaText("""
            #EXT-X-DATERANGE:ID="d",START-DATE="2024-05-01T12:00:00",DURATION=30
            #EXTINF:4,
            a.ts

            """))
        #expect(p.segments[0].dateRanges.first?.startDate == HLSDateTime(secondsSinceEpoch: HLSTest.time("1714564800"), utcOffsetMinutes: nil))
    }

    // MARK: Tags that may appear once

    /// RFC 8216 4.3.5: EXT-X-INDEPENDENT-SEGMENTS and EXT-X-START "MUST NOT appear more than once in
    /// a Playlist. If a tag appears more than once, clients MUST fail to parse the Playlist." The
    /// parser has no warnings, so both are refused the same way, naming the second line.
    @Test("a second EXT-X-START or EXT-X-INDEPENDENT-SEGMENTS is refused alike, in both kinds of playlist", arguments: [
        ("#EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-INDEPENDENT-SEGMENTS"),
        ("#EXT-X-START:TIME-OFFSET=2", "EXT-X-START"),
    ])
    func duplicates(line: String, tag: String) {
        let media = HLSTest.error("#EXTM3U\n#EXT-X-TARGETDURATION:4\n\(line)\n#EXTINF:4,\na.ts\n\(line)\n")
        let multivariant = HLSTest.error("#EXTM3U\n\(line)\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n\(line)\n")
        for (error, number) in [(media, 6), (multivariant, 5)] {
            #expect(error?.problem == .duplicateTag(tag: tag))
            #expect(error?.line == number)
            #expect(error?.lineText == line)
            #expect(error?.category == .malformed)
        }
    }
}
