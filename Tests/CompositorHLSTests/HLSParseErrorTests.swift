import Testing
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

@Suite("HLS parse errors")
struct HLSParseErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let line: Int?
        let problem: HLSParseError.Problem
        var testDescription: String { name }
    }

    static let malformed: [Case] = [
        Case(name: "no #EXTM3U", text: "#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n", line: 1, problem: .missingHeader),
        Case(name: "empty input", text: "", line: 1, problem: .missingHeader),
        Case(name: "blank input", text: "\n\n", line: 1, problem: .missingHeader),
        Case(name: "EXTINF without a URI at the end", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXTINF:4,\n",
             line: 5, problem: .extinfWithoutURI),
        Case(name: "EXTINF followed by another EXTINF", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .extinfWithoutURI),
        Case(name: "URI without EXTINF", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\nb.ts\n",
             line: 5, problem: .uriWithoutEXTINF),
        Case(name: "bad attribute list", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .malformedAttributeList(tag: "EXT-X-KEY", reason: "unterminated quoted string for URI")),
        Case(name: "duplicate attribute", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI=\"a\",URI=\"b\"\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .duplicateAttribute(tag: "EXT-X-MAP", attribute: "URI")),
        Case(name: "missing required attribute", text: "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8\n",
             line: 2, problem: .missingAttribute(tag: "EXT-X-STREAM-INF", attribute: "BANDWIDTH")),
        Case(name: "KEY without URI", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-KEY:METHOD=AES-128\n",
             line: 5, problem: .missingAttribute(tag: "EXT-X-KEY", attribute: "URI")),
        Case(name: "attribute of the wrong type", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=\"1\"\nv.m3u8\n",
             line: 2, problem: .invalidAttributeValue(tag: "EXT-X-STREAM-INF", attribute: "BANDWIDTH", reason: "expected a decimal integer, found '\"1\"'")),
        Case(name: "enumerated value outside its set", text: "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"n\",DEFAULT=MAYBE\n",
             line: 2, problem: .invalidAttributeValue(tag: "EXT-X-MEDIA", attribute: "DEFAULT", reason: "'MAYBE' is not one of NO, YES")),
        Case(name: "BYTERANGE without offset and no previous range",
             text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-BYTERANGE:100\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .byteRangeWithoutPreviousRange),
        Case(name: "BYTERANGE without offset after a range of another resource",
             text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-BYTERANGE:100@0\n#EXTINF:4,\na.ts\n#EXTINF:4,\n#EXT-X-BYTERANGE:100\nb.ts\n",
             line: 7, problem: .byteRangeWithoutPreviousRange),
        Case(name: "BYTERANGE that is not n[@o]", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-BYTERANGE:10@x\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .invalidTagValue(tag: "EXT-X-BYTERANGE", reason: "expected <length>[@<offset>]")),
        Case(name: "EXTINF over the target duration", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXTINF:4.5,\nb.ts\n",
             line: 5, problem: .segmentExceedsTargetDuration(duration: MediaTime(value: 9, timescale: 2), targetDuration: 4)),
        Case(name: "EXTINF of many decimals over the target duration",
             text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.5000000000001,\na.ts\n",
             line: 3, problem: .segmentExceedsTargetDuration(duration: MediaTime(value: 9, timescale: 2), targetDuration: 4)),
        Case(name: "EXTINF over a target duration given after it",
             text: "#EXTM3U\n#EXTINF:4,\na.ts\n#EXTINF:6,\nb.ts\n#EXTINF:5,\nc.ts\n#EXT-X-TARGETDURATION:5\n",
             line: 4, problem: .segmentExceedsTargetDuration(duration: MediaTime(seconds: 6), targetDuration: 5)),
        Case(name: "negative EXTINF", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:-1,\na.ts\n",
             line: 3, problem: .invalidTagValue(tag: "EXTINF", reason: "expected a non-negative decimal duration")),
        Case(name: "EXTINF with an exponent", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:1e1,\na.ts\n",
             line: 3, problem: .invalidTagValue(tag: "EXTINF", reason: "expected a non-negative decimal duration")),
        Case(name: "media tag in a multivariant playlist",
             text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-TARGETDURATION:4\n",
             line: 4, problem: .mediaTagInMultivariantPlaylist(tag: "EXT-X-TARGETDURATION")),
        Case(name: "multivariant tag in a media playlist",
             text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"n\"\n",
             line: 5, problem: .multivariantTagInMediaPlaylist(tag: "EXT-X-MEDIA")),
        Case(name: "missing target duration", text: "#EXTM3U\n#EXTINF:4,\na.ts\n", line: 1, problem: .missingTargetDuration),
        Case(name: "duplicate target duration", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-TARGETDURATION:5\n",
             line: 3, problem: .duplicateTag(tag: "EXT-X-TARGETDURATION")),
        Case(name: "fractional target duration", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4.5\n",
             line: 2, problem: .invalidTagValue(tag: "EXT-X-TARGETDURATION", reason: "expected a decimal integer")),
        Case(name: "unknown playlist type", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:LIVE\n",
             line: 3, problem: .invalidTagValue(tag: "EXT-X-PLAYLIST-TYPE", reason: "expected EVENT or VOD")),
        Case(name: "bad program date-time", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PROGRAM-DATE-TIME:2024-13-01T00:00:00Z\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .invalidTagValue(tag: "EXT-X-PROGRAM-DATE-TIME", reason: "field out of range")),
        Case(name: "a value on a tag that takes none", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-DISCONTINUITY:1\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .invalidTagValue(tag: "EXT-X-DISCONTINUITY", reason: "takes no value")),
        Case(name: "STREAM-INF without a URI", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8\n",
             line: 2, problem: .streamInfWithoutURI),
        Case(name: "STREAM-INF at the end", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\n",
             line: 4, problem: .streamInfWithoutURI),
        Case(name: "URI in a multivariant playlist without STREAM-INF",
             text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\nw.m3u8\n", line: 4, problem: .uriWithoutStreamInf),
        Case(name: "DATERANGE without ID", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-DATERANGE:CLASS=\"x\"\n#EXTINF:4,\na.ts\n",
             line: 3, problem: .missingAttribute(tag: "EXT-X-DATERANGE", attribute: "ID")),
        Case(name: "second #EXTM3U", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTM3U\n", line: 3, problem: .duplicateTag(tag: "EXTM3U")),
        Case(name: "invalid UTF-8 in a URI", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na\u{FFFD}.ts\n",
             line: 4, problem: .invalidUTF8),
    ]

    @Test("malformed playlists name the line and the reason", arguments: malformed)
    func malformedPlaylists(_ c: Case) throws {
        var bytes = Array(c.text.utf8)
        if c.problem == .invalidUTF8 {
            // Replace the U+FFFD placeholder by a lone continuation byte.
            let placeholder = Array("\u{FFFD}".utf8)
            if let at = (0...(bytes.count - placeholder.count)).first(where: { Array(bytes[$0..<$0 + placeholder.count]) == placeholder }) {
                bytes.replaceSubrange(at..<at + placeholder.count, with: [0x80])
            }
        }
        let error = try #require(throws: HLSParseError.self) {
            try HLSPlaylistParser().parse(bytes, url: HLSTest.url)
        }
        #expect(error.problem == c.problem)
        #expect(error.line == c.line)
        #expect(error.category == .malformed)
        if let line = c.line {
            // The error carries the text of the line it names.
            let lines = c.text.split(separator: "\n", omittingEmptySubsequences: false)
            if line <= lines.count, c.problem != .invalidUTF8 {
                #expect(error.lineText == String(lines[line - 1]))
            }
        }
    }

    @Test("the message says where and why")
    func message() {
        let error = HLSTest.error("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n")
        #expect(error?.description == "line 3: EXTINF without a URI: '#EXTINF:4,'")
    }

    @Test("a byte order mark is refused")
    func byteOrderMark() {
        #expect(HLSTest.error("\u{FEFF}#EXTM3U\n#EXT-X-TARGETDURATION:4\n")?.problem == .byteOrderMark)
    }

    @Test("valid but unsupported features are their own category", arguments: [
        ("#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n#EXT-X-TARGETDURATION:4\n", 2),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n", 3),
        ("#EXTM3U\n#EXT-X-VERSION:99\n#EXT-X-TARGETDURATION:4\n", 2),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=QUANTUM,URI=\"k\"\n", 3),
    ])
    func unsupported(text: String, line: Int) {
        let error = HLSTest.error(text)
        #expect(error?.category == .unsupported)
        #expect(error?.line == line)
    }

    @Test("size limits are checked before parsing")
    func playlistLimit() {
        let text = HLSTest.mediaText(String(repeating: "#EXTINF:4,\na.ts\n", count: 100))
        let parser = HLSPlaylistParser(limits: HLSParseLimits(maximumPlaylistBytes: 1000))
        let error = #expect(throws: HLSParseError.self) { try parser.parse(Array(text.utf8), url: HLSTest.url) }
        #expect(error?.problem == .playlistTooLarge(bytes: text.utf8.count, limit: 1000))
        #expect(error?.line == nil)
        #expect(error?.category == .limitExceeded)
    }

    @Test("line length limits name the line")
    func lineLimit() {
        let text = HLSTest.mediaText("#EXTINF:4,\n" + String(repeating: "a", count: 300) + ".ts\n")
        let parser = HLSPlaylistParser(limits: HLSParseLimits(maximumLineBytes: 256))
        let error = #expect(throws: HLSParseError.self) { try parser.parse(Array(text.utf8), url: HLSTest.url) }
        #expect(error?.problem == .lineTooLong(bytes: 303, limit: 256))
        #expect(error?.line == 4)
        #expect(error?.category == .limitExceeded)
    }
}
