import Compositor
import CompositorTestSupport
import Foundation
import Testing

/// A schedule whose ads come from ad servers, loaded: the VMAP's breaks placed, `vast` breaks filled,
/// and what cannot be had said, not fatal.
///
///     content 20 s:  pre (VMAP start: pod of 2) ▕ 5 ▏ 11 ▏ 17 (VMAP 25%, repeatAfter 6 s) ▕ post (VMAP end: inline VAST)
@Suite struct AdScheduleTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-ad-schedule-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ad1 = URL(fileURLWithPath: MP4Fixtures.ad1).absoluteString, ad2 = URL(fileURLWithPath: MP4Fixtures.ad2).absoluteString
        try write("pod.xml", """
            <VAST version="4.1">
              <Ad id="second" sequence="2"><InLine><AdSystem>t</AdSystem><AdTitle>2</AdTitle><Impression>http://127.0.0.1/i/2</Impression>
                <Creatives><Creative><Linear><Duration>00:00:07</Duration><MediaFiles>
                  <MediaFile delivery="progressive" type="video/mp4" width="1920" height="1080">\(ad2)</MediaFile>
                  <MediaFile delivery="progressive" type="video/mp4" width="320" height="180" codec="H.264">missing.mp4</MediaFile>
                </MediaFiles></Linear></Creative></Creatives><Error>http://127.0.0.1/e/2?c=[ERRORCODE]</Error></InLine></Ad>
              <Ad id="first" sequence="1"><InLine><AdSystem>t</AdSystem><AdTitle>1</AdTitle>
                <Creatives><Creative><Linear><Duration>00:00:10</Duration>
                  <TrackingEvents><Tracking event="progress" offset="50%">http://127.0.0.1/p/1</Tracking></TrackingEvents>
                  <MediaFiles><MediaFile delivery="progressive" type="video/mp4">\(ad1)</MediaFile></MediaFiles>
                </Linear></Creative></Creatives></InLine></Ad>
            </VAST>
            """)
        try write("single.xml", """
            <VAST version="4.1"><Ad id="alone"><InLine><AdSystem>t</AdSystem><AdTitle>a</AdTitle>
              <Creatives><Creative><Linear><Duration>00:00:07</Duration>
              <MediaFiles><MediaFile delivery="progressive" type="video/mp4">\(ad2)</MediaFile></MediaFiles></Linear></Creative></Creatives>
            </InLine></Ad></VAST>
            """)
        try write("empty.xml", #"<VAST version="4.1"><Error>http://127.0.0.1/e/empty?c=[ERRORCODE]</Error></VAST>"#)
        try write("show.vmap", """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
              <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
                <vmap:AdSource><vmap:AdTagURI templateType="vast3">pod.xml</vmap:AdTagURI></vmap:AdSource>
                <vmap:TrackingEvents><vmap:Tracking event="breakStart">http://127.0.0.1/b/pre</vmap:Tracking></vmap:TrackingEvents>
              </vmap:AdBreak>
              <vmap:AdBreak timeOffset="25%" breakType="linear" breakId="mid" repeatAfter="00:00:06">
                <vmap:AdSource allowMultipleAds="false"><vmap:AdTagURI templateType="vast3">single.xml</vmap:AdTagURI></vmap:AdSource>
              </vmap:AdBreak>
              <vmap:AdBreak timeOffset="00:00:09" breakType="linear" breakId="nopod">
                <vmap:AdSource allowMultipleAds="false"><vmap:AdTagURI templateType="vast3">pod.xml</vmap:AdTagURI></vmap:AdSource>
              </vmap:AdBreak>
              <vmap:AdBreak timeOffset="00:00:08" breakType="nonlinear" breakId="overlay"/>
              <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post">
                <vmap:AdSource><vmap:VASTAdData><VAST version="3.0"><Ad id="p"><InLine><AdSystem>t</AdSystem><AdTitle>p</AdTitle>
                  <Creatives><Creative><Linear><Duration>00:00:07</Duration>
                  <MediaFiles><MediaFile delivery="progressive" type="video/mp4">\(ad2)</MediaFile></MediaFiles>
                  </Linear></Creative></Creatives></InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource>
              </vmap:AdBreak>
            </vmap:VMAP>
            """)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(to: folder.appendingPathComponent(name), atomically: false, encoding: .utf8)
    }

    func load(_ json: String) async throws -> AdSchedule {
        try write("schedule.json", json)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Time limits a starved parallel run cannot reach (the resolver's own tests test them).
        var patient = VASTResolver.Options()
        patient.hopTimeout = .seconds(600)
        patient.totalTimeout = .seconds(600)
        return try await ScheduleDocument.load(path: FilePath(folder.appendingPathComponent("schedule.json").path), ads: patient)
    }

    var content: String { #"[{"id": "c", "url": "\#(MP4Fixtures.content)", "end": 20}]"# }

    @Test func aVMAPPlacesItsLinearBreaks() async throws {
        let loaded = try await load(#"{"content": \#(content), "vmap": "show.vmap"}"#)
        let breaks = loaded.schedule.breaks
        #expect(breaks.map(\.id) == ["pre", "mid", "mid-2", "mid-3", "post"])
        #expect(breaks.map(\.placement) == [.preroll, .midroll(at: s(5)), .midroll(at: s(11)), .midroll(at: s(17)), .postroll])
        // The pod in sequence order; the repeated break's ad in each of its breaks.
        #expect(breaks[0].ads.map(\.id) == ["pre-ad-1", "pre-ad-2"])
        #expect(breaks[1...3].map { $0.ads.map(\.id) } == [["mid-ad-1"], ["mid-2-ad-1"], ["mid-3-ad-1"]])
        #expect(loaded.tracking.ads["mid-3-ad-1"]?.id == "alone")
        #expect(breaks[0].ads.map(\.source) == [MediaLocation(path: MP4Fixtures.ad1), MediaLocation(path: folder.path + "/missing.mp4")])
        #expect(loaded.tracking.ads["pre-ad-1"]?.id == "first")
        #expect(loaded.tracking.breaks["pre"]?[.breakStart] == ["http://127.0.0.1/b/pre"])
        #expect(loaded.tracking.progressOffsets == ["pre-ad-1": [s(5)]])
        #expect(loaded.diagnostics.contains { "\($0)".contains("overlay") && "\($0)".contains("not linear") })
    }

    @Test func aVMAPBreakThatAllowsNoPodGetsNoPod() async throws {
        // `nopod` asks for one ad (allowMultipleAds="false") of a response that is a pod and nothing else.
        let loaded = try await load(#"{"content": \#(content), "vmap": "show.vmap"}"#)
        #expect(loaded.schedule.adBreak(id: "nopod") == nil)
        #expect(loaded.diagnostics.map(\.description).contains { $0.hasPrefix("vmap: break 'nopod': no ad resolves") })
    }

    @Test func aBreakFilledByVAST() async throws {
        let loaded = try await load(#"""
            {"content": \#(content), "breaks": [
              {"id": "own", "at": 4, "ads": [{"url": "\#(MP4Fixtures.ad1)", "end": 2}]},
              {"id": "served", "at": 12, "policy": "once", "vast": "pod.xml"},
              {"id": "none", "at": 15, "vast": "empty.xml"}]}
            """#)
        #expect(loaded.schedule.breaks.map(\.id) == ["own", "served"])
        #expect(loaded.schedule.adBreak(id: "served")?.policy == .once)
        #expect(loaded.schedule.adBreak(id: "served")?.ads.map(\.id) == ["served-ad-1", "served-ad-2"])
        #expect(loaded.errors.map(\.error.code) == [.noAdsAfterWrapper])
        #expect(loaded.errors.first?.urls == ["http://127.0.0.1/e/empty?c=[ERRORCODE]"])
        #expect(loaded.diagnostics.map(\.description).contains { $0.hasPrefix("breaks[2].vast: no ad resolves") })
    }

    @Test func aMediaFileThatFailsToLoadFallsToTheNext() async throws {
        var loaded = try await load(#"{"content": \#(content), "breaks": [{"id": "b", "at": 4, "vast": "pod.xml"}]}"#)
        // The content is 320x180 H.264 (read from its MP4): the file of that size and codec ranks
        // first, before the larger one.
        #expect(loaded.tracking.ads["b-ad-2"]?.mediaFiles.map(\.width) == [320, 1920])
        #expect(loaded.schedule.breaks[0].ads[1].source == MediaLocation(path: folder.path + "/missing.mp4"))
        let catalog = try await loaded.loadSources()
        #expect(catalog.failures.isEmpty)
        #expect(loaded.schedule.breaks[0].ads[1].source == MediaLocation(path: MP4Fixtures.ad2))
        #expect(loaded.errors.map(\.error.code) == [.fileNotFound])
        #expect(loaded.errors.first?.urls == ["http://127.0.0.1/e/2?c=[ERRORCODE]"])
    }

    @Test func whatCannotBeHadIsADiagnostic() async throws {
        let loaded = try await load(#"{"content": \#(content), "vmap": "nowhere.vmap"}"#)
        #expect(loaded.schedule.breaks.isEmpty)
        #expect(loaded.diagnostics.map(\.description).contains { $0.hasPrefix("vmap: ") && $0.contains("plays without its breaks") })
    }

    @Test func readingSaysToLoad() throws {
        #expect(throws: ScheduleDocumentError.namesAdServer(path: "vmap")) {
            try ScheduleDocument.decode(Array(#"{"content": [{"url": "c.mp4", "end": 1}], "vmap": "x.vmap"}"#.utf8))
        }
        #expect(throws: ScheduleDocumentError.invalid(path: "breaks[0]", reason: #""ads" and "vast" both give the break's ads: name one"#)) {
            try ScheduleDocument.decode(Array(#"{"content": [{"url": "c.mp4", "end": 1}], "breaks": [{"at": 0.5, "ads": [], "vast": "v.xml"}]}"#.utf8))
        }
    }

    @Test func aCuePositionIsTheContentsNthMarkedSpan() async throws {
        try write("marked.m3u8", """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            s0.ts
            #EXT-X-CUE-OUT:4
            #EXTINF:4,
            s1.ts
            #EXT-X-CUE-IN
            #EXTINF:4,
            s2.ts
            #EXT-X-CUE-OUT:4
            #EXTINF:4,
            s3.ts
            #EXT-X-CUE-IN
            #EXT-X-ENDLIST
            """)
        try write("cue.vmap", """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
              <vmap:AdBreak timeOffset="#2" breakType="linear" breakId="second"><vmap:AdSource><vmap:AdTagURI>pod.xml</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>
              <vmap:AdBreak timeOffset="#3" breakType="linear" breakId="third"><vmap:AdSource><vmap:AdTagURI>pod.xml</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """)
        let loaded = try await load(#"{"content": [{"url": "marked.m3u8", "end": 16}], "vmap": "cue.vmap"}"#)
        #expect(loaded.schedule.breaks.map(\.id) == ["second"])
        #expect(loaded.schedule.breaks.first?.placement == .midroll(at: s(12)))
        #expect(loaded.diagnostics.map(\.description).contains { $0.contains("#3 names a cue point") })
    }
}
