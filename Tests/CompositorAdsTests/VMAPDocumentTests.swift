import CompositorAds
import CompositorCore
import Testing

/// Reading VMAP 1.0: linear breaks with their offsets and sources; the rest left out and said.
@Suite struct VMAPDocumentTests {
    static let vmap = """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
          <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
            <vmap:AdSource id="pre-ads" allowMultipleAds="false" followRedirects="true">
              <vmap:AdTagURI templateType="vast3"><![CDATA[http://127.0.0.1/vast/pre.xml]]></vmap:AdTagURI>
            </vmap:AdSource>
            <vmap:TrackingEvents>
              <vmap:Tracking event="breakStart">http://127.0.0.1/b/pre/start</vmap:Tracking>
              <vmap:Tracking event="breakEnd">http://127.0.0.1/b/pre/end</vmap:Tracking>
            </vmap:TrackingEvents>
          </vmap:AdBreak>
          <vmap:AdBreak timeOffset="00:10:00.500" breakType="linear,nonlinear" breakId="mid" repeatAfter="00:05:00">
            <vmap:AdSource id="mid-ads">
              <vmap:VASTAdData>
                <VAST version="3.0"><Ad id="m1" sequence="1"><InLine><AdSystem>x</AdSystem><AdTitle>m1</AdTitle>
                  <Creatives><Creative><Linear><Duration>00:00:05</Duration>
                    <MediaFiles><MediaFile delivery="progressive" type="video/mp4">http://127.0.0.1/ads/m1.mp4</MediaFile></MediaFiles>
                  </Linear></Creative></Creatives></InLine></Ad></VAST>
              </vmap:VASTAdData>
            </vmap:AdSource>
          </vmap:AdBreak>
          <vmap:AdBreak timeOffset="50%" breakType="nonlinear" breakId="overlay"/>
          <vmap:AdBreak timeOffset="#2" breakType="linear" breakId="second-cue">
            <vmap:AdSource><vmap:CustomAdData templateType="x">...</vmap:CustomAdData></vmap:AdSource>
          </vmap:AdBreak>
          <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post">
            <vmap:AdSource><vmap:AdTagURI templateType="vast3">http://127.0.0.1/vast/post.xml</vmap:AdTagURI></vmap:AdSource>
          </vmap:AdBreak>
        </vmap:VMAP>
        """

    @Test func linearBreaksWithTheirOffsetsAndSources() throws {
        let document = try VMAPDocument(parsing: Array(Self.vmap.utf8), source: "schedule.vmap")
        #expect(document.version == "1.0")
        #expect(document.breaks.map(\.id) == ["pre", "mid", "second-cue", "post"])
        #expect(document.breaks.map(\.timeOffset) == [.start, .time(MediaTime(value: 6005, timescale: 10)), .position(2), .end])
        #expect(document.breaks[0].source?.ads == .adTagURI("http://127.0.0.1/vast/pre.xml"))
        #expect(document.breaks[0].source?.allowMultipleAds == false)
        #expect(document.breaks[0].tracking == [.breakStart: ["http://127.0.0.1/b/pre/start"], .breakEnd: ["http://127.0.0.1/b/pre/end"]])
        #expect(document.breaks[1].repeatAfter == MediaTime(seconds: 300))
        guard case .inline(let vast) = document.breaks[1].source?.ads else { Issue.record("mid is not inline VAST"); return }
        #expect(vast.pod.map(\.id) == ["m1"])
        #expect(vast.pod.first?.linear?.duration == MediaTime(seconds: 5))
        #expect(document.breaks[2].source == nil)
    }

    @Test func whatIsLeftOutIsSaid() throws {
        let document = try VMAPDocument(parsing: Array(Self.vmap.utf8))
        #expect(document.diagnostics.map(\.line) == [21, 23])
        #expect(document.diagnostics[0].message == "break 'overlay' is nonlinear, not linear: left out")
        #expect(document.diagnostics[1].message.contains("CustomAdData"))
    }

    @Test(arguments: [
        "<vmap:VMAP xmlns:vmap=\"x\" version=\"1.0\"><vmap:AdBreak timeOffset=\"soon\" breakType=\"linear\"/></vmap:VMAP>",
        "<vmap:VMAP xmlns:vmap=\"x\" version=\"1.0\"><vmap:AdBreak breakType=\"linear\"/></vmap:VMAP>",
        "<vmap:VMAP xmlns:vmap=\"x\" version=\"1.0\"><vmap:AdBreak timeOffset=\"start\" repeatAfter=\"00:00:00\"/></vmap:VMAP>",
        "<vmap:VMAP xmlns:vmap=\"x\" version=\"1.0\"><vmap:AdBreak timeOffset=\"start\"><vmap:AdSource><vmap:VASTAdData/></vmap:AdSource></vmap:AdBreak></vmap:VMAP>",
        "<VAST version=\"4.0\"/>",
    ])
    func refusedNamingTheLine(xml: String) {
        do {
            _ = try VMAPDocument(parsing: Array(xml.utf8), source: "s.vmap")
            Issue.record("read")
        } catch {
            #expect(error.code == .schemaValidation)
            #expect(error.line == 1)
            #expect(error.description.hasPrefix("s.vmap: line 1: "))
        }
    }

    @Test func offsets() {
        #expect(VMAPTimeOffset(parsing: "start") == .start)
        #expect(VMAPTimeOffset(parsing: "25%") == .fraction(basisPoints: 2500))
        #expect(VMAPTimeOffset(parsing: "#1") == .position(1))
        for bad in ["#0", "#", "Start", "10", "-00:00:01"] { #expect(VMAPTimeOffset(parsing: bad) == nil, "\(bad)") }
    }
}
