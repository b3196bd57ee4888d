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

    /// Content always plays (issue 68): an ad whose media file fails, with no other file, drops out
    /// of its pod alone (401 owed to it); the schedule's own ad that fails too; a break left
    /// without an ad goes (303 owed to the VMAP break's `error` URLs) and content plays through it.
    /// ```
    /// content 20 s:  pre (VMAP: broken 401, second) ▕ own 4 s (missing, ad1) ▕ gone 9 s (VMAP: broken 401 → 303)
    /// loaded:        pre (second)                   ▕ own 4 s (ad1)          ▕ —
    /// ```
    @Test func anAdThatFailsDropsOutAlone() async throws {
        let ad1 = URL(fileURLWithPath: MP4Fixtures.ad1).absoluteString, ad2 = URL(fileURLWithPath: MP4Fixtures.ad2).absoluteString
        let broken = """
            <Ad id="broken" sequence="1"><InLine><AdSystem>t</AdSystem><AdTitle>b</AdTitle><Error>http://127.0.0.1/e/broken?c=[ERRORCODE]</Error>
              <Creatives><Creative><Linear><Duration>00:00:05</Duration>
              <MediaFiles><MediaFile delivery="progressive" type="video/mp4">gone.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives>
            </InLine></Ad>
            """
        try write("pod2.xml", """
            <VAST version="4.1">\(broken)<Ad id="second" sequence="2"><InLine><AdSystem>t</AdSystem><AdTitle>2</AdTitle>
              <Creatives><Creative><Linear><Duration>00:00:07</Duration>
              <MediaFiles><MediaFile delivery="progressive" type="video/mp4">\(ad2)</MediaFile></MediaFiles></Linear></Creative></Creatives>
            </InLine></Ad></VAST>
            """)
        try write("drops.vmap", """
            <vmap:VMAP xmlns:vmap="http://127.0.0.1/videosuite/vmap" version="1.0">
              <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
                <vmap:AdSource><vmap:AdTagURI templateType="vast3">pod2.xml</vmap:AdTagURI></vmap:AdSource>
              </vmap:AdBreak>
              <vmap:AdBreak timeOffset="00:00:09" breakType="linear" breakId="gone">
                <vmap:AdSource><vmap:VASTAdData><VAST version="4.1">\(broken)</VAST></vmap:VASTAdData></vmap:AdSource>
                <vmap:TrackingEvents><vmap:Tracking event="error">http://127.0.0.1/b/gone?c=[ERRORCODE]</vmap:Tracking></vmap:TrackingEvents>
              </vmap:AdBreak>
            </vmap:VMAP>
            """)
        var loaded = try await load(#"""
            {"content": \#(content), "vmap": "drops.vmap", "breaks": [
              {"id": "own", "at": 4, "ads": [{"id": "lost", "url": "missing-own.mp4", "end": 2}, {"id": "kept", "url": "\#(ad1)", "end": 2}]}]}
            """#)
        let catalog = try await loaded.loadSources()
        // The schedule's own breaks first, then the VMAP's.
        #expect(loaded.schedule.breaks.map(\.id) == ["own", "pre"])
        #expect(loaded.schedule.breaks.map { $0.ads.map(\.id) } == [["kept"], ["pre-ad-2"]])
        #expect(loaded.tracking.ads["pre-ad-1"] == nil && loaded.tracking.ads["pre-ad-2"]?.id == "second")
        #expect(loaded.errors.map(\.error.code) == [.fileNotFound, .fileNotFound, .noAdsAfterWrapper])
        #expect(loaded.errors.map(\.urls) == [["http://127.0.0.1/e/broken?c=[ERRORCODE]"],
                                               ["http://127.0.0.1/b/gone?c=[ERRORCODE]", "http://127.0.0.1/e/broken?c=[ERRORCODE]"],
                                               ["http://127.0.0.1/b/gone?c=[ERRORCODE]"]])
        let drops = loaded.diagnostics.compactMap { diagnostic -> String? in
            guard case .adDropped(let ad, let adBreak, _, let breakDropped) = diagnostic else { return nil }
            return "\(adBreak)/\(ad)\(breakDropped ? " (break dropped)" : "")"
        }
        #expect(drops == ["own/lost", "pre/pre-ad-1", "gone/gone-ad-1 (break dropped)"])
        #expect(loaded.diagnostics.contains { "\($0)".hasPrefix("break 'own': ad 'lost' is dropped: ") && "\($0)".hasSuffix("the break's other ads play") })

        // The content plays whole: 7 s of pre-roll, then 4 s of content, the own break's 2 s, the rest.
        let composition = try Composition.loading(loaded.schedule, catalog: catalog)
        #expect(composition.contentDuration == s(20))
        #expect(composition.duration == s(29))
        #expect(composition.compositionTime(forContentTime: s(3)) == s(10))
    }

    /// An ad in another codec than the content's cannot play in one stream (issue 68: "a codec or
    /// track layout the output cannot take"): an ad-server ad falls to its next media file, 405
    /// owed for the HEVC one; the schedule's own HEVC ad is dropped and its break goes.
    /// ```
    /// content (H.264):  hevc 4 s (own: HEVC, dropped) ▕ served 8 s (VAST: HEVC file 405 → H.264 file)
    /// ```
    @Test func anAdInAnotherCodecFallsToItsNextFileOrDrops() async throws {
        let hevc = URL(fileURLWithPath: MP4Fixtures.path("muxers/gst-mp4mux-x265-hvc1.mp4")).absoluteString
        let ad1 = URL(fileURLWithPath: MP4Fixtures.ad1).absoluteString
        try write("codecs.xml", """
            <VAST version="4.1"><Ad id="x"><InLine><AdSystem>t</AdSystem><AdTitle>x</AdTitle><Error>http://127.0.0.1/e/x?c=[ERRORCODE]</Error>
              <Creatives><Creative><Linear><Duration>00:00:10</Duration><MediaFiles>
                <MediaFile delivery="progressive" type="video/mp4">\(hevc)</MediaFile>
                <MediaFile delivery="progressive" type="video/mp4">\(ad1)</MediaFile>
              </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """)
        var loaded = try await load(#"""
            {"content": \#(content), "breaks": [{"id": "own", "at": 4, "ads": [{"id": "hevc", "url": "\#(hevc)"}]},
                                                 {"id": "served", "at": 8, "vast": "codecs.xml"}]}
            """#)
        let catalog = try await loaded.loadSources()
        #expect(loaded.schedule.breaks.map(\.id) == ["served"])
        #expect(loaded.schedule.breaks.first?.ads.map(\.source) == [MediaLocation(path: MP4Fixtures.ad1)])
        #expect(loaded.errors.map(\.error.code) == [.mediaNotDisplayable])
        #expect(loaded.errors.first?.urls == ["http://127.0.0.1/e/x?c=[ERRORCODE]"])
        #expect(loaded.errors.first?.error.reason.hasSuffix("has video in HEVC (hvc1), the content in H.264 (avc1): one stream cannot mix codecs") == true,
                "\(loaded.errors)")
        #expect(loaded.diagnostics.contains { if case .adDropped(ad: "hevc", break: "own", _, breakDropped: true) = $0 { true } else { false } })
        _ = try Composition.loading(loaded.schedule, catalog: catalog)
    }

    /// VAST `Duration` against the media (issue 68): ad1's media lasts 10 s; a VAST that says 5 s
    /// plays it whole, and its 50% progress falls at 5 s of the 10 that play, as its quartiles do.
    /// A Duration within half a second of the media (rounded to whole seconds) says nothing.
    @Test func theMediaPlaysWholeWhateverItsDurationSays() async throws {
        let ad1 = URL(fileURLWithPath: MP4Fixtures.ad1).absoluteString
        for (name, stated) in [("five.xml", "00:00:05"), ("ten.xml", "00:00:10.400")] {
            try write(name, """
                <VAST version="4.1"><Ad id="\(name)"><InLine><AdSystem>t</AdSystem><AdTitle>t</AdTitle>
                  <Creatives><Creative><Linear><Duration>\(stated)</Duration>
                  <TrackingEvents><Tracking event="progress" offset="50%">http://127.0.0.1/p</Tracking></TrackingEvents>
                  <MediaFiles><MediaFile delivery="progressive" type="video/mp4">\(ad1)</MediaFile></MediaFiles></Linear></Creative></Creatives>
                </InLine></Ad></VAST>
                """)
        }
        var loaded = try await load(#"{"content": \#(content), "breaks": [{"id": "a", "at": 4, "vast": "five.xml"}, {"id": "b", "at": 8, "vast": "ten.xml"}]}"#)
        #expect(loaded.tracking.ads["a-ad-1"]?.duration == s(5))
        let catalog = try await loaded.loadSources()
        let media = try #require(catalog.naturalDurations[MediaLocation(path: MP4Fixtures.ad1)])
        #expect(media > s(10) - MediaTime(value: 1, timescale: 10) && media < s(10) + MediaTime(value: 1, timescale: 10))
        #expect(loaded.tracking.ads["a-ad-1"]?.duration == media && loaded.tracking.ads["b-ad-1"]?.duration == media)
        #expect(loaded.tracking.progressOffsets["a-ad-1"] == [MediaTime(value: media.value, timescale: media.timescale * 2)])
        #expect(loaded.diagnostics == [.adDurationDiffers(ad: "a-ad-1", stated: s(5), playing: media)])
        #expect(loaded.diagnostics.first?.description.hasPrefix("ad 'a-ad-1': its VAST Duration is 5 s, its media lasts ") == true)
    }

    /// An ad decision keeps to its budget (issue 68): a pod whose second ad is behind a wrapper
    /// that answers after 1.5 s. With the break's `adBudget` of 0.5 s the first ad (inline in the
    /// pod) plays and the second is content (301); with the file's 600 s, both play. (How close
    /// to its budget a decision ends is measured by `Benchmarks/ads/run.sh`, not here.)
    /// ```
    /// pod.xml ── a (seq 1) ─ InLine                      at once
    ///         └─ b (seq 2) ─ Wrapper → stall.xml        answers after 1.5 s
    /// ```
    @Test func anAdDecisionKeepsToItsBudget() async throws {
        let inline = { (id: String) in """
            <Ad id="\(id)"><InLine><AdSystem>t</AdSystem><AdTitle>\(id)</AdTitle><Creatives><Creative><Linear><Duration>00:00:05</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4">http://127.0.0.1/m/\(id).mp4</MediaFile></MediaFiles></Linear></Creative></Creatives>
            </InLine></Ad>
            """ }
        let server = MemoryAdServer(documents: [
            "http://127.0.0.1/pod.xml": "<VAST version=\"4.1\">" + inline("a").replacingOccurrences(of: "<Ad id=\"a\">", with: "<Ad id=\"a\" sequence=\"1\">")
                + #"<Ad id="b" sequence="2"><Wrapper><AdSystem>t</AdSystem><VASTAdTagURI>http://127.0.0.1/stall.xml</VASTAdTagURI></Wrapper></Ad></VAST>"#,
            "http://127.0.0.1/stall.xml": "<VAST version=\"4.1\">" + inline("late") + "</VAST>",
        ], stalled: ["http://127.0.0.1/stall.xml": .milliseconds(1500)])
        try write("schedule.json", #"""
            {"content": \#(content), "adBudget": 600, "breaks": [
              {"id": "quick", "at": 4, "vast": "http://127.0.0.1/pod.xml", "adBudget": 0.5},
              {"id": "ample", "at": 8, "vast": "http://127.0.0.1/pod.xml"}]}
            """#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let loaded = try await ScheduleDocument.load(path: FilePath(folder.appendingPathComponent("schedule.json").path), transport: server)
        #expect(loaded.schedule.breaks.map(\.id) == ["quick", "ample"])
        #expect(loaded.schedule.breaks.map(\.ads.count) == [1, 2])
        #expect(loaded.errors.map(\.error.code) == [.wrapperTimeout])
        #expect(loaded.diagnostics.map(\.description) == [
            "breaks[0].vast: the ad decision's 0.5 s budget ran out: 1 ad resolved in it, what did not is content (VAST 301)",
        ])
    }

    @Test(arguments: [
        (#"{"content": [{"url": "c.mp4", "end": 5}], "adBudget": 0}"#, "schedule.adBudget: an ad decision needs some time: 0 s"),
        (#"{"content": [{"url": "c.mp4", "end": 5}], "breaks": [{"at": 1, "ads": [{"url": "a.mp4"}], "adBudget": 2}]}"#,
         "breaks[0].adBudget: a break with its own ads asks no ad server: an ad budget is for a break's \"vast\""),
    ])
    func anAdBudgetIsRefusedWhereItMeansNothing(json: String, error: String) throws {
        #expect { try ScheduleDocument.decode(Array(json.utf8)) } throws: { "\($0)".contains(error) }
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

/// Ad documents from memory as an ad server at 127.0.0.1 would answer them (nothing is sent), each
/// of `stalled` only after its delay, or at the request's timeout as a real transport times out.
struct MemoryAdServer: HTTPTransport {
    let documents: [String: String]
    var stalled: [String: Duration] = [:]

    func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        if let delay = stalled[request.url] {
            do { try await Task.sleep(for: min(delay, request.timeout)) } catch { throw HTTPTransportError(url: request.url, problem: .cancelled) }
            if delay > request.timeout { throw HTTPTransportError(url: request.url, problem: .timedOut(after: request.timeout)) }
        }
        guard let document = documents[request.url] else { return HTTPTransportResponse(status: 404) }
        return HTTPTransportResponse(status: 200, body: Array(document.utf8))
    }
}
