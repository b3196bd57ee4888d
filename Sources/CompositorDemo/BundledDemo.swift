import Compositor
import CompositorIO
import CompositorTesting
import Foundation

/// `CompositorDemo` with no arguments: a tour of the library on the bundled fixtures.
enum BundledDemo {
    static func run() throws(DemoError) {
        let fixtures = try fixturesFolder()
        let path = fixtures + "/reference-sample.json"
        Output.out("""
            Compositor demo
            ===============

            1. The reference sample app's schedule (\(path)):
               content A [0, 90) then B [0, 80); a pre-roll; a pod of two ads at 23; a play-once
               ad at 43; a sticky ad at 64; a post-roll. Ads take no content time.
               A timeline-only example: every item gives its end, the media it names are
               placeholders, and it is not rendered (parts 4 and 5 render real clips).

            """)
        // Its media are placeholders, as said above: no warning about each.
        let composition = try LoadedSchedule(path: FilePath(path), warningOfUnreadableSources: false).composition
        TimelineReport.printText(composition, title: "reference-sample.json")

        Output.out("\n2. Mapping, both ways (content time <-> composition time):\n")
        for seconds in [0, 10, 23, 43, 90, 170] as [Int64] {
            let t = MediaTime(seconds: seconds)
            let after = composition.compositionTime(forContentTime: t)
            let before = composition.compositionTime(forContentTime: t, bias: Composition.BreakBias.beforeBreaks)
            Output.out("   content \(pad(t)) -> composition \(pad(after))"
                + (before != after ? "  (its break starts at \(before))" : ""))
        }
        Output.out("")
        for seconds in [3, 30, 50, 100, 150, 260] as [Int64] {
            Output.out("   " + Mapping(composition: composition, compositionTime: MediaTime(seconds: seconds),
                                        contentTime: composition.contentTime(forCompositionTime: MediaTime(seconds: seconds))).text)
        }

        Output.out("\n3. Seek bars (the main bar spans content only; ads get their own bar):\n")
        for seconds in [20, 50, 150] as [Int64] {
            let state = composition.seekBar(at: MediaTime(seconds: seconds), playedBreakIDs: ["pre", "pod"])
            var line = "   composition \(pad(MediaTime(seconds: seconds))): main \(state.main.label)"
            if let ad = state.ad { line += ", \(ad.title) \(ad.label)" }
            Output.out(line)
        }
        let markers = composition.breakMarkers(playedBreakIDs: ["pre", "pod"])
            .map { "\($0.breakID)@\($0.position)\($0.played ? " (played)" : "")" }
        Output.out("   markers: " + markers.joined(separator: ", "))
        try renderFixtures(fixtures)
        try stitchHLSFixtures(fixtures)
        try seedScenario(fixtures)
        try remoteScenario(fixtures)
        Output.out("\nTry: swift run CompositorDemo map \(path) --content-time 23 --json")
    }

    /// Renders `Fixtures/demo.json` (real clips) into `demo-output/stitched.mp4`.
    static func renderFixtures(_ fixtures: String) throws(DemoError) {
        let schedule = fixtures + "/demo.json"
        Output.out("\n4. Rendering \(schedule): real clips, stitched by copying samples (no re-encoding):\n")
        let loaded = try LoadedSchedule(path: FilePath(schedule), placingOnly: false)
        TimelineReport.printText(loaded.composition, title: "demo.json")
        let folder = FileManager.default.currentDirectoryPath + "/demo-output"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .failure("\(folder): cannot create: \(error.localizedDescription)")
        }
        let output = folder + "/stitched.mp4"
        let rendered = try RenderCommand.render(loaded.composition, catalog: loaded.catalog, to: FilePath(output), cut: .sampleAccurate, scheduleFile: loaded.path)
        RenderCommand.report(rendered, output: FilePath(output), cut: .sampleAccurate, leadingBlankLine: true)
        Output.out("   play it: ffplay \(output)   (or QuickTime / AVFoundation, which honour its edit lists)")

        // The same shape with ads in the content's audio format, for browsers and other players.
        let web = try LoadedSchedule(path: FilePath(fixtures + "/demo-web.json"), placingOnly: false)
        let webOutput = folder + "/web.mp4"
        let webRendered = try RenderCommand.render(web.composition, catalog: web.catalog, to: FilePath(webOutput), cut: .webSafe, scheduleFile: web.path)
        Output.out("\n   For browsers, VLC, GStreamer and mpv: \(fixtures)/demo-web.json, web-safe (README: which output for which player)")
        RenderCommand.report(webRendered, output: FilePath(webOutput), cut: .webSafe)
    }

    /// Stitches `Fixtures/demo-hls.json` (MPEG-TS playlists) into `demo-output/hls/`.
    static func stitchHLSFixtures(_ fixtures: String) throws(DemoError) {
        let schedule = fixtures + "/demo-hls.json"
        Output.out("""

            5. Stitching \(schedule): HLS playlists joined into one playlist (segments referenced, not copied).
               A playlist holds whole segments, so every cut moves to the nearest segment boundary;
               the timeline below is the one that really plays:

            """)
        let loaded = try LoadedSchedule(path: FilePath(schedule), placingOnly: false)
        let folder = "demo-output/hls"
        let stitched = try HLSCommand.stitch(loaded, into: FilePath(folder))
        TimelineReport.printText(stitched.composition, title: "demo-hls.json as stitched")
        Output.out("\n" + HLSCommand.summary(stitched, folder: folder))
        Output.out("   (any HLS player: ffplay, mpv, Safari, AVPlayer; the queue plan keeps the exact cuts for AVQueuePlayer)")
    }

    /// `Fixtures/seed-scenario.json`, the reference sample app's scenario on the bundled clips,
    /// through every output: one MP4, one stitched playlist with the MP4 ads packaged, the queue
    /// plan, and the session's events as a player plays it through.
    static func seedScenario(_ fixtures: String) throws(DemoError) {
        let schedule = fixtures + "/seed-scenario.json"
        Output.out("""

            6. The reference app's scenario on bundled clips (\(schedule)): HLS (MPEG-TS) content A and B,
               an MP4 pre-roll, a pod of two MP4 ads at 5, a play-once MP4 ad at 8, a sticky one at 10,
               an HLS post-roll. Every output:

            """)
        let loaded = try LoadedSchedule(path: FilePath(schedule), placingOnly: false)
        TimelineReport.printText(loaded.composition, title: "seed-scenario.json")
        let output = FileManager.default.currentDirectoryPath + "/demo-output/seed.mp4"
        let rendered = try RenderCommand.render(loaded.composition, catalog: loaded.catalog, to: FilePath(output), cut: .sampleAccurate, scheduleFile: loaded.path)
        Output.out("\n   One MP4 (the HLS content demuxed from its transport stream segments):")
        RenderCommand.report(rendered, output: FilePath(output), cut: .sampleAccurate)
        let folder = "demo-output/seed-hls"
        let stitched = try HLSCommand.stitch(loaded, into: FilePath(folder))
        Output.out("\n   One stitched playlist (the MP4 ads packaged into MPEG-TS segments beside it):")
        Output.out(HLSCommand.summary(stitched, folder: folder))
        Output.out("\n   The queue plan (AVQueuePlayer, exact cuts): \(stitched.queuePlan.items.count) items, "
            + stitched.queuePlan.items.map { item in
                switch item.role {
                case .content(let clipID): return clipID
                case .ad(let ad): return ad.adID
                }
            }.joined(separator: ", "))
        Output.out("\n   The session's events, played through once:")
        var session: PlaybackSession
        do { session = try PlaybackSession(schedule: loaded.schedule, naturalDurations: loaded.naturalDurations) } catch {
            throw .failure("\(schedule): \(error)")
        }
        var player = SingleItemPlayer(composition: session.composition)
        PlaybackSimulation.run(
            [.play(session.composition.duration)], session: &session, player: &player,
            resolveURL: { url throws(MediaLocationError) in try MediaLocation(parsing: url, relativeTo: loaded.folder) },
            naturalDuration: { NaturalDurationProbe.duration(of: $0) }
        ) { entry in
            if case .event(let event) = entry { Output.out("   " + SimulateCommand.eventText(event)) }
        }
    }

    private static func pad(_ t: MediaTime) -> String {
        let text = t.description
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    /// `Fixtures/` of the package: from the working folder (`swift run`), else beside this source file.
    static func fixturesFolder() throws(DemoError) -> String {
        let candidates = [
            FileManager.default.currentDirectoryPath + "/Fixtures",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fixtures").path,
        ]
        for folder in candidates where FileManager.default.fileExists(atPath: folder + "/reference-sample.json") {
            return folder
        }
        throw .failure("cannot find the Fixtures folder (looked in \(candidates.joined(separator: ", ")))")
    }

    /// Part 6's scenario with every source at an http URL, served by a server started here on
    /// 127.0.0.1: loaded once (a remote MP4 read by ranges, never whole), rendered to the same
    /// bytes as from disk, and stitched with the HLS sources' segments listed at their URLs.
    static func remoteScenario(_ fixtures: String) throws(DemoError) {
        let server = try FixtureServer(folder: fixtures)
        defer { server.stop() }
        let schedule = "demo-output/seed-remote.json"
        // The library's own atomic file: Foundation's atomic write on Linux leaves a folder
        // (/tmp/TemporaryDirectory.*) behind at every run.
        let text: String
        do { text = try String(contentsOfFile: fixtures + "/seed-scenario.json", encoding: .utf8) } catch {
            throw .failure("\(fixtures)/seed-scenario.json: cannot read: \(error.localizedDescription)")
        }
        do throws(FileError) {
            let file = try AtomicOutputFile(path: FilePath(schedule))
            try file.write(Array(text.replacingOccurrences(of: "\"url\": \"", with: "\"url\": \"\(server.baseURL)").utf8))
            try file.commit()
        } catch {
            throw .failure("\(schedule): cannot write: \(error.reasonText)")
        }
        Output.out("""

            7. The same scenario with every source remote (\(schedule)): the fixtures served by a server
               this demo started on \(server.baseURL), as a media server or a CDN would serve them.

            """)
        let loaded = try LoadedSchedule(path: FilePath(schedule))
        for entry in loaded.catalog.entries.values.sorted(by: { $0.location.description < $1.location.description }) {
            let kind = switch entry.kind {
            case .mp4: "MP4, read by ranges"
            case .mediaPlaylist: "media playlist"
            case .multivariantPlaylist: "multivariant playlist"
            }
            Output.out("   \(entry.location.displayDescription): \(kind), \(entry.naturalDuration) s")
        }
        let output = "demo-output/seed-remote.mp4"
        let rendered = try RenderCommand.render(loaded.composition, catalog: loaded.catalog, to: FilePath(output), cut: .sampleAccurate,
                                                scheduleFile: loaded.path)
        RenderCommand.report(rendered, output: FilePath(output), cut: .sampleAccurate, leadingBlankLine: true)
        let same = FileManager.default.contentsEqual(atPath: output, andPath: "demo-output/seed.mp4")
        Output.out("   byte for byte the file part 6 rendered from disk: \(same ? "yes" : "NO")")
        let folder = "demo-output/seed-remote-hls"
        let stitched = try HLSCommand.stitch(loaded, into: FilePath(folder))
        Output.out("\n" + HLSCommand.summary(stitched, folder: folder))
        let listed = stitched.variants.first?.result.playlist.segments.filter { $0.uri.hasPrefix(server.baseURL) }.count ?? 0
        Output.out("   \(listed) segments listed at their URLs on the server (not copied); the MP4 ads packaged beside the playlist")
        if !same { throw .failure("\(output) differs from demo-output/seed.mp4: a remote render must give the same bytes") }
    }
}
