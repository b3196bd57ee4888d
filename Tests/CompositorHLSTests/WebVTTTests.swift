import CompositorCore
import Testing
@testable import CompositorHLS

@Suite("WebVTT")
struct WebVTTTests {
    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    /// A subtitle segment as packagers write them: a byte order mark, CRLF line ends, the
    /// timestamp map in the header, a note, a style block, cues with and without identifiers and
    /// settings, a payload of two lines, hours beyond 99.
    @Test("a segment reads to its map, blocks and cues; written back, it reads the same")
    func readsASegment() throws {
        let text = "\u{FEFF}WEBVTT - English\r\nX-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:900000\r\n\r\n"
            + "NOTE made by hand\r\n\r\nSTYLE\r\n::cue { color: yellow }\r\n\r\n"
            + "1\r\n00:00:00.500 --> 00:00:01.500 line:90% align:start\r\nfirst\r\nsecond line\r\n\r\n"
            + "00:01.000 --> 00:02.250\r\nno identifier\r\n\r\n"
            + "late\r\n123:59:59.999 --> 124:00:00.000\r\nlast\r\n"
        let document = try WebVTTDocument(parsing: Array(text.utf8))
        #expect(document.timestampMap == WebVTTDocument.TimestampMap(mpegts: 900_000, local: .zero))
        #expect(document.headerBlocks == ["STYLE\n::cue { color: yellow }"])
        #expect(document.cues == [
            WebVTTDocument.Cue(identifier: "1", start: Self.ms(500), end: Self.ms(1500), settings: "line:90% align:start", text: "first\nsecond line"),
            WebVTTDocument.Cue(start: Self.ms(1000), end: Self.ms(2250), text: "no identifier"),
            WebVTTDocument.Cue(identifier: "late", start: Self.ms(((123 * 60 + 59) * 60 + 59) * 1000 + 999), end: Self.ms(124 * 3_600_000), text: "last"),
        ])
        #expect(try WebVTTDocument(parsing: Array(document.text.utf8)) == document)
        #expect(document.text.hasPrefix("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\nSTYLE\n"))
    }

    /// W3C's parser ends a cue's text at a line holding "-->": the next cue's timing, its blank
    /// line left out.
    @Test("a cue without the blank line before it is a cue of its own")
    func readsACueWithoutABlankLineBefore() throws {
        let document = try WebVTTDocument(parsing: Array("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n00:02.000 --> 00:03.000\nthere\n".utf8))
        #expect(document.cues == [
            WebVTTDocument.Cue(start: .zero, end: Self.ms(1000), text: "hi"),
            WebVTTDocument.Cue(start: Self.ms(2000), end: Self.ms(3000), text: "there"),
        ])
    }

    @Test("an empty segment: the signature alone")
    func readsAnEmptySegment() throws {
        #expect(try WebVTTDocument(parsing: Array("WEBVTT\n".utf8)) == WebVTTDocument())
        #expect(try WebVTTDocument(parsing: Array("WEBVTT".utf8)) == WebVTTDocument())
        #expect(WebVTTDocument().text == "WEBVTT\n")
    }

    /// Each refusal names the line and says why; nothing is dropped silently.
    @Test("malformed files are refused, naming the line", arguments: [
        ("", 1, WebVTTParseError.Problem.notWebVTT),
        ("WEBVTTX\n", 1, .notWebVTT),
        ("1\n00:00.000 --> 00:01.000\nhi\n", 1, .notWebVTT),
        ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:abc,LOCAL:00:00:00.000\n", 2, .malformedTimestampMap),
        ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000\n", 2, .malformedTimestampMap),
        ("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:1234567890123456789,LOCAL:00:00:00.000\n", 2, .malformedTimestampMap),
        ("WEBVTT\n\n00:00:0.500 --> 00:00:01.500\nhi\n", 3, .malformedTiming),
        ("WEBVTT\n\n00:00:00.500 -> 00:00:01.500\nhi\n", 3, .textWithoutTiming),
        ("WEBVTT\n\nid\n00:60.000 --> 01:00.000\nhi\n", 4, .malformedTiming),
        ("WEBVTT\n\n00:00:00.50 --> 00:00:01.500\nhi\n", 3, .malformedTiming),
        ("WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nhi\n", 3, .endsBeforeItStarts),
        ("WEBVTT\n\njust text\n", 3, .textWithoutTiming),
        ("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n\nSTYLE\n::cue {}\n", 6, .textWithoutTiming),
    ])
    func refusesMalformedFiles(_ text: String, line: Int, problem: WebVTTParseError.Problem) {
        #expect(throws: WebVTTParseError.self) { try WebVTTDocument(parsing: Array(text.utf8)) }
        do {
            _ = try WebVTTDocument(parsing: Array(text.utf8))
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.problem == problem, "\(error)")
            #expect(error.description.hasPrefix("line \(line): "))
        }
    }

    @Test("times are written as hh:mm:ss.ttt, to the nearest millisecond, never below 0")
    func writesTimestamps() {
        #expect(WebVTTDocument.timestamp(.zero) == "00:00:00.000")
        #expect(WebVTTDocument.timestamp(MediaTime(value: 90_045, timescale: 90_000)) == "00:00:01.001")
        #expect(WebVTTDocument.timestamp(MediaTime(value: 3_723_004, timescale: 1000)) == "01:02:03.004")
        #expect(WebVTTDocument.timestamp(MediaTime(value: -5, timescale: 1)) == "00:00:00.000")
    }
}
