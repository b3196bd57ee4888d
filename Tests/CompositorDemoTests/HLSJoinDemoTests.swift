import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorDemo

/// `CompositorDemo hls SCHEDULE.json --output DIR`, and `timeline` / `map` on HLS schedules: exit
/// codes 0 / 1 / 64, the files written, and nothing left behind on failure.
@Suite("HLS join: the demo's hls command")
struct HLSJoinDemoTests {
    /// The summary's hint for hls.js, which shows every picture on time only in one stream
    /// without discontinuities (Players.md): what to add, by what was asked.
    @Test("hls.js is told what to add, or nothing where the stream already suits it", arguments: [
        (false, true, HLSSegmentContainer?.none, "--package-every-piece (and --unmarked-encoding-changes with MPEG-TS)"),
        (true, true, nil, "--unmarked-encoding-changes"),
        (true, false, nil, nil),
        (true, true, .fragmentedMP4, nil),
    ] as [(Bool, Bool, HLSSegmentContainer?, String?)])
    func hlsJSHint(everyPiece: Bool, marked: Bool, container: HLSSegmentContainer?, flags: String?) throws {
        let options = try HLSExportOptions(segmentContainer: container, packagesEveryPiece: everyPiece, marksEncodingChanges: marked)
        let schedule = container == .fragmentedMP4 ? "demo-hls-fmp4.json" : "demo-hls.json"
        let stitched = try HLSExporter(outputURL: "/tmp/never-written/stitched.m3u8", options: options).stitch(HLSJoin.composition(schedule))
        let hint = HLSCommand.hlsJSHint(stitched)
        #expect(hint == flags.map { "in hls.js: add \($0), which makes one stream without discontinuities: it shows every picture on time only then (Players.md)" })
    }

    func object(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: Array(text.utf8)) else { throw DemoTestError("not a JSON object: \(text)") }
        return object
    }

    @Test("writes DIR/stitched.m3u8 and DIR/queue-plan.json, and says where each break plays")
    func writesPlaylistAndQueuePlan() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-cli")
        defer { MP4Fixtures.remove(scratch) }
        let out = scratch + "/out"
        let result = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("wrote \(out)/stitched.m3u8: 33.8 s, 9 pieces, MPEG-TS segments"))
        #expect(result.stdout.contains("break mid1: asked at 8.5 s, plays at 8 s (segment boundary); composition [11.1, 16.9)"))
        #expect(result.stdout.contains("break mid2: asked at 14.3 s, plays at 13.8 s (segment boundary)"))
        #expect(result.stdout.contains("play it: ffplay \(out)/stitched.m3u8"))
        #expect(result.stdout.contains("in hls.js: add --package-every-piece (and --unmarked-encoding-changes with MPEG-TS)"))
        #expect(MP4Fixtures.listing(out) == [".compositor-output", "queue-plan.json", "stitched.m3u8", "timeline.json"])
        #expect(MP4Fixtures.listing(scratch) == ["out"])  // no temporary folder left beside it

        let playlist = try String(contentsOfFile: out + "/stitched.m3u8", encoding: .utf8)
        #expect(playlist.contains("\n../"))
        #expect(playlist.components(separatedBy: "#EXT-X-DATERANGE:").count - 1 == 4)

        // The queue plan keeps the exact cuts (not snapped); URLs relative to the folder.
        let plan = try object(try String(contentsOfFile: out + "/queue-plan.json", encoding: .utf8))
        #expect(plan["compositionDuration"] == .number("34.5"))
        guard case .array(let items) = plan["items"], items.count == 9, case .object(let second) = items[1],
              case .object(let third) = items[2], case .string(let url) = second["url"] else {
            Issue.record("no items: \(plan)"); return
        }
        #expect(second.keys == ["url", "start", "forwardPlaybackEndTime", "composition", "kind", "id"])
        #expect(third.keys == ["url", "start", "forwardPlaybackEndTime", "composition", "kind", "id", "breakID", "adIndex", "podSize"])
        #expect(second["forwardPlaybackEndTime"] == .number("8.5") && second["kind"] == .string("content"))
        #expect(second["composition"] == .object(JSONObject(["start": .number("3.5"), "end": .number("12")])))
        #expect(URIReference.resolve(url, against: out + "/queue-plan.json") == HLSJoin.fixtures + "/hls/ts/content/index.m3u8")
        #expect(third["breakID"] == .string("mid1") && third["adIndex"] == .number("1") && third["podSize"] == .number("2"))

        // The timeline that plays: the break where it snapped, as `timeline --json` gives it.
        let timeline = try object(try String(contentsOfFile: out + "/timeline.json", encoding: .utf8))
        #expect(timeline["compositionDuration"] == .number("33.8") && timeline["contentDuration"] == .number("19.2"))
        guard case .array(let breaks) = timeline["breaks"], case .object(let mid1) = breaks[1] else { Issue.record("no breaks"); return }
        #expect(mid1["id"] == .string("mid1") && mid1["position"] == .number("8"))
        #expect(mid1["composition"] == .object(JSONObject(["start": .number("11.1"), "end": .number("16.9")])))
    }

    @Test("a multivariant content: DIR/stitched.m3u8 lists one stitched playlist per variant")
    func multivariantFiles() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-cli")
        defer { MP4Fixtures.remove(scratch) }
        let result = try await DemoProcess.run(["hls", "Fixtures/demo-hls-multivariant.json", "--output", scratch + "/mv"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(MP4Fixtures.listing(scratch + "/mv") == [".compositor-output", "queue-plan.json", "stitched-0.m3u8", "stitched-1.m3u8", "stitched.m3u8", "timeline.json"])
        #expect(result.stdout.contains("multivariant playlist of 2 variants"))
        #expect(result.stdout.contains("stitched-1.m3u8: 18 segments, content lo/index.m3u8 (160x90, 117914 bit/s); ads nearest in bandwidth: lo/index.m3u8 (96925 bit/s)"))
    }

    @Test("an existing DIR: a previous stitch is replaced whole; anything else is refused and left as it was")
    func existingFolder() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-cli")
        defer { MP4Fixtures.remove(scratch) }
        let out = scratch + "/out"
        #expect(try await DemoProcess.run(["hls", "Fixtures/demo-hls-multivariant.json", "--output", out]).status == 0)
        // The TS stitch replaces the multivariant one: its variant playlists go too.
        let again = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", out])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(MP4Fixtures.listing(out) == [".compositor-output", "queue-plan.json", "stitched.m3u8", "timeline.json"])
        #expect(MP4Fixtures.listing(scratch) == ["out"])

        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
        let before = try String(contentsOfFile: out + "/stitched.m3u8", encoding: .utf8)
        let refused = try await DemoProcess.run(["hls", "Fixtures/demo-hls-fmp4.json", "--output", out])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: \(out): holds files a previous stitch did not write (notes.txt)"), "\(refused.stderr)")
        #expect(MP4Fixtures.listing(out) == [".compositor-output", "notes.txt", "queue-plan.json", "stitched.m3u8", "timeline.json"])
        #expect(try String(contentsOfFile: out + "/stitched.m3u8", encoding: .utf8) == before)

        try Data().write(to: URL(fileURLWithPath: scratch + "/file"))
        let notFolder = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/file"])
        #expect(notFolder.status == 1 && notFolder.stderr.hasPrefix("error: \(scratch)/file: exists and is a regular file, not a folder"))
    }

    @Test("failures exit 1 with 'error: ' naming the file and the reason, and leave nothing behind")
    func failuresLeaveNothing() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-cli")
        defer { MP4Fixtures.remove(scratch) }
        let schedule = scratch + "/mixed.json"
        try Data(#"""
            { "content": [ { "id": "feature", "url": "\#(HLSJoin.fixtures)/hls/ts/content/index.m3u8" } ],
              "breaks": [ { "id": "b", "at": 4, "ads": [ { "id": "a", "url": "\#(HLSJoin.fixtures)/hls/fmp4/ad1/index.m3u8" } ] } ] }
            """#.utf8).write(to: URL(fileURLWithPath: schedule))
        let mixed = try await DemoProcess.run(["hls", schedule, "--output", scratch + "/out"])
        #expect(mixed.status == 1)
        #expect(mixed.stderr == "error: \(schedule): 'a' (\(HLSJoin.fixtures)/hls/fmp4/ad1/index.m3u8) has fragmented MP4 segments "
            + "but 'feature' (\(HLSJoin.fixtures)/hls/ts/content/index.m3u8) before it has MPEG-TS segments; one playlist cannot mix them\n")
        #expect(MP4Fixtures.listing(scratch) == ["mixed.json"])

        let missingParent = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/no/such/out"])
        #expect(missingParent.status == 1)
        #expect(missingParent.stderr.hasPrefix("error: \(scratch)/no/such/out: the folder it would go in"), "\(missingParent.stderr)")
        #expect(MP4Fixtures.listing(scratch) == ["mixed.json"])

        let missingSchedule = try await DemoProcess.run(["hls", scratch + "/none.json", "--output", scratch + "/out"])
        #expect(missingSchedule.status == 1 && missingSchedule.stderr.hasPrefix("error: \(scratch)/none.json: no such file"))
        #expect(MP4Fixtures.listing(scratch) == ["mixed.json"])
    }

    /// `Fixtures/demo-hls.json`: mid1 is asked at 8.5, between the feature's boundaries 8 and 9.375.
    @Test("--snap and --snap-break choose where breaks land; an unknown rule or break is a usage error")
    func snappingOptions() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-cli")
        defer { MP4Fixtures.remove(scratch) }
        let perBreak = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/a", "--snap-break", "mid1=next"])
        #expect(perBreak.status == 0, "\(perBreak.stderr)")
        #expect(perBreak.stdout.contains("breaks (cuts snap to the nearest segment boundary):"))
        #expect(perBreak.stdout.contains("break mid1: asked at 8.5 s, plays at 9.375 s (the next segment boundary)"))
        #expect(perBreak.stdout.contains("break mid2: asked at 14.3 s, plays at 13.8 s (segment boundary)"))
        let perStitch = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/b", "--snap", "next"])
        #expect(perStitch.status == 0, "\(perStitch.stderr)")
        #expect(perStitch.stdout.contains("breaks (cuts snap to the next segment boundary):"))
        #expect(perStitch.stdout.contains("break mid1: asked at 8.5 s, plays at 9.375 s (segment boundary)"))

        let badRule = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/c", "--snap", "sideways"])
        #expect(badRule.status == 64)
        #expect(badRule.stderr.hasPrefix("error: --snap: expected nearest, next, previous, covering, within, got 'sideways'"))
        let badBreak = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/c", "--snap-break", "mid9=next"])
        #expect(badBreak.status == 64)
        #expect(badBreak.stderr.hasPrefix("error: --snap-break: Fixtures/demo-hls.json has no break 'mid9'"))
        let noRule = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/c", "--snap-break", "mid1"])
        #expect(noRule.status == 64 && noRule.stderr.hasPrefix("error: --snap-break expects BREAK=RULE, got 'mid1'"))
        #expect(MP4Fixtures.listing(scratch) == ["a", "b"])
    }

    @Test("usage errors exit 64")
    func usage() async throws {
        let noOutput = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json"])
        #expect(noOutput.status == 64 && noOutput.stderr.hasPrefix("error: hls needs --output DIR"))
        #expect(try await DemoProcess.run(["hls", "--output", "/tmp/x"]).status == 64)
        #expect(try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", "/tmp/x", "extra"]).status == 64)
    }

    /// `timeline` and `map` read HLS schedules too: durations are the exact sums of `EXTINF` (the
    /// multivariant content's clip has no `end`: 12 s, its variants' length). They show the
    /// schedule's timeline; `hls` reports where the cuts snap.
    @Test("timeline and map on HLS schedules")
    func timelineAndMap() async throws {
        let timeline = try await DemoProcess.run(["timeline", "Fixtures/demo-hls-multivariant.json", "--json"])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        let root = try object(timeline.stdout)
        #expect(root["contentDuration"] == .number("12") && root["compositionDuration"] == .number("19.9"))
        guard case .array(let segments) = root["segments"], case .object(let last) = segments.last else {
            Issue.record("no segments"); return
        }
        #expect(last["source"] == .object(JSONObject(["start": .number("0.4"), "end": .number("3")])))

        let map = try await DemoProcess.run(["map", "Fixtures/demo-hls.json", "--content-time", "8.5", "--json"])
        #expect(map.status == 0, "\(map.stderr)")
        let mapped = try object(map.stdout)
        #expect(mapped["compositionTime"] == .number("18") && mapped["kind"] == .string("content"))
        let inBreak = try object(try await DemoProcess.run(["map", "Fixtures/demo-hls.json", "--composition-time", "13", "--json"]).stdout)
        #expect(inBreak["id"] == .string("a2") && inBreak["timeInAd"] == .number("1") && inBreak["contentTime"] == .number("8.5"))
    }

    @Test("the bundled demo stitches the HLS fixtures into demo-output/hls, and runs the seed's scenario through every output", .needsFFmpeg)
    func bundledDemo() async throws {
        let ffmpeg = try FFmpeg.require()  // the bundled demo also renders MP4 (a long run)
        let scratch = try MP4Fixtures.makeScratchFolder("hls-bundled")
        defer { MP4Fixtures.remove(scratch) }
        let result = try await DemoProcess.run([], in: URL(fileURLWithPath: scratch))
        #expect(result.status == 0, "\(result.stderr)")
        // Issue 53: the first screen has no warnings about the demo's own fixtures; notes go to stderr.
        #expect(!result.stderr.contains("warning:") && !result.stdout.contains("note:"), "\(result.stderr)")
        #expect(result.stdout.contains("play it: ffplay demo-output/hls/stitched.m3u8"))
        #expect(result.stdout.contains("break mid1: asked at 8.5 s, plays at 8 s (segment boundary)"))
        #expect(MP4Fixtures.listing(scratch + "/demo-output/hls") == [".compositor-output", "queue-plan.json", "stitched.m3u8", "timeline.json"])
        // Part 6: Fixtures/seed-scenario.json as one MP4, one playlist with the MP4 ads packaged,
        // the queue plan and the session's events (judged frame by frame in HLSPackagingFFmpegTests).
        #expect(result.stdout.contains("ad1.mp4 into 3 MPEG-TS files (ad1-0.ts …), samples copied"))
        #expect(result.stdout.contains("break 'once' starts (first time)"))
        #expect(result.stdout.contains("composition changes: 35.005 s -> 33.003 s"))
        let seed = MP4Fixtures.listing(scratch + "/demo-output/seed-hls")
        #expect(seed.contains("ad1-0.ts") && seed.contains("ad2-2.ts") && seed.contains("stitched.m3u8"))
        // 90 + 123 + 60 + 90 + 69 + 60 + 48 + 60 + 48 + 200 + 90 frames, the pieces' (each frame the scheduled
        // one: hash by hash in HLSPackagingFFmpegTests.seedScenario).
        #expect(try await ffmpeg.decodedFrames(scratch + "/demo-output/seed-hls/stitched.m3u8").count == 938)
        #expect(try await ffmpeg.videoFrames(scratch + "/demo-output/seed.mp4").count > 0)
        // Part 4 also renders demo-web.json web-safe: 150 + 192 + 180 + 90 + 288 + 352 + 180 frames
        // (judged frame by frame in RenderTests).
        #expect(result.stdout.contains("demo-output/web.mp4: 54.08 s, 7 segments"))
        #expect(try await ffmpeg.videoFrames(scratch + "/demo-output/web.mp4").count == 1432)
        // Part 7: the seed's scenario again, every source at a URL of a server the demo started on
        // 127.0.0.1: the same MP4 bytes, and a stitched playlist whose HLS segments are at their URLs
        // (none copied: only the packaged MP4 ads are files; its frames are judged against nginx in
        // RemoteScenarioTests, since this server ends with the demo).
        #expect(result.stdout.contains("byte for byte the file part 6 rendered from disk: yes"))
        #expect(FileManager.default.contents(atPath: scratch + "/demo-output/seed-remote.mp4")
                == FileManager.default.contents(atPath: scratch + "/demo-output/seed.mp4"))
        let remoteHLS = MP4Fixtures.listing(scratch + "/demo-output/seed-remote-hls")
        #expect(remoteHLS.filter { $0.hasSuffix(".ts") }.allSatisfy { $0.hasPrefix("ad1-") || $0.hasPrefix("ad2-") }, "\(remoteHLS)")
        #expect(result.stdout.contains("22 segments listed at their URLs on the server (not copied)"))
    }
}
