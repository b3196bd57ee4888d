import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

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
}
