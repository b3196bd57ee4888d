import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor

/// Ads as an ad server delivers them, end to end through the demo: a schedule that names a VMAP on
/// the test ad server (127.0.0.1), resolved, played by `simulate --send-beacons` through a pod, a
/// snapback over a break behind a wrapper, a `once` break skipped; the server's log then holds
/// exactly the beacons IAB's rules call for, once each, in order, macros expanded.
///
///     composition  0 ── A (10 s) ── 10 ── B (7 s) ── 17 ─ content 0-8 ─ 25 ── S (7 s) ── 32 ─ content 8-14 ─ 38 ── O (10 s) ── 48 ─ 14-20 ─ 54
///                  pre: the pod (pod.xml)                        mid @8: S behind the server's wrapper w1    once @14: O (skipped at 3 s)
@Suite(.needsPython, .needsFFmpeg) struct AdServerDemoTests {
    static func vast(_ id: String, media: String, tracking: [String], extra: String = "") -> String {
        let events = tracking.map { event -> String in
            if event.hasPrefix("progress") { return #"<Tracking event="progress" offset="00:00:05">{{BASE}}/beacon/\#(id)/progress?t=[ADPLAYHEAD]</Tracking>"# }
            return #"<Tracking event="\#(event)">{{BASE}}/beacon/\#(id)/\#(event)\#(event == "start" ? "?c=[CONTENTPLAYHEAD]" : "")</Tracking>"#
        }.joined()
        return """
            <Ad id="\(id)" \(extra)><InLine><AdSystem>test</AdSystem><AdTitle>\(id)</AdTitle>
              <Impression>{{BASE}}/beacon/\(id)/impression?cb=[CACHEBUSTING]</Impression><Error>{{BASE}}/beacon/\(id)/error?code=[ERRORCODE]</Error>
              <Creatives><Creative><Linear skipoffset="00:00:02"><Duration>00:00:10</Duration><TrackingEvents>\(events)</TrackingEvents>
                <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">{{BASE}}/media/\(media)</MediaFile></MediaFiles>
              </Linear></Creative></Creatives></InLine></Ad>
            """
    }

    static let quartiles = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "skip"]

    /// The ad server's folder: the documents, and the fixture ads linked in as its media.
    func serverRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-ad-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        for name in ["ad1.mp4", "ad2.mp4"] {
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("media/" + name).path, withDestinationPath: MP4Fixtures.path(name))
        }
        func write(_ name: String, _ text: String) throws { try text.write(to: root.appendingPathComponent(name), atomically: false, encoding: .utf8) }
        try write("show.vmap", """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
              <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
                <vmap:AdSource><vmap:AdTagURI templateType="vast3">{{BASE}}/pod.xml</vmap:AdTagURI></vmap:AdSource>
                <vmap:TrackingEvents><vmap:Tracking event="breakStart">{{BASE}}/beacon/pre/start?pos=[BREAKPOSITION]</vmap:Tracking>
                  <vmap:Tracking event="breakEnd">{{BASE}}/beacon/pre/end</vmap:Tracking></vmap:TrackingEvents>
              </vmap:AdBreak>
              <vmap:AdBreak timeOffset="00:00:08" breakType="linear" breakId="mid">
                <vmap:AdSource><vmap:AdTagURI templateType="vast3">{{BASE}}/chain/1/single.xml</vmap:AdTagURI></vmap:AdSource>
              </vmap:AdBreak>
              <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post">
                <vmap:AdSource><vmap:AdTagURI templateType="vast3">{{BASE}}/empty.xml</vmap:AdTagURI></vmap:AdSource>
                <vmap:TrackingEvents><vmap:Tracking event="error">{{BASE}}/beacon/post/error?code=[ERRORCODE]</vmap:Tracking></vmap:TrackingEvents>
              </vmap:AdBreak>
            </vmap:VMAP>
            """)
        try write("pod.xml", "<VAST version=\"4.1\">" + Self.vast("B", media: "ad2.mp4", tracking: Self.quartiles, extra: #"sequence="2""#)
                  + Self.vast("A", media: "ad1.mp4", tracking: Self.quartiles + ["progress"], extra: #"sequence="1""#) + "</VAST>")
        try write("single.xml", "<VAST version=\"4.1\">" + Self.vast("S", media: "ad2.mp4", tracking: Self.quartiles) + "</VAST>")
        try write("once.xml", "<VAST version=\"4.1\">" + Self.vast("O", media: "ad1.mp4", tracking: Self.quartiles) + "</VAST>")
        try write("empty.xml", "<VAST version=\"4.1\"><Error>{{BASE}}/beacon/empty/error?code=[ERRORCODE]</Error></VAST>")
        return root
    }

    /// The schedule: 20 s of content, the VMAP's breaks, and a `once` break from its own VAST.
    func schedule(in folder: URL, server: AdServer) throws -> String {
        let path = folder.appendingPathComponent("schedule.json").path
        try """
            {"content": [{"id": "c", "url": "\(MP4Fixtures.content)", "end": 20}], "vmap": "\(server.base)/show.vmap",
             "breaks": [{"id": "once", "at": 14, "policy": "once", "vast": "\(server.base)/once.xml"}]}
            """.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test func simulateSendsExactlyTheBeaconsDue() async throws {
        let root = try serverRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try await LocalServers.withAdServer(root: root) { server in
            let scheduleFile = try schedule(in: root, server: server)
            // Reading and listing fire nothing.
            let timeline = try await DemoProcess.run(["timeline", scheduleFile])
            #expect(timeline.status == 0, "\(timeline.stderr)")
            #expect(timeline.stdout.contains("3 breaks"), "\(timeline.stdout)")
            let listed = try await DemoProcess.run(["simulate", scheduleFile, "--json", "--actions", "play 60"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains(#""beacon":"complete""#))
            #expect(try await server.log().filter { $0.kind == "beacon" } == [])

            let played = try await DemoProcess.run(["simulate", scheduleFile, "--send-beacons", "--actions",
                                                    "play 17; seek content 12; play 7; play 2; play 3; skip ad; play 10"])
            #expect(played.status == 0, "\(played.stderr)")
            #expect(!played.stderr.contains("not delivered"), "\(played.stderr)")
            let beacons = try await server.log().filter { $0.kind == "beacon" }.map(\.path)
            let cacheBusted = beacons.map { $0.replacing(#/cb=[0-9]{8}$/#, with: "cb=X") }
            let q = ["firstQuartile", "midpoint", "thirdQuartile"]
            let expected: [String] =
                // Owed before anything plays: the post-roll's VAST was empty (303), to the VMAP break's and the document's Error URLs.
                ["post/error?code=303", "empty/error?code=303"]
                // The pre-roll pod, A then B, in full; A's progress at 5 s after its midpoint there.
                + ["pre/start?pos=1", "A/impression?cb=X", "A/start?c=00%3A00%3A00.000", "A/firstQuartile", "A/midpoint",
                   "A/progress?t=00%3A00%3A05.000", "A/thirdQuartile", "A/complete",
                   "B/impression?cb=X", "B/start?c=00%3A00%3A00.000"] + q.map { "B/" + $0 } + ["B/complete", "pre/end"]
                // Seeking to content 12 plays the mid-roll first (snapback); S's wrapper w1 is told everything S is, first.
                + ["w1/impression", "S/impression?cb=X", "w1/start", "S/start?c=00%3A00%3A08.000"]
                + q.flatMap { ["w1/" + $0, "S/" + $0] } + ["w1/complete", "S/complete"]
                // The once break at 14: O starts, a quarter plays, it is skipped; nothing else of it.
                + ["O/impression?cb=X", "O/start?c=00%3A00%3A14.000", "O/firstQuartile", "O/skip"]
            #expect(cacheBusted == expected.map { "/beacon/" + $0 })
            // Each document fetched once per command that loads the schedule (three commands ran).
            let documents = try await server.log().filter { $0.kind == "document" }.map(\.path)
            #expect(documents.filter { $0 == "/show.vmap" }.count == 3)
            #expect(documents.filter { $0.hasPrefix("/chain/1/single.xml") }.count == 3)
        }
    }

    /// The fourth hostile campaign: an ad id and a MediaFile URL holding `&#13;&#10;error: forged
    /// line` were printed raw by `vast`'s table, a line of their own that reads as the demo's.
    @Test("vast's table prints a forged line break escaped, on its own row")
    func vastEscapesWhatItPrints() async throws {
        let folder = URL(fileURLWithPath: try MP4Fixtures.makeScratchFolder("vast-forged"))
        defer { MP4Fixtures.remove(folder.path) }
        let forged = "&#13;&#10;error: forged line"
        let document = folder.appendingPathComponent("forged.xml")
        try """
            <VAST version="4.1"><Ad id="x\(forged)"><InLine><AdSystem>t</AdSystem><AdTitle>t</AdTitle><Impression>http://127.0.0.1:1/i</Impression>
            <Creatives><Creative><Linear><Duration>00:00:05</Duration><MediaFiles>
            <MediaFile delivery="progressive" type="video/mp4" width="640" height="360">http://127.0.0.1:1/a.mp4\(forged)</MediaFile>
            </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """.write(to: document, atomically: false, encoding: .utf8)
        let result = try await DemoProcess.run(["vast", document.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = (result.stdout + result.stderr).split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("error: forged line") }, "\(result.stdout)")
        #expect(result.stdout.contains("x\\r\\nerror: forged line") && result.stdout.contains("a.mp4\\r\\nerror: forged line"), "\(result.stdout)")
        #expect(lines.count == 2, "\(result.stdout)")
    }

    @Test func vastCommandPrintsThePodItResolves() async throws {
        let root = try serverRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try await LocalServers.withAdServer(root: root) { server in
            let result = try await DemoProcess.run(["vast", server.base + "/pod.xml", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            guard case .object(let object) = try JSONValue(parsing: Array(result.stdout.utf8)), case .array(let ads) = object["ads"],
                  ads.count == 2, case .object(let first) = ads[0] else { Issue.record("\(result.stdout)"); return }
            #expect(first.keys == ["id", "sequence", "duration", "skipOffset", "mediaFile", "impressions", "tracking", "errors", "wrappers"])
            #expect(first["id"] == .string("A") && first["sequence"] == .number("1") && first["duration"] == .number("10"))
            #expect(first["skipOffset"] == .number("2"))
            #expect(first["mediaFile"] == .object(JSONObject(["url": .string(server.base + "/media/ad1.mp4"), "type": .string("video/mp4"),
                                                               "delivery": .string("progressive"), "bitrate": .null, "width": .number("640"),
                                                               "height": .number("360")])))
            #expect(first["wrappers"] == .array([]))
            // Behind the server's wrappers: each one followed is named, in order.
            let wrapped = try await DemoProcess.run(["vast", server.base + "/chain/2/single.xml", "--json"])
            #expect(wrapped.stdout.contains(#""wrappers":["\#(server.base)/chain/1/single.xml","\#(server.base)/chain/0/single.xml"]"#), "\(wrapped.stdout)")
            // Nothing resolves: exit 1 and the VAST error code.
            let empty = try await DemoProcess.run(["vast", server.base + "/empty.xml"])
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("error: no ad resolves") && empty.stderr.contains("(VAST error 303)"), "\(empty.stderr)")
            let invalid = try await DemoProcess.run(["vast", server.base + "/pod.xml?invalid=1"])
            #expect(invalid.status == 1 && invalid.stderr.contains("(VAST error 100)"), "\(invalid.stderr)")
            #expect(try await server.log().filter { $0.kind == "beacon" } == [], "vast fires nothing")
        }
    }

    /// Content always plays (issue 68): a pod whose first ad's media file answers 404 plays its
    /// second ad and the content, in every command, exactly as if the first had never been
    /// scheduled; the failed ad is told once and its Error URL gets 401 once.
    /// ```
    /// broken.xml ── A (seq 1): media/missing.mp4 → 404     dropped, 401
    ///            └─ B (seq 2): media/ad2.mp4               plays
    /// composition  0 ── B (7 s) ── 7 ── content 0-20 ── 27
    /// ```
    @Test func anAdWhoseMediaFailsDropsOutAlone() async throws {
        let ffmpeg = try FFmpeg.require()
        let root = try serverRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try ("<VAST version=\"4.1\">" + Self.vast("A", media: "missing.mp4", tracking: Self.quartiles, extra: #"sequence="1""#)
             + Self.vast("B", media: "ad2.mp4", tracking: ["start"], extra: #"sequence="2""#) + "</VAST>")
            .write(to: root.appendingPathComponent("broken.xml"), atomically: false, encoding: .utf8)
        try await LocalServers.withAdServer(root: root) { server in
            let scheduleFile = root.appendingPathComponent("schedule.json").path, byHand = root.appendingPathComponent("by-hand.json").path
            try """
                {"content": [{"id": "c", "url": "\(MP4Fixtures.content)", "end": 20}], "breaks": [{"id": "pre", "at": "preroll", "vast": "\(server.base)/broken.xml"}]}
                """.write(toFile: scheduleFile, atomically: false, encoding: .utf8)
            try """
                {"content": [{"id": "c", "url": "\(MP4Fixtures.content)", "end": 20}], "breaks": [{"id": "pre", "at": "preroll", "ads": [{"url": "\(MP4Fixtures.ad2)"}]}]}
                """.write(toFile: byHand, atomically: false, encoding: .utf8)

            let timeline = try await DemoProcess.run(["timeline", scheduleFile])
            #expect(timeline.status == 0, "\(timeline.stderr)")
            #expect(timeline.stdout.contains("composition 27 s"), "\(timeline.stdout)")
            let told = timeline.stderr.split(separator: "\n").filter { $0.contains("is dropped") }
            #expect(told.count == 1 && told[0].contains("break 'pre': ad 'pre-ad-1' is dropped: ") && told[0].contains("404"), "\(timeline.stderr)")

            let served = root.appendingPathComponent("served.mp4").path, hand = root.appendingPathComponent("hand.mp4").path
            for (schedule, output) in [(scheduleFile, served), (byHand, hand)] {
                let result = try await DemoProcess.run(["render", schedule, "--output", output])
                #expect(result.status == 0, "\(result.stderr)")
            }
            let handFrames = try await ffmpeg.videoFrames(hand).map(\.hash)
            #expect(handFrames.count > 500)
            #expect(try await ffmpeg.videoFrames(served).map(\.hash) == handFrames)
            let servedHLS = root.appendingPathComponent("served-hls"), handHLS = root.appendingPathComponent("hand-hls")
            for (schedule, output) in [(scheduleFile, servedHLS), (byHand, handHLS)] {
                let result = try await DemoProcess.run(["hls", schedule, "--output", output.path])
                #expect(result.status == 0, "\(result.stderr)")
            }
            #expect(try await ffmpeg.playlistFrames(servedHLS.appendingPathComponent("stitched.m3u8").path).map(\.hash)
                    == (try await ffmpeg.playlistFrames(handHLS.appendingPathComponent("stitched.m3u8").path)).map(\.hash))

            let played = try await DemoProcess.run(["simulate", scheduleFile, "--send-beacons", "--actions", "play 30"])
            #expect(played.status == 0, "\(played.stderr)")
            let beacons = try await server.log().filter { $0.kind == "beacon" }.map(\.path)
            #expect(beacons.filter { $0.hasPrefix("/beacon/A/") } == ["/beacon/A/error?code=401"], "\(beacons)")
            #expect(beacons.contains("/beacon/B/start?c=00%3A00%3A00.000"), "\(beacons)")
        }
    }

    @Test func aVMAPScheduleRendersAsItsAdsWouldByHand() async throws {
        let ffmpeg = try FFmpeg.require()
        let root = try serverRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try await LocalServers.withAdServer(root: root) { server in
            let scheduleFile = try schedule(in: root, server: server)
            let byHand = root.appendingPathComponent("by-hand.json").path
            try """
                {"content": [{"id": "c", "url": "\(MP4Fixtures.content)", "end": 20}], "breaks": [
                  {"id": "pre", "at": "preroll", "ads": [{"url": "\(MP4Fixtures.ad1)"}, {"url": "\(MP4Fixtures.ad2)"}]},
                  {"id": "mid", "at": 8, "ads": [{"url": "\(MP4Fixtures.ad2)"}]},
                  {"id": "once", "at": 14, "ads": [{"url": "\(MP4Fixtures.ad1)"}]}]}
                """.write(toFile: byHand, atomically: false, encoding: .utf8)
            let served = root.appendingPathComponent("served.mp4").path, hand = root.appendingPathComponent("hand.mp4").path
            for (schedule, output) in [(scheduleFile, served), (byHand, hand)] {
                let result = try await DemoProcess.run(["render", schedule, "--output", output])
                #expect(result.status == 0, "\(result.stderr)")
            }
            // Judged as the render tests judge (each frame's hash as ffmpeg decodes it).
            let servedFrames = try await ffmpeg.videoFrames(served).map(\.hash), handFrames = try await ffmpeg.videoFrames(hand).map(\.hash)
            #expect(servedFrames.count > 100)
            #expect(servedFrames == handFrames)
            // And stitched as HLS: the same frames, from the same ads.
            let servedHLS = root.appendingPathComponent("served-hls"), handHLS = root.appendingPathComponent("hand-hls")
            for (schedule, output) in [(scheduleFile, servedHLS), (byHand, handHLS)] {
                let result = try await DemoProcess.run(["hls", schedule, "--output", output.path])
                #expect(result.status == 0, "\(result.stderr)")
            }
            let servedStitch = try await ffmpeg.playlistFrames(servedHLS.appendingPathComponent("stitched.m3u8").path)
            #expect(servedStitch.map(\.hash) == (try await ffmpeg.playlistFrames(handHLS.appendingPathComponent("stitched.m3u8").path)).map(\.hash))
            #expect(servedStitch.count == handFrames.count)
        }
    }
}
