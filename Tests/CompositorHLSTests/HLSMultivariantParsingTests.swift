import Testing
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

@Suite("HLS multivariant playlist parsing")
struct HLSMultivariantParsingTests {
    static let text = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-START:TIME-OFFSET=10
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Movie"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
        # the low rung
        #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=650000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=29.970,AUDIO="aac",CLOSED-CAPTIONS="cc"
        low/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2400000,RESOLUTION=1280x720,HDCP-LEVEL=NONE,CLOSED-CAPTIONS=NONE
        https://other.example/high/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=120000,RESOLUTION=640x360,URI="low/iframes.m3u8"
        """

    @Test("reads variants, renditions, I-frame streams and header tags")
    func readsEverything() throws {
        let p = try HLSTest.multivariant(Self.text, url: "https://127.0.0.1/vod/master.m3u8")
        #expect(p.version == 6)
        #expect(p.hasIndependentSegments)
        #expect(p.start?.timeOffset == MediaTime(seconds: 10))
        #expect(p.variants.count == 2)
        let low = p.variants[0]
        #expect(low.bandwidth == 800_000)
        #expect(low.averageBandwidth == 650_000)
        #expect(low.codecs == ["avc1.4d401e", "mp4a.40.2"])
        #expect(low.resolution?.width == 640 && low.resolution?.height == 360)
        #expect(low.frameRate == "29.970")
        #expect(low.audioGroup == "aac")
        #expect(low.uri == "low/index.m3u8")
        #expect(low.resolvedURI == "https://127.0.0.1/vod/low/index.m3u8")
        #expect(low.leadingLines == ["# the low rung"])
        #expect(p.variants[1].resolvedURI == "https://other.example/high/index.m3u8")
        #expect(p.variants[1].attributes["CLOSED-CAPTIONS"] == .enumeratedString("NONE"))
        #expect(p.renditions.map(\.type) == ["AUDIO", "CLOSED-CAPTIONS"])
        #expect(p.renditions[0].groupID == "aac")
        #expect(p.renditions[0].name == "English")
        #expect(p.renditions[0].language == "en")
        #expect(p.renditions[0].isDefault)
        #expect(p.renditions[0].resolvedURI == "https://127.0.0.1/vod/audio/en.m3u8")
        #expect(p.renditions[1].resolvedURI == nil)
        #expect(p.iFrameStreams.count == 1)
        #expect(p.iFrameStreams[0].bandwidth == 120_000)
        #expect(p.iFrameStreams[0].resolvedURI == "https://127.0.0.1/vod/low/iframes.m3u8")
        #expect(p.unknownLines == [#"#EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Movie""#])
    }

    /// Without a name a source plays the highest `BANDWIDTH`; of equals, the first listed (ffmpeg
    /// lists a video variant and its audio renditions again as variants, all at one bandwidth).
    @Test("plays the highest bandwidth, the first of equals, or the variant named")
    func choosesTheVariantItPlays() throws {
        let p = try HLSTest.multivariant("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=70400,RESOLUTION=160x90
            v/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=70400,CODECS="mp4a.40.2"
            en/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=9000,RESOLUTION=80x45
            lo/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=70400,CODECS="mp4a.40.2"
            fr/index.m3u8
            """, url: "https://127.0.0.1/vod/master.m3u8")
        #expect(p.variant(playing: nil)?.uri == "v/index.m3u8")
        #expect(p.variant(playing: "lo/index.m3u8")?.uri == "lo/index.m3u8")
        #expect(p.variant(playing: "nothing.m3u8") == nil)
    }

    @Test("writes and reads back the same playlist")
    func roundTrip() throws {
        let p = try HLSTest.multivariant(Self.text)
        let again = try HLSTest.multivariant(p.text)
        #expect(again == p)
        #expect(again.text == p.text)
    }
}

@Suite("HLS attribute lists")
struct HLSAttributeListTests {
    @Test("types each value by its spelling", arguments: [
        (#"A="x,y""#, HLSAttributeValue.quotedString("x,y")),
        ("A=0x1aF", .hexadecimal("1aF")),
        ("A=0X00", .hexadecimal("00")),
        ("A=18446744073709551615", .decimalInteger(UInt64.max)),
        ("A=0", .decimalInteger(0)),
        ("A=29.970", .decimalFloat("29.970")),
        ("A=-1.5", .decimalFloat("-1.5")),
        ("A=-3", .decimalFloat("-3")),
        ("A=1920x1080", .resolution(width: 1920, height: 1080)),
        ("A=AES-128", .enumeratedString("AES-128")),
        ("A=YES", .enumeratedString("YES")),
        ("A=1.2.3", .enumeratedString("1.2.3")),
        (#"A="""#, .quotedString("")),
    ])
    func lexes(text: String, expected: HLSAttributeValue) throws {
        let list = try HLSAttributeList(parsing: text)
        #expect(list["A"] == expected)
        // Written back exactly as read.
        #expect(list.description == text.replacingOccurrences0x())
    }

    @Test("keeps order and reads several attributes")
    func several() throws {
        let list = try HLSAttributeList(parsing: #"BANDWIDTH=1,CODECS="a,b",RESOLUTION=2x3, NAME=X"#)
        #expect(list.names == ["BANDWIDTH", "CODECS", "RESOLUTION", "NAME"])
        #expect(list.description == #"BANDWIDTH=1,CODECS="a,b",RESOLUTION=2x3,NAME=X"#)
    }

    @Test("signed floats are kept exact", arguments: [("-0.5", "-1/2"), ("12.345", "2469/200")])
    func exactFloats(text: String, rational: String) throws {
        let list = try HLSAttributeList(parsing: "T=\(text)")
        #expect(list["T"]?.exactTime == HLSTest.time(rational))
    }

    @Test("rejects what the grammar does not allow", arguments: [
        ("", "empty attribute list"),
        ("A", "has no '='"),
        ("A=", "empty value"),
        ("=1", "missing attribute name"),
        (#"A="open"#, "unterminated"),
        ("a=1", "attribute name"),
        (#"A="x"B=2"#, "expected ','"),
        ("A=1,", "trailing ','"),
        ("A=x y", "unexpected character"),
    ])
    func rejects(text: String, reason: String) {
        let error = #expect(throws: HLSParseError.Problem.self) { try HLSAttributeList(parsing: text, tag: "EXT-X-T") }
        guard case .malformedAttributeList(let tag, let message)? = error else {
            Issue.record("expected malformedAttributeList, got \(String(describing: error))")
            return
        }
        #expect(tag == "EXT-X-T")
        #expect(message.contains(reason))
    }

    @Test("a duplicate attribute is its own error")
    func duplicate() {
        #expect(throws: HLSParseError.Problem.duplicateAttribute(tag: "EXT-X-T", attribute: "A")) {
            try HLSAttributeList(parsing: "A=1,B=2,A=3", tag: "EXT-X-T")
        }
    }

    @Test("an integer past 64 bits is an invalid value")
    func overflow() {
        #expect(throws: HLSParseError.Problem.self) { try HLSAttributeList(parsing: "A=18446744073709551616") }
    }
}

private extension String {
    /// The writer spells the hexadecimal prefix `0x`.
    func replacingOccurrences0x() -> String {
        hasPrefix("A=0X") ? "A=0x" + dropFirst(4) : self
    }
}
