// The AVFoundation adapters, driven through the stand-ins of Apple's declarations
// (Sources/StandIns), which model the rules Apple documents: main-actor players and items, a 10^9
// clock, seeks that land later, observers that run later on the main queue, composition tracks
// that refuse empty ranges at their end. Built only where the real frameworks are absent.
#if !canImport(AVFoundation)
import AVFoundationStandIn
import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorAVFoundation
@testable import CompositorCore
@testable import CompositorHLS
import CompositorTesting

/// The reference sample's sources, as AVFoundation would load them (the layouts of
/// `CompositionEditsTests`: `ad5.mp4` has no audio, `ad17b.mp4`'s audio ends 0.5 s early).
@MainActor
private func registerReferenceMedia(portraitAd: Bool = false, levels: [String: Float] = [:]) {
    StandInWorld.reset()
    let seconds: [(String, Double, Double?)] = [
        ("A.mp4", 90, 90), ("B.mp4", 80, 80), ("ad5.mp4", 5, nil), ("ad17a.mp4", 17, 17), ("ad17b.mp4", 17, 16.5),
        ("ad25.mp4", 25, 25), ("ad15.mp4", 15, 15), ("ad45.mp4", 45, 45),
    ]
    for (name, video, audio) in seconds {
        let size = portraitAd && name == "ad25.mp4" ? CGSize(width: 1080, height: 1920) : CGSize(width: 1920, height: 1080)
        var tracks = [StandInMedia.Track(.video, timeRange: cmRange(0, video), naturalSize: size)]
        if let audio { tracks.append(StandInMedia.Track(.audio, timeRange: cmRange(0, audio), preferredVolume: levels[name] ?? 1)) }
        StandInWorld.register(MediaLocation(FilePath(name)).foundationURL, StandInMedia(tracks: tracks))
    }
}

private func cmRange(_ start: Double, _ end: Double) -> CMTimeRange {
    CMTimeRange(start: CMTime(seconds: start, preferredTimescale: 600), end: CMTime(seconds: end, preferredTimescale: 600))
}

/// Plays `player` for `seconds` in steps of an odd number of nanoseconds (so every tick lands on a
/// time no schedule timescale shares), landing each seek before playing on and letting the main
/// queue run between steps, as a device would. While `waitingFor` has work in flight (off the main
/// actor, such as writing a stitch), the player waits.
@MainActor
private func play(_ player: AVPlayer, seconds: Int64, step: CMTime = CMTime(value: 1_987_654_321, timescale: 1_000_000_000),
                  waitingFor controller: PlaybackSessionController? = nil, whilePlaying: (AVPlayer) -> Void = { _ in }) async {
    var played = CMTime.zero
    let total = CMTime(value: seconds, timescale: 1)
    while played < total {
        await StandInWorld.drainMainQueue()
        if player.standInSeekPending { player.standInCompleteSeek(); continue }
        if let controller, !controller.isSettled { try? await Task.sleep(nanoseconds: 1_000_000); continue }
        player.standInPlay(for: step)
        whilePlaying(player)
        played = played + step
    }
    await StandInWorld.drainMainQueue()
}

/// The events a session reports over an ideal player for the same script.
private func expectedEvents(
    _ schedule: Schedule, _ actions: [PlaybackSimulation.Action], durations: [MediaLocation: MediaTime] = [:]
) throws -> [PlaybackEvent] {
    var session = try PlaybackSession(schedule: schedule, naturalDurations: durations)
    var player = SingleItemPlayer(composition: session.composition)
    return PlaybackSimulation.run(actions, session: &session, player: &player).compactMap {
        if case .event(let event) = $0 { event } else { nil }
    }
}

@Suite("Apple adapters on the AVFoundation stand-in", .serialized)
@MainActor
struct AppleAdapterTests {
    let schedule: Schedule

    init() throws { schedule = try fixtureSchedule("reference-sample.json") }

    /// What a controller reported, as it came.
    final class EventLog { var events: [PlaybackEvent] = [] }

    /// A controller over a fresh player and the reference media, started, with its event log.
    func startedController() async throws -> (AVPlayer, PlaybackSessionController, EventLog) {
        registerReferenceMedia()
        let player = AVPlayer()
        let controller = PlaybackSessionController(session: try PlaybackSession(schedule: schedule), player: player)
        let log = EventLog()
        controller.onEvents = { log.events += $0 }
        try await controller.start()
        return (player, controller, log)
    }

    // MARK: The composition item

    /// ```
    /// composition 0  5       28   45   62      82    107     128  143     169       249   294
    /// video       |pre|A 0-23 |pod1|pod2|A 23-43|once |A 43-64|stky|A 64-90|B 0-80   |post |
    /// audio       |...|A 0-23 |pod1|pod2..|A 23-43 ...       (. = empty, inside the track)
    /// ```
    @Test("the reference sample becomes an immutable composition whose tracks follow Apple's rules, audio in sync")
    func referenceComposition() async throws {
        registerReferenceMedia()
        let composition = try Composition(schedule: schedule)
        let item = try await AVMutableCompositionAdapter.makePlayerItem(for: composition)
        let asset = try #require(item.asset as? AVComposition)
        #expect(StandInWorld.ruleBreaks.isEmpty)
        #expect(asset.duration == composition.duration.cmTime)
        let video = try #require(asset.tracks.first { $0.mediaType == .video })
        let audio = try #require(asset.tracks.first { $0.mediaType == .audio })
        // Every piece of media at its composition time, on both tracks.
        for (kind, track) in [(TrackKind.video, video), (.audio, audio)] {
            var cursor = CMTime.zero
            for segment in track.segments {
                #expect(segment.timeMapping.target.start == cursor, "\(kind) segments are contiguous from 0")
                cursor = segment.timeMapping.target.end
                guard !segment.isEmpty else { continue }
                let target = try #require(MediaTimeRange(segment.timeMapping.target))
                let planned = try #require(composition.segments.first { $0.compositionRange.start <= target.start && target.end <= $0.compositionRange.end })
                #expect(segment.sourceURL == planned.source.foundationURL)
                let offset = target.start - planned.compositionRange.start
                #expect(MediaTime(segment.timeMapping.source.start) == planned.sourceRange.start + offset, "\(kind) in sync")
            }
            #expect(cursor == composition.duration.cmTime, "\(kind) lasts the composition")
        }
        #expect(audio.segments.first?.isEmpty == true, "silence under the pre-roll without audio")
        #expect(item.videoComposition == nil)
        #expect(item.audioMix == nil, "every source at full level")
    }

    @Test("a quiet ad gets an audio mix: its level from its segment's start, full level back after it")
    func quietAd() async throws {
        registerReferenceMedia(levels: ["ad17a.mp4": 0.5, "ad17b.mp4": 0.5])
        let composition = try Composition(schedule: schedule)
        let item = try await AVMutableCompositionAdapter.makePlayerItem(for: composition)
        let parameters = try #require(item.audioMix?.inputParameters.first)
        let audio = try #require((item.asset as? AVComposition)?.tracks.first { $0.mediaType == .audio })
        #expect(parameters.trackID == audio.trackID)
        for segment in composition.segments {
            let expected: Float = ["ad17a.mp4", "ad17b.mp4"].contains(segment.source.description) ? 0.5 : 1
            #expect(parameters.standInVolume(at: segment.compositionRange.start.cmTime) == expected, "\(segment.id)")
        }
        #expect(StandInWorld.ruleBreaks.isEmpty)
    }

    @Test("sources are loaded for precise timing and kept while the composition is built")
    func preciseTimingAndRetainedAssets() async throws {
        registerReferenceMedia()
        let sources = try await AVSourceTracks.load(for: try Composition(schedule: schedule))
        #expect(sources.assets.count == 8)
        for asset in sources.assets.values {
            #expect(asset.options[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool == true)
        }
        // A track holds its asset weakly: only because the assets are kept can media be inserted.
        for tracks in sources.tracks.values { for track in tracks.values { #expect(track.asset != nil) } }
    }

    /// ```
    /// composition 0      10                      ~21.9
    ///             |ad (remote)|content 0-12 (remote)|
    /// ```
    @Test("remote MP4 sources from a catalog become AVURLAssets of their URLs, whatever their names")
    func remoteSources() async throws {
        StandInWorld.reset()
        let content = "http://127.0.0.1:1/content.mp4", ad = "http://127.0.0.1:1/ad?id=1"
        let transport = FileServingTransport([
            "content.mp4": Array(try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/content.mp4"))),
            "ad?id=1": Array(try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/ad1.mp4"))),
        ])
        let schedule = try Schedule(content: [ContentClip(id: "c", source: MediaLocation(parsing: content))],
                                    breaks: [AdBreak(id: "pre", placement: .preroll, ads: [Ad(id: "a", source: try MediaLocation(parsing: ad))])])
        let catalog = try await SourceCatalog.load(schedule, transport: transport)
        #expect(catalog.failures.isEmpty, "\(catalog.failures)")
        let composition = try Composition.loading(schedule, catalog: catalog)
        for (url, location) in [(content, MediaLocation(remoteURL: content)), (ad, MediaLocation(remoteURL: ad))] {
            let entry = try #require(catalog.entries[location])
            let duration = try #require(entry.trackDurations[.video])
            StandInWorld.register(URL(string: url)!, StandInMedia(tracks: [
                StandInMedia.Track(.video, timeRange: CMTimeRange(start: .zero, end: duration.cmTime), naturalSize: CGSize(width: 320, height: 180)),
            ]))
        }
        let item = try await AVMutableCompositionAdapter.makePlayerItem(for: composition, catalog: catalog)
        let asset = try #require(item.asset as? AVComposition)
        #expect(StandInWorld.ruleBreaks.isEmpty, "\(StandInWorld.ruleBreaks)")
        let video = try #require(asset.tracks.first { $0.mediaType == .video })
        #expect(video.segments.compactMap(\.sourceURL).map(\.absoluteString) == [ad, content])
    }

    @Test("an HLS playlist or a source without tracks is refused, not composed as a silent black gap")
    func refusedSources() async throws {
        registerReferenceMedia()
        StandInWorld.register(MediaLocation(FilePath("empty.mp4")).foundationURL, StandInMedia(tracks: []))
        let playlist = try Composition(schedule: Schedule(content: [ContentClip(id: "c", source: "content.m3u8", end: s(60))], breaks: []))
        await #expect(throws: AVCompositionError.playlistSource("content.m3u8")) {
            try await AVMutableCompositionAdapter.makePlayerItem(for: playlist)
        }
        let trackless = try Composition(schedule: Schedule(content: [ContentClip(id: "c", source: "empty.mp4", end: s(5))], breaks: []))
        await #expect(throws: AVCompositionError.noTracks("empty.mp4")) {
            try await AVMutableCompositionAdapter.makePlayerItem(for: trackless)
        }
    }

    @Test("a portrait ad among landscape content gets a video composition: the content's frame, the ad fitted and centred")
    func portraitAd() async throws {
        registerReferenceMedia(portraitAd: true)
        let composition = try Composition(schedule: schedule)
        let item = try await AVMutableCompositionAdapter.makePlayerItem(for: composition)
        let video = try #require(item.videoComposition)
        #expect(video.renderSize == CGSize(width: 1920, height: 1080))
        #expect(video.instructions.map(\.timeRange) == composition.segments.map(\.compositionRange.cmTimeRange))
        let adIndex = try #require(composition.segments.firstIndex { $0.source == "ad25.mp4" })
        let transform = try #require(video.instructions[adIndex].layerInstructions.first?.transforms.first?.transform)
        // 1080x1920 scaled by 1080/1920 to 607.5x1080, centred: 656.25 px on each side.
        #expect(transform == CGAffineTransform(a: 0.5625, b: 0, c: 0, d: 0.5625, tx: 656.25, ty: 0))
    }

    // MARK: The session controller

    @Test("a 10^9 clock crossing every boundary of the reference sample: the session's events exactly, once each")
    func nanosecondClock() async throws {
        let (player, controller, log) = try await startedController()
        var seekBars = 0
        await play(player, seconds: 330) { player in
            #expect(player.currentTime().timescale == 1_000_000_000)
            _ = controller.seekBar
            seekBars += 1
        }
        #expect(log.events == (try expectedEvents(schedule, [.play(s(330))])))
        #expect(log.events.last?.kind == .ended)
        #expect(seekBars > 100)
        #expect(StandInWorld.ruleBreaks.isEmpty)
    }

    /// Issue 53: events as an `AsyncStream` beside the closure, ended by `stop()`.
    @Test("the events stream gets what onEvents gets, in order; the seek bars stream each change; both end at stop()")
    func eventStream() async throws {
        let (player, controller, log) = try await startedController()
        let stream = controller.events, second = controller.events, bars = controller.seekBars
        let reader = Task { @MainActor in var seen: [PlaybackEvent] = []; for await event in stream { seen.append(event) }; return seen }
        let secondReader = Task { @MainActor in var count = 0; for await _ in second { count += 1 }; return count }
        let barsReader = Task { @MainActor in var seen: [SeekBarState] = []; for await state in bars { seen.append(state) }; return seen }
        let before = log.events.count
        await play(player, seconds: 60)
        let last = controller.seekBar
        controller.stop()
        let streamed = await reader.value
        #expect(streamed == Array(log.events[before...]))
        #expect(streamed.contains { if case .breakStarted = $0.kind { true } else { false } })
        #expect(await secondReader.value == streamed.count)
        // The seek bars as playback moved: each a change, the last what the controller shows now.
        let states = await barsReader.value
        #expect(states.count > 20 && zip(states, states.dropFirst()).allSatisfy { $0 != $1 })
        #expect(states.last == last)
        #expect(states.contains { $0.ad != nil } && states.contains { $0.ad == nil })
    }

    /// Issue 54: the controller fires the ad servers' beacons from the events it reports, the
    /// same the planner makes of them; pause and resume in an ad are the ad's.
    @Test("the controller's beacons are the planner's for the events it reported, pause and resume included")
    func adBeacons() async throws {
        registerReferenceMedia()
        let player = AVPlayer()
        var session = try PlaybackSession(schedule: schedule)
        var tracking = AdTracking()
        for ad in schedule.breaks.flatMap(\.ads) {
            let url = "http://127.0.0.1/\(ad.id)/"
            tracking.ads[ad.id] = ResolvedAd(
                id: ad.id, duration: s(5), mediaFile: VASTMediaFile(url: url + "media.mp4", delivery: .progressive, type: "video/mp4"),
                impressions: [url + "impression"],
                tracking: [VASTTrackingEvent.start, .firstQuartile, .midpoint, .thirdQuartile, .complete, .pause, .resume, .progress(.time(s(1)))]
                    .map { VASTTracking(event: $0, url: url + $0.name) })
        }
        session.adProgressOffsets = tracking.progressOffsets
        let controller = PlaybackSessionController(session: session, player: player)
        let log = EventLog()
        controller.onEvents = { log.events += $0 }
        var beacons: AdBeacons? = AdBeacons(ads: AdSchedule(schedule: schedule, tracking: tracking, errors: [], diagnostics: []), delivery: .stream)
        let stream = beacons!.stream
        let reader = Task { @MainActor in var seen: [String] = []; for await beacon in stream { seen.append(beacon.url) }; return seen }
        controller.beacons = beacons
        try await controller.start()
        await play(player, seconds: 1)  // one step of the stand-in's clock: 1.987654321 s
        try await controller.pause()
        try await controller.resume()
        await play(player, seconds: 60)
        controller.stop()
        controller.beacons = nil
        beacons = nil  // ends the stream
        let fired = await reader.value
        var planner = BeaconPlanner(tracking: tracking, schedule: schedule)
        let planned = planner.beacons(for: log.events, macros: BeaconMacros(cacheBusting: "1", timestamp: "t")).map(\.url)
        #expect(fired == planned)
        // The 5 s pre-roll: 1 s (its progress offset) and 1.25 s (a quarter) play before the pause at 1.99 s.
        #expect(Array(fired.prefix(6)) == ["impression", "start", "progress", "firstQuartile", "pause", "resume"].map { "http://127.0.0.1/pre-ad/" + $0 })
        #expect(fired.contains("http://127.0.0.1/pre-ad/complete") && fired.count > 20)
    }

    /// ```
    /// content     0        23        43   50
    /// composition 0  5     28   62   82   107  114
    ///                 ^ at 11 s: seek to content 50; snapback to the once break at 82 first
    /// ```
    /// Ticks queued before the seek arrive after it with the old time (11 s): taken as playback
    /// they would clear the pending target, and content would resume at 43 instead of 50.
    @Test("a stale tick after a snapback seek does not clear the target: content resumes at 50")
    func staleTickAfterSeek() async throws {
        let (player, controller, log) = try await startedController()
        await play(player, seconds: 10, step: CMTime(value: 1, timescale: 2))
        player.standInPlay(for: CMTime(value: 1, timescale: 1))  // ticks queued, not yet delivered
        try await controller.seek(toContentTime: s(50))
        await StandInWorld.drainMainQueue()
        await play(player, seconds: 40, step: CMTime(value: 1, timescale: 2))
        let resumed = try #require(log.events.first { $0.kind == .contentResumed && $0.compositionTime > s(82) })
        #expect(resumed.contentTime == s(50))
        #expect(log.events.map(\.kind) == (try expectedEvents(schedule, [.play(s(11)), .seekContent(s(50)), .play(s(40))])).map(\.kind))
    }

    @Test("ticks of the old item while the new one is built after a once break are ignored: no phantom events")
    func staleTicksAcrossCompositionSwap() async throws {
        let (player, controller, log) = try await startedController()
        await play(player, seconds: 106, step: CMTime(value: 1, timescale: 2))
        player.standInPlay(for: CMTime(value: 5, timescale: 1))  // past the once break's end at 107, old item
        await play(player, seconds: 200, step: CMTime(value: 1, timescale: 2))
        #expect(log.events == (try expectedEvents(schedule, [.play(s(400))])))
        let onceStarts = log.events.filter { $0.kind == .breakStarted(breakID: "once", first: true) }
        #expect(onceStarts.count == 1)
        withExtendedLifetime(controller) {}  // it drives the player until here
    }

    @Test("a failed rebuild is thrown to the caller, and the observers go when the controller goes")
    func errorsAndObserverLifetime() async throws {
        registerReferenceMedia()
        let player = AVPlayer()
        do {
            let controller = PlaybackSessionController(session: try PlaybackSession(schedule: schedule), player: player)
            try await controller.start()
            #expect(player.standInObserverCount == 2)
            await #expect(throws: AVCompositionError.playlistSource("live.m3u8")) {
                try await controller.insertNow([Ad(id: "now", source: "live.m3u8", end: s(10))])
            }
        }
        #expect(player.standInObserverCount == 0)
        #expect(StandInWorld.ruleBreaks.isEmpty)
    }

    // MARK: The stitched playlist

    /// What a controller of stitched playlists reported: each event with the player's time and
    /// the folder (generation) of the item playing when it came; and its errors.
    final class StitchLog {
        var reports: [(event: PlaybackEvent, playerTime: MediaTime, generation: String)] = []
        var errors: [any Error] = []
    }

    /// `Fixtures/seed-scenario.json` (HLS content, MP4 ads packaged into segments), stitched into
    /// playlists in `folder` and played by one `AVPlayer`, started.
    func startedStitchedController(
        folder: String
    ) async throws -> (AVPlayer, PlaybackSessionController, StitchLog, Schedule, [MediaLocation: MediaTime]) {
        StandInWorld.reset()
        let (schedule, durations) = try HLSJoin.schedule(json: try HLSJoin.fixture("seed-scenario.json"))
        let player = AVPlayer()
        let controller = PlaybackSessionController(
            session: try PlaybackSession(schedule: schedule, naturalDurations: durations), player: player,
            playing: .stitchedPlaylist(folder: FilePath(folder)))
        let log = StitchLog()
        controller.onEvents = { events in
            let generation = (player.currentItem?.asset as? AVURLAsset)?.url.deletingLastPathComponent().lastPathComponent ?? "-"
            log.reports += events.map { ($0, MediaTime(player.currentTime()) ?? .zero, generation) }
        }
        controller.onError = { log.errors.append($0) }
        try await controller.start()
        return (player, controller, log, schedule, durations)
    }

    /// Plays as `play` does, in 1/20 s steps, each new item for as long as its playlist's EXTINFs
    /// say (the stand-in knows no playlists); returns the items in the order they played.
    func playStitched(_ player: AVPlayer, _ controller: PlaybackSessionController, seconds: Int64) async -> [AVPlayerItem] {
        var items: [AVPlayerItem] = []
        await play(player, seconds: seconds, step: CMTime(value: 1, timescale: 20), waitingFor: controller) { player in
            guard let item = player.currentItem, !items.contains(where: { $0 === item }),
                  let url = (item.asset as? AVURLAsset)?.url,
                  let playlist = try? HLSMediaPlaylist(parsing: Array(Data(contentsOf: url)), url: url.path),
                  let duration = try? playlist.totalDuration else { return }
            StandInWorld.register(url, StandInMedia(tracks: [], duration: duration.cmTime))
            items.append(item)
        }
        return items
    }

    /// ```
    /// scheduled 0   3          8        13.003     16.003  18.003  20.003      30.003  33.003
    ///           |pre|A 0-5      |pod     |A 5-8     |once   |A 8-10 |sticky|A 10-12 B 0-8|post|
    /// stitched      |A 0-5.125    |pod     |A 5.125-8 |...    (A's boundary at 5.125: the pod 0.125 s later)
    /// ```
    @Test("HLS content with MP4 ads as one stitched playlist in one AVPlayer: each event when the stitched item crosses it")
    func stitchedPlaylist() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("apple-stitched")
        defer { MP4Fixtures.remove(folder) }
        let (player, controller, log, schedule, durations) = try await startedStitchedController(folder: folder)
        let first = controller.session.composition
        let items = await playStitched(player, controller, seconds: 60)

        #expect(log.errors.isEmpty, "\(log.errors)")
        #expect(log.reports.map(\.event) == (try expectedEvents(schedule, [.play(s(60))], durations: durations)))
        #expect(log.reports.last?.event.kind == .ended)
        // The once break's end made a second stitch without it; the first one's folder went with its item.
        let urls = items.compactMap { ($0.asset as? AVURLAsset)?.url.deletingLastPathComponent() }
        #expect(urls.map(\.lastPathComponent) == ["1", "2"])
        #expect(!FileManager.default.fileExists(atPath: urls[0].path))
        // Every break and ad boundary was reported when the stitched item crossed it: within the
        // step (1/20 s) after where the stitch put it, not where the schedule did.
        let stitcher = HLSExporter(outputURL: folder + "/check.m3u8")
        let stitches = ["1": try stitcher.stitch(first), "2": try stitcher.stitch(controller.session.composition)]
        let pod = try #require(stitches["1"]?.composition.breaks.first { $0.id == "pod" })
        #expect(pod.compositionRange.start == t("8.125"), "the pod moved with the content's cut")
        var checked = 0
        for (event, playerTime, generation) in log.reports {
            switch event.kind {
            case .breakStarted, .adStarted, .adQuartile, .adEnded, .breakEnded, .ended:
                let stitched = try #require(stitches[generation]?.reconciled.playedTime(forRequestedTime: event.compositionTime))
                #expect(stitched <= playerTime && playerTime < stitched + t("0.05"), "\(event.name) at \(event.compositionTime) came at \(playerTime), stitched at \(stitched)")
                checked += 1
            default: break
            }
        }
        #expect(checked > 30)
        #expect(StandInWorld.ruleBreaks.isEmpty)
    }

    /// ```
    /// scheduled 3       8 (pod)   13.003
    ///           |A 0-5   |pod      |A 5-8 ...      at content 2: seek to content 6; snapback to the pod first
    /// stitched  |A 0-5.125 |pod      |A 5.125-8 ...   the pod starts at 8.125 there
    /// ```
    @Test("a seek in a stitched playlist lands where the stitch shows the frame asked for")
    func stitchedPlaylistSeek() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("apple-stitched-seek")
        defer { MP4Fixtures.remove(folder) }
        let (player, controller, log, schedule, durations) = try await startedStitchedController(folder: folder)
        let stitched = try HLSExporter(outputURL: folder + "/check.m3u8").stitch(controller.session.composition)
        _ = await playStitched(player, controller, seconds: 5)
        try await controller.seek(toContentTime: s(6))
        let item = try #require(player.currentItem)
        _ = await playStitched(player, controller, seconds: 6)

        #expect(log.errors.isEmpty, "\(log.errors)")
        #expect(log.reports.map(\.event) == (try expectedEvents(schedule, [.play(s(5)), .seekContent(s(6)), .play(s(6))], durations: durations)))
        // Shown: the pre-roll and content to 5 s, the pod from its stitched start, then content 6.
        let pod = try #require(stitched.composition.breaks.first { $0.id == "pod" }).compositionRange
        let content6 = stitched.composition.compositionTime(forContentTime: s(6))
        #expect(item.presented.count == 3)
        #expect(item.presented.dropFirst().map { MediaTime($0.start) } == [pod.start, content6])
        // The pod plays to its end; the seek to content 6 comes when the player reports it (the step after).
        let podShown = try #require(MediaTime(item.presented[1].end))
        #expect(pod.end <= podShown && podShown < pod.end + t("0.05"))
        #expect(StandInWorld.ruleBreaks.isEmpty)
    }

    // MARK: The queue path

    @Test("a queue switch: every item starts at its cut (no frame before it), and every break is reported once")
    func queueSwitch() async throws {
        registerReferenceMedia()
        let player = AVQueuePlayer()
        let controller = QueueSessionController(session: try PlaybackSession(schedule: schedule), player: player)
        var events: [PlaybackEvent] = []
        controller.onEvents = { events += $0 }
        var seen: [AVPlayerItem] = []
        // Each item's cut, by its source and end, in every plan played (the once break's end replaces it).
        var cuts: [String: Set<Double>] = [:]
        func key(_ url: URL?, _ end: CMTime) -> String { "\(url?.absoluteString ?? "?") until \(end.seconds)" }
        try await controller.start()
        await play(player, seconds: 330, step: CMTime(value: 1, timescale: 4)) { player in
            if let item = player.currentItem, !seen.contains(where: { $0 === item }) { seen.append(item) }
            for entry in controller.driver.plan.items {
                cuts[key(entry.source.foundationURL, entry.forwardPlaybackEndTime.cmTime), default: []].insert(entry.startTime.cmTime.seconds)
            }
        }
        #expect(events == (try expectedEvents(schedule, [.play(s(330))])))
        #expect(seen.filter { !$0.presented.isEmpty }.count >= controller.driver.plan.items.count)
        for item in seen {
            guard let first = item.presented.first else { continue }  // replaced before it played
            let itemCuts = cuts[key((item.asset as? AVURLAsset)?.url, item.forwardPlaybackEndTime)] ?? []
            #expect(itemCuts.contains(first.start.seconds), "an item showed \(first.start) first, not its cut \(itemCuts)")
        }
        #expect(StandInWorld.ruleBreaks.isEmpty)
    }

    // MARK: Interstitial events

    /// `Fixtures/demo-hls.json` stitched as interstitials, scheduled by the app instead of by the
    /// playlist: the events say what the date ranges say.
    @Test("an interstitials stitch as AVPlayerInterstitialEvents: times, ad items, offsets, limits, restrictions, cues")
    func interstitialEvents() async throws {
        StandInWorld.reset()
        let folder = try MP4Fixtures.makeScratchFolder("apple-interstitials")
        defer { MP4Fixtures.remove(folder) }
        let json = try String(contentsOfFile: HLSJoin.fixtures + "/demo-hls.json", encoding: .utf8)
            .replacingOccurrences(of: #""at": 14.3,"#, with: #""at": 14.3, "skippable": false,"#)
        let (schedule, durations) = try HLSJoin.schedule(json: json)
        let stitched = try HLSExporter(outputURL: folder + "/stitched.m3u8")
            .stitchInterstitials(schedule, naturalDurations: durations, restrictingJumps: true)
        let primary = AVPlayerItem(url: AVInterstitialEvents.foundationURL(stitched.outputURL))
        let events = AVInterstitialEvents.events(for: stitched, primaryItem: primary)

        #expect(events.map(\.identifier) == ["pre", "mid1", "mid2", "post"])
        #expect(events.map(\.time.seconds) == [0, 8, 13.8, 19.2])
        #expect(events.map(\.cue) == [.joinCue, .noCue, .noCue, .leaveCue])
        #expect(events.map(\.willPlayOnce) == [false, true, false, false])
        #expect(events.map(\.resumptionOffset.seconds) == [0, 0, 0, 0])
        #expect(events.allSatisfy { !$0.playoutLimit.isValid })
        #expect(events.map(\.restrictions) == [
            .constrainsSeekingForwardInPrimaryContent, [],
            [.constrainsSeekingForwardInPrimaryContent, .requiresPlaybackAtPreferredRateForAdvancement],
            .constrainsSeekingForwardInPrimaryContent,
        ])
        #expect(events.map { $0.templateItems.compactMap { ($0.asset as? AVURLAsset)?.url.lastPathComponent } } == [
            ["interstitial-1-1.m3u8"], ["interstitial-2-1.m3u8", "interstitial-2-2.m3u8"], ["interstitial-3-1.m3u8"],
            ["interstitial-4-1.m3u8"],
        ])
        #expect(events.allSatisfy { $0.primaryItem === primary })
        #expect(StandInWorld.ruleBreaks.isEmpty)

        // A composition item has no dates: the stand-in records the call Apple says cannot work.
        _ = AVInterstitialEvents.events(for: stitched, primaryItem: AVPlayerItem(asset: AVMutableComposition()))
        #expect(StandInWorld.ruleBreaks.count == 4)
    }

    /// ```
    /// composition 0  5        28        45   62          (pre-roll 5 s, A 0-23, pod at content 23)
    /// content        0        23                23
    /// ```
    @Test("CoreMedia times in and out: a 10^9 player clock, ranges, and times that are not times")
    func coreMediaTimes() throws {
        let composition = try Composition(schedule: schedule)
        let nanos = CMTime(value: 12_345_678_901, timescale: 1_000_000_000)
        #expect(try composition.contentTime(atPlayerTime: nanos) == composition.contentTime(forCompositionTime: try #require(MediaTime(nanos))).cmTime)
        #expect(try composition.contentTime(atPlayerTime: CMTime(value: 30, timescale: 1)) == CMTime(value: 23, timescale: 1), "inside the pod")
        #expect(try composition.playerTime(forContentTime: CMTime(value: 23, timescale: 1)) == composition.compositionTime(forContentTime: s(23)).cmTime)
        #expect(try composition.playerTime(forContentTime: CMTime(value: 23, timescale: 1), bias: .beforeBreaks) == CMTime(value: 28, timescale: 1))
        #expect(try composition.locate(playerTime: nanos)?.segment.id == "A")
        #expect(try composition.seekBar(atPlayerTime: nanos) == composition.seekBar(at: try #require(MediaTime(nanos))))
        for time in [CMTime.invalid, .indefinite, .positiveInfinity] {
            #expect(throws: PlayerTimeError.self) { try composition.contentTime(atPlayerTime: time) }
            #expect(throws: PlayerTimeError.self) { try composition.locate(playerTime: time) }
        }
        let range = composition.segments[1].compositionRange
        #expect(MediaTimeRange(range.cmTimeRange) == range)
        #expect(MediaTimeRange(CMTimeRange(start: .invalid, duration: .zero)) == nil)
    }

    @Test("the stand-in enforces what the adapters must avoid")
    func standInRules() async throws {
        StandInWorld.reset()
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        track.insertEmptyTimeRange(cmRange(0, 5))
        #expect(StandInWorld.ruleBreaks.count == 1)
        let url = URL(fileURLWithPath: "/media/a.mp4")
        StandInWorld.register(url, StandInMedia(tracks: [StandInMedia.Track(.video, timeRange: cmRange(0, 10))]))
        let item = AVPlayerItem(url: url)
        item.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero) { _ in }
        #expect(StandInWorld.ruleBreaks.count == 2)  // a completion handler before readyToPlay
        let player = AVPlayer(playerItem: item)
        _ = player.addBoundaryTimeObserver(forTimes: [], queue: .main) {}
        #expect(StandInWorld.ruleBreaks.count == 3)
        #expect(player.currentTime().timescale == 1_000_000_000)
    }
}
#endif
