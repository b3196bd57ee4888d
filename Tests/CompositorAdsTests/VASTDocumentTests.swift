@testable import CompositorAds
import CompositorCore
import Testing

/// Reading VAST: what a document says, kept exactly; what it cannot say, refused with the VAST
/// error code an ad server expects and the line to blame.
@Suite struct VASTDocumentTests {
    static let pod = """
        <?xml version="1.0" encoding="UTF-8"?>
        <VAST version="4.2">
          <Ad id="second" sequence="2">
            <InLine>
              <AdSystem>test</AdSystem><AdTitle>Second</AdTitle>
              <Impression><![CDATA[ http://127.0.0.1/imp/2 ]]></Impression>
              <Error>http://127.0.0.1/err/2?c=[ERRORCODE]</Error>
              <Creatives><Creative id="c2" adId="A2">
                <UniversalAdId idRegistry="ad-id.org">CNPA0484000H</UniversalAdId>
                <Linear skipoffset="25%">
                  <Duration>00:00:10.010</Duration>
                  <TrackingEvents>
                    <Tracking event="start">http://127.0.0.1/t/2/start</Tracking>
                    <Tracking event="progress" offset="00:00:05.5">http://127.0.0.1/t/2/p</Tracking>
                    <Tracking event="acceptInvitationLinearX">http://127.0.0.1/t/2/unknown</Tracking>
                  </TrackingEvents>
                  <MediaFiles>
                    <MediaFile delivery="progressive" type="video/mp4" width="1280" height="720" bitrate="2000" codec="avc1.64001f">
                      http://127.0.0.1/ads/2.mp4
                    </MediaFile>
                    <Mezzanine delivery="progressive" type="video/mp4">http://127.0.0.1/ads/2-mezz.mp4</Mezzanine>
                  </MediaFiles>
                </Linear>
              </Creative></Creatives>
            </InLine>
          </Ad>
          <Ad id="first" sequence="1">
            <InLine><AdSystem>test</AdSystem><AdTitle>First</AdTitle>
              <Creatives><Creative><Linear><Duration>00:00:15</Duration>
                <MediaFiles><MediaFile delivery="streaming" type="application/x-mpegURL">http://127.0.0.1/ads/1.m3u8</MediaFile></MediaFiles>
              </Linear></Creative></Creatives>
            </InLine>
          </Ad>
          <Ad id="buffet">
            <InLine><AdSystem>test</AdSystem><AdTitle>Buffet</AdTitle>
              <Creatives><Creative><NonLinearAds><NonLinear/></NonLinearAds></Creative></Creatives>
            </InLine>
          </Ad>
        </VAST>
        """

    @Test func aPodIsOrderedBySequenceAndTheBuffetIsTheRest() throws {
        let document = try VASTDocument(parsing: Array(Self.pod.utf8), source: "pod.xml")
        #expect(document.version == "4.2")
        #expect(document.pod.map(\.id) == ["first", "second"])
        #expect(document.buffet.map(\.id) == ["buffet"])
    }

    @Test func valuesAreKeptExactly() throws {
        let second = try #require(try VASTDocument(parsing: Array(Self.pod.utf8)).ads.first)
        let linear = try #require(second.linear)
        #expect(linear.duration == MediaTime(value: 10010, timescale: 1000))
        #expect(linear.skipOffset == .fraction(basisPoints: 2500))
        #expect(linear.skipOffset?.time(inAdOf: linear.duration!) == MediaTime(value: 10010, timescale: 4000))  // a quarter of 10.010 s, exact
        #expect(second.impressions == ["http://127.0.0.1/imp/2"])  // CDATA, trimmed
        #expect(second.errors == ["http://127.0.0.1/err/2?c=[ERRORCODE]"])
        #expect(linear.tracking == [VASTTracking(event: .start, url: "http://127.0.0.1/t/2/start"),
                                    VASTTracking(event: .progress(.time(MediaTime(value: 55, timescale: 10))), url: "http://127.0.0.1/t/2/p")])
        #expect(linear.mediaFiles.map(\.url) == ["http://127.0.0.1/ads/2.mp4"])
        #expect(linear.mediaFiles.first?.codec == "avc1.64001f")
        #expect(linear.mediaFiles.first?.bitrate == 2000)
        #expect(linear.mezzanines == ["http://127.0.0.1/ads/2-mezz.mp4"])
        #expect(linear.universalAdIDs == [VASTUniversalAdID(registry: "ad-id.org", value: "CNPA0484000H")])
        #expect(linear.creativeID == "c2" && linear.creativeAdID == "A2")
    }

    @Test func whatIsLeftOutIsSaidWithItsLine() throws {
        let document = try VASTDocument(parsing: Array(Self.pod.utf8))
        #expect(document.diagnostics.map(\.line) == [15, 35])
        #expect(document.diagnostics[0].message.contains("acceptInvitationLinearX"))
        #expect(document.diagnostics[1].message.contains("no Linear creative"))
        #expect(document.ads[2].linear == nil)
    }

    @Test func wrappersInEachForm() throws {
        let xml = """
            <VAST version="3.0">
              <Ad id="w"><Wrapper followAdditionalWrappers="false" allowMultipleAds="1" fallbackOnNoAd="true">
                <AdSystem>x</AdSystem><VASTAdTagURI>  http://127.0.0.1/next.xml  </VASTAdTagURI>
                <Impression>http://127.0.0.1/w/imp</Impression>
              </Wrapper></Ad>
              <Ad id="legacy"><Wrapper><VASTAdTagURL><URL>http://127.0.0.1/legacy.xml</URL></VASTAdTagURL></Wrapper></Ad>
            </VAST>
            """
        let document = try VASTDocument(parsing: Array(xml.utf8))
        #expect(document.ads.map(\.wrapper) == [
            VASTWrapper(adTagURI: "http://127.0.0.1/next.xml", followAdditionalWrappers: false, allowMultipleAds: true, fallbackOnNoAd: true),
            VASTWrapper(adTagURI: "http://127.0.0.1/legacy.xml"),
        ])
        #expect(document.ads[0].impressions == ["http://127.0.0.1/w/imp"])
    }

    @Test(arguments: [
        ("<VAST version=\"4.0\"><Ad>", VASTErrorCode.xmlParsing),
        ("", .xmlParsing),
        ("<!DOCTYPE v [<!ENTITY a \"aaaaaaaaaa\">]><VAST version=\"4.0\">&a;</VAST>", .xmlParsing),
        ("<VideoAdServingTemplate><Ad/></VideoAdServingTemplate>", .versionNotSupported),
        ("<VAST version=\"1.0\"/>", .versionNotSupported),
        ("<VAST/>", .schemaValidation),
        ("<VMAP/>", .schemaValidation),
    ])
    func refusedWithItsCode(xml: String, code: VASTErrorCode) {
        #expect(throws: VASTError.self) { try VASTDocument(parsing: Array(xml.utf8), source: "doc.xml") }
        do { _ = try VASTDocument(parsing: Array(xml.utf8), source: "doc.xml") } catch {
            #expect(error.code == code)
            #expect(error.document == "doc.xml")
        }
    }

    /// An `Ad` the document gets wrong is kept in its place as malformed, with its 101 and its own
    /// `Error` URLs; the document and its other ads read as before.
    @Test(arguments: [
        ("<Ad id=\"m\" sequence=\"2\"><InLine><Error>http://127.0.0.1/e</Error><Creatives><Creative><Linear/></Creative></Creatives></InLine></Ad>",
         "an InLine Linear without Duration"),
        ("<Ad id=\"m\" sequence=\"2\"><InLine><Error>http://127.0.0.1/e</Error><Creatives><Creative><Linear><Duration>0:0:5</Duration></Linear></Creative></Creatives></InLine></Ad>",
         "Duration '0:0:5' is not HH:MM:SS or HH:MM:SS.mmm"),
        ("<Ad id=\"m\" sequence=\"2\"><InLine><Error>http://127.0.0.1/e</Error><Creatives><Creative><Linear><Duration>00:00:00.000</Duration></Linear></Creative></Creatives></InLine></Ad>",
         "Duration '00:00:00.000' is 0: a linear ad lasts some time"),
        ("<Ad id=\"m\" sequence=\"2\"><Wrapper><AdSystem>x</AdSystem><Error>http://127.0.0.1/e</Error></Wrapper></Ad>", "a Wrapper without VASTAdTagURI"),
    ])
    func aMalformedAdIsKeptWithItsError(ad: String, reason: String) throws {
        let xml = "<VAST version=\"4.0\">" + AdDocuments.inline("a", sequence: 1) + "\n" + ad + "</VAST>"
        let document = try VASTDocument(parsing: Array(xml.utf8), source: "doc.xml")
        #expect(document.pod.map(\.id) == ["a", "m"])
        #expect(document.ads[1].kind == .malformed(VASTError(code: .schemaValidation, document: "doc.xml", line: 8, reason: reason)))
        #expect(document.ads[1].errors == ["http://127.0.0.1/e"])
        #expect(document.ads[0].linear?.duration == MediaTime(seconds: 10))
    }

    @Test func anEmptyResponseIsADocumentWithNoAds() throws {
        let document = try VASTDocument(parsing: Array("<VAST version=\"4.1\"><Error>http://127.0.0.1/no-ad?c=[ERRORCODE]</Error></VAST>".utf8))
        #expect(document.ads.isEmpty)
        #expect(document.errors == ["http://127.0.0.1/no-ad?c=[ERRORCODE]"])
    }

    @Test func limitsRefuseBeforeReading() throws {
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        #expect(throws: VASTError.self) { try VASTDocument(parsing: Array(deep.utf8)) }
        let large = "<VAST version=\"4.0\">" + String(repeating: " ", count: 2000) + "</VAST>"
        do { _ = try VASTDocument(parsing: Array(large.utf8), limits: XMLReadLimits(maximumBytes: 1000)) } catch {
            #expect(error.code == .xmlParsing)
            #expect(error.reason.contains("limit of 1000"))
        }
    }

    @Test func offsetsAndClockTimes() {
        #expect(VASTOffset(parsing: "00:00:05") == .time(MediaTime(seconds: 5)))
        #expect(VASTOffset(parsing: "01:02:03.25") == .time(MediaTime(value: 372325, timescale: 100)))
        #expect(VASTOffset(parsing: "12.5%") == .fraction(basisPoints: 1250))
        #expect(VASTOffset(parsing: "100%") == .fraction(basisPoints: 10000))
        for bad in ["101%", "5", "00:60:00", "00:00:5", "a%", "-1%", "00:00:05.", ""] { #expect(VASTOffset(parsing: bad) == nil, "\(bad)") }
        #expect(VASTOffset.fraction(basisPoints: 1250).description == "12.50%")
        #expect(VASTOffset.time(MediaTime(value: 372325, timescale: 100)).description == "01:02:03.250")
    }
}

/// Ad documents are UTF-8: a byte that is not is refused (code 100) with its offset and line,
/// before Foundation's XMLParser (which traps on such a name on Linux) sees it.
@Suite struct VASTEncodingTests {
    @Test(arguments: [
        ([0xCA], 26), ([0xC0, 0x80], 26), ([0xED, 0xA0, 0x80], 26), ([0xF4, 0x90, 0x80, 0x80], 26), ([0xE2, 0x82], 26), ([0xFF], 26),
    ] as [([UInt8], Int)])
    func notUTF8IsRefusedWhereItIs(bad: [UInt8], offset: Int) {
        let bytes = Array("<VAST version=\"4.0\">\n  <Ad".utf8) + bad + Array("vent/></VAST>".utf8)
        do {
            _ = try VASTDocument(parsing: bytes, source: "x.xml")
            Issue.record("read")
        } catch {
            #expect(error.code == .xmlParsing)
            #expect(error.line == 2)
            #expect(error.reason == "not UTF-8 at byte \(offset) (ad documents are read as UTF-8)")
        }
    }

    /// XML 1.0 Appendix F: a document in UTF-16 or UTF-32 without a byte order mark, or declaring
    /// UTF-7, spells `<!ENTITY` in other bytes; XMLParser decodes them, so the entity check never
    /// saw the declaration (the entity vanished from a URL). Refused before it.
    @Test("UTF-16 and UTF-32 without a byte order mark, and UTF-7, are refused before the entity check", arguments: [
        ("UTF-16BE", "not well-formed"), ("UTF-16LE", "not well-formed"), ("UTF-32BE", "not well-formed"), ("UTF-7", "refused"),
    ])
    func otherEncodingsRefused(encoding: String, kind: String) throws {
        let text = "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<!DOCTYPE VAST [<!ENTITY x \"y\">]>\n<VAST version=\"4.0\"/>"
        let bytes: [UInt8]
        switch encoding {
        case "UTF-16BE": bytes = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case "UTF-16LE": bytes = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case "UTF-32BE": bytes = text.unicodeScalars.flatMap { [0, 0, UInt8($0.value >> 8), UInt8($0.value & 0xFF)] }
        default: bytes = Array(text.replacingOccurrences(of: "<!ENTITY", with: "+ADw-!ENTITY").utf8)
        }
        do {
            _ = try VASTDocument(parsing: bytes, source: "x.xml")
            Issue.record("read")
        } catch {
            #expect(error.code == .xmlParsing)
            #expect(kind == "refused" ? error.reason == "the document declares the encoding 'UTF-7': ad documents are read as UTF-8 (or an encoding that writes ASCII as ASCII)"
                                      : error.reason.hasPrefix("a NUL byte at byte "), "\(error.reason)")
        }
        #expect(XMLTree.readsAsUTF8("ISO-8859-1") && XMLTree.readsAsUTF8("windows-1252") && XMLTree.readsAsUTF8("utf-8"))
        #expect(!XMLTree.readsAsUTF8("UTF-16") && !XMLTree.readsAsUTF8("EBCDIC-US") && !XMLTree.readsAsUTF8("windows-1259"))
        #expect(XMLTree.declaredEncoding(in: Array("\u{FEFF}<?xml version='1.0' encoding = 'ISO-8859-1' ?><a/>".utf8)) == "ISO-8859-1")
        #expect(XMLTree.declaredEncoding(in: Array("<?xml version='1.0'?><a encoding='x'/>".utf8)) == nil)
    }

    @Test func utf8IsRead() throws {
        let document = try VASTDocument(parsing: Array("<VAST version=\"4.0\"><Error>http://127.0.0.1/é/€/𝄞</Error></VAST>".utf8))
        #expect(document.errors == ["http://127.0.0.1/é/€/𝄞"])
    }
}
