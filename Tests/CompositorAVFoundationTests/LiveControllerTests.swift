// The live controller on the AVFoundation stand-in: a stitched live stream served by a scripted
// origin whose window moves with a manual clock, an item whose dates run on with its time.
#if !canImport(AVFoundation)
import AVFoundationStandIn
import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorAVFoundation
@testable import CompositorCore
@testable import CompositorHLS

/// A stitched live stream at http://127.0.0.1/live/stitched.m3u8: 2 s segments from `epoch`, a
/// window of 6, one more segment each 2 s of `clock`. The break `b1` replaces segments 8-10 with
/// ads `a` (4 s) and `b` (2 s), as `LiveStitcher` writes it: its date range from its first ad
/// segment (and at the window's first segment once that is later), `DURATION` and `X-REPLACED`
/// once over.
///
///     segment   0   1   2 ... 7 | 8   9 | 10 | 11  12 ...
///     date      T  T+2 T+4   T+14|T+16   |T+20|T+22
///     stream    content         | ad a  | b  | content
///     published 6 at first, one more each 2 s of the clock
final class ScriptedLiveStream: HTTPTransport, @unchecked Sendable {
    static let epoch: Int64 = 1_795_000_000
    static let url = "http://127.0.0.1/live/stitched.m3u8"
    let clock: ManualClock
    /// Loads answered 503, by the clock's whole seconds when asked.
    let failingAt: Set<Int64>
    private let lock = NSLock()
    private(set) var loads = 0

    init(clock: ManualClock, failingAt: Set<Int64> = []) {
        self.clock = clock
        self.failingAt = failingAt
    }

    static func date(_ segment: Int) -> String {
        HLSDateTime(secondsSinceEpoch: MediaTime(seconds: epoch + 2 * Int64(segment))).description
    }

    /// The playlist with segments up to `last`.
    static func playlist(through last: Int) -> String {
        let first = max(0, last - 5)
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for n in first...last {
            // The break's date range: at its first ad segment, or at the window's first while any
            // of its segments is in the window.
            if n == max(first, 8), first <= 10 {
                text += "#EXT-X-DATERANGE:ID=\"b1\",CLASS=\"com.compositor.ad-break\",START-DATE=\"\(date(8))\",PLANNED-DURATION=6"
                text += last >= 10 ? ",DURATION=6,X-REPLACED=6" : ""
                text += ",X-AD-IDS=\"a,b\",X-AD-DURATIONS=\"4,2\"\n"
            }
            if n == 8 || n == 11 { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXT-X-PROGRAM-DATE-TIME:\(date(n))\n#EXTINF:2.0,\n"
            text += (8...10).contains(n) ? "ads/\(n < 10 ? "a-\(n - 8)" : "b-0").ts\n" : "seg\(n).ts\n"
        }
        return text
    }

    func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        guard request.url == Self.url else { return HTTPTransportResponse(status: 404) }
        let seconds = clock.now.offset.components.seconds
        lock.withLock { loads += 1 }
        if failingAt.contains(seconds) { return HTTPTransportResponse(status: 503) }
        return HTTPTransportResponse(status: 200, body: Array(Self.playlist(through: 5 + Int(seconds / 2)).utf8))
    }
}

extension AppleAdapterTests {
    /// Where the item's time 0 is on the stream's clock: 0.3 s before the first window's start
    /// (T), off the grid of segments and ticks, as a real item's time is.
    static let itemStart = Double(ScriptedLiveStream.epoch) - 0.3

    /// A live controller over the scripted stream, started: the item's dates run on with its
    /// time from `itemStart`.
    func startedLiveController(
        clock: ManualClock, failingAt: Set<Int64> = [], dated: Bool = true
    ) async throws -> (AVPlayer, LiveSessionController, EventLog, ScriptedLiveStream) {
        StandInWorld.reset()
        let url = try #require(URL(string: ScriptedLiveStream.url))
        StandInWorld.register(url, StandInMedia(
            tracks: [], duration: .indefinite, startDate: dated ? Date(timeIntervalSince1970: Self.itemStart) : nil))
        let stream = ScriptedLiveStream(clock: clock, failingAt: failingAt)
        let player = AVPlayer()
        let controller = LiveSessionController(url: url, player: player, transport: stream,
                                               limits: HTTPTransportLimits(maximumRetries: 0), clock: clock)
        let log = EventLog()
        controller.onEvents = { log.events += $0 }
        try await controller.start()
        return (player, controller, log, stream)
    }

    /// Plays `seconds` in quarter-second steps, the clock moving with the player; seeks land
    /// before playing on, and reloads get to run (each waits on the clock).
    /// `reloadsEnded` says when the controller stopped reloading (nothing will wait on the clock).
    func playLive(_ player: AVPlayer, _ controller: LiveSessionController, clock: ManualClock, seconds: Int,
                  reloadsEnded: () -> Bool = { false }, at moment: (Double) async -> Void = { _ in }) async {
        let step = CMTime(value: 1, timescale: 4)
        for quarter in 0..<(seconds * 4) {
            await settle(player, controller, clock: clock, reloadsEnded: reloadsEnded)
            await moment(Double(quarter) / 4)
            await settle(player, controller, clock: clock, reloadsEnded: reloadsEnded)
            player.standInPlay(for: step)
            clock.advance(by: .milliseconds(250))
        }
        await settle(player, controller, clock: clock, reloadsEnded: reloadsEnded)
    }

    /// Lets reloads, queued callbacks and seeks run until nothing is left to do: the next reload
    /// waits on the clock (or the reloads ended).
    func settle(_ player: AVPlayer, _ controller: LiveSessionController?, clock: ManualClock, reloadsEnded: () -> Bool = { false }) async {
        for _ in 0..<2000 {
            await StandInWorld.drainMainQueue()
            if player.standInSeekPending { player.standInCompleteSeek(); continue }
            if controller?.isSettled ?? true, clock.waiting > 0 || reloadsEnded() { return }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        Issue.record("the controller never settled")
    }

    /// The events' names, with the date the player showed when each was reported.
    static func names(_ events: [PlaybackEvent]) -> [String] {
        events.compactMap { event in
            switch event.kind {
            case .breakStarted(let id, _): "breakStarted \(id)"
            case .adStarted(let ad): "adStarted \(ad.adID)"
            case .adEnded(let ad, _): "adEnded \(ad.adID)"
            case .breakEnded(let id, _): "breakEnded \(id)"
            case .contentResumed: "contentResumed"
            default: nil
            }
        }
    }

    /// ```
    /// date      T ........ T+16 |a 4 s |b 2 s| T+22 ...
    /// player    joins at T (the first window's start), plays at 1x for 30 s
    /// reloads   every 2 s; b1 first in the load of T+6 (segment 8 published)
    /// ```
    @Test("live: a stitched stream's break, first seen on a reload, reported at its dates as the player crosses them")
    func liveBreakAtItsDates() async throws {
        let clock = ManualClock()
        let (player, controller, log, stream) = try await startedLiveController(clock: clock)
        var dates: [String: Double] = [:]
        var boundaries: [Double] = []
        controller.onEvents = { events in
            log.events += events
            for name in Self.names(events) { dates[name] = player.currentItem?.currentDate()?.timeIntervalSince1970 }
        }
        await playLive(player, controller, clock: clock, seconds: 30, at: { second in
            // The reload at 6 s brought b1's first segment (its ads so far: 2 s of a), the one at
            // 10 s its last: all its boundaries are observed from then on.
            if second == 7 { #expect(player.standInBoundaryTimes.map(\.seconds).max().map { abs($0 - 18.3) < 1e-6 } == true) }
            if second == 11 { boundaries = player.standInBoundaryTimes.map(\.seconds) }
        })
        #expect(Self.names(log.events) == [
            "breakStarted b1", "adStarted b1/a", "adEnded b1/a", "adStarted b1/b", "adEnded b1/b", "breakEnded b1", "contentResumed",
        ])
        // Observed at the item times of their dates (T+16, T+20, T+22 are 16.3, 20.3, 22.3 s
        // into the item), so each is reported within a step of the player (0.25 s) of its date.
        let t = Double(ScriptedLiveStream.epoch)
        for expected in [16.3, 20.3, 22.3] {
            #expect(boundaries.contains { abs($0 - expected) < 1e-6 }, "\(boundaries)")
        }
        for (name, date) in [("adStarted b1/a", t + 16), ("adStarted b1/b", t + 20), ("breakEnded b1", t + 22)] {
            #expect(dates[name].map { $0 >= date - 1e-6 && $0 < date + 0.25 } == true, "\(name): \(dates[name].map { $0 - t } ?? -1)")
        }
        // Reloaded every target duration (2 s): 15 loads in 30 s, and the first.
        #expect(stream.loads == 16)
        // The seek bar: the window of the last load (segments 15-20), the playhead 30 s on.
        let bar = try #require(controller.seekBar)
        #expect(bar.windowStart == MediaTime(seconds: ScriptedLiveStream.epoch + 30))
        #expect(bar.liveEdge == MediaTime(seconds: ScriptedLiveStream.epoch + 42))
        #expect(abs(bar.position.seconds - (Self.itemStart + 30)) < 1e-6, "\(bar.position.seconds - t)")
        controller.stop()
        #expect(player.standInObserverCount == 0)
    }

    /// ```
    /// date      T ..... T+13  T+16 |a 4 s |b 2 s| T+22  T+24
    /// player    at T+13 seeks to the live edge (T+24): b1 plays first from T+16, then T+24
    /// ```
    @Test("live: a seek to the live edge across an unplayed break plays it first, then lands where asked")
    func liveSnapback() async throws {
        let clock = ManualClock()
        let (player, controller, log, _) = try await startedLiveController(clock: clock)
        var landed: [Double] = []
        await playLive(player, controller, clock: clock, seconds: 20, at: { second in
            guard second == 13 else { return }
            #expect(controller.seekBar?.liveEdge == MediaTime(seconds: ScriptedLiveStream.epoch + 24))
            try? await controller.seekToLiveEdge()
            await settle(player, controller, clock: clock)
            landed.append(player.currentItem?.currentDate()?.timeIntervalSince1970 ?? 0)
        })
        let t = Double(ScriptedLiveStream.epoch)
        #expect(Self.names(log.events) == [
            "breakStarted b1", "adStarted b1/a", "adEnded b1/a", "adStarted b1/b", "adEnded b1/b", "breakEnded b1", "contentResumed",
        ])
        #expect(landed.count == 1 && abs(landed[0] - (t + 16)) < 1e-6, "\(landed)")
        // 6 s of break from T+16 (at 13 s), its end reported within a step (by 19.25 s), then on
        // from T+24 for the rest of the 20 s: T+24.75 to T+25.
        let now = try #require(player.currentItem?.currentDate()?.timeIntervalSince1970)
        #expect(now >= t + 24.75 - 1e-6 && now <= t + 25 + 1e-6, "\(now - t)")
        controller.stop()
    }

    @Test("live: reloads outlast four failed loads in a row and report the fifth; a seek the item cannot date is a typed error")
    func liveFailures() async throws {
        // Loads at 2, 3, 4 and 5 s fail (after a failure the next is half a target duration on);
        // the one at 6 s succeeds, and b1 plays.
        let clock = ManualClock()
        let (player, controller, log, _) = try await startedLiveController(clock: clock, failingAt: [2, 3, 4, 5])
        var errors: [String] = []
        controller.onError = { errors.append("\($0)") }
        await playLive(player, controller, clock: clock, seconds: 24)
        #expect(errors.isEmpty)
        #expect(Self.names(log.events).contains("breakEnded b1"))
        controller.stop()

        // A fifth failure in a row (at 6 s) stops the reloads and says why, naming the URL.
        let other = ManualClock()
        let failing = try await startedLiveController(clock: other, failingAt: Set(2...7))
        failing.1.onError = { errors.append("\($0)") }
        await playLive(failing.0, failing.1, clock: other, seconds: 8, reloadsEnded: { !errors.isEmpty })
        #expect(errors.count == 1 && errors[0].hasPrefix(ScriptedLiveStream.url) && errors[0].contains("503"), "\(errors)")
        failing.1.stop()

        let undated = try await startedLiveController(clock: ManualClock(), dated: false)
        await #expect(throws: LivePlayerError.self) { try await undated.1.seek(to: Date(timeIntervalSince1970: TimeInterval(ScriptedLiveStream.epoch + 4))) }
        undated.1.stop()
    }

    // MARK: The client-side form

    /// Live content at http://127.0.0.1/live/content.m3u8: 2 s segments from T, a window of 6,
    /// one more each 2 s of `clock`; CUE-OUT:DURATION=6 on segment 8, CUE-OUT on 14, CUE-IN on 17.
    final class ScriptedLiveContent: HTTPTransport, @unchecked Sendable {
        static let url = "http://127.0.0.1/live/content.m3u8"
        let clock: ManualClock
        init(clock: ManualClock) { self.clock = clock }

        func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
            guard request.url == Self.url else { return HTTPTransportResponse(status: 404) }
            let last = 5 + Int(clock.now.offset.components.seconds / 2)
            let markers = [8: "#EXT-X-CUE-OUT:DURATION=6", 14: "#EXT-X-CUE-OUT", 17: "#EXT-X-CUE-IN"]
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(max(0, last - 5))\n"
            for n in max(0, last - 5)...last {
                if let marker = markers[n] { text += marker + "\n" }
                text += "#EXT-X-PROGRAM-DATE-TIME:\(ScriptedLiveStream.date(n))\n#EXTINF:2.0,\nseg\(n).ts\n"
            }
            return HTTPTransportResponse(status: 200, body: Array(text.utf8))
        }
    }

    /// ```
    /// content   ... 7 | 8 9 10 | 11 ... 13 | 14 15 16 | 17 ...     the player from T, at 1x
    /// events    nine at T+40 from the start; ssai-8 (T+16, stops at 6 s) on the reload at 6 s;
    ///           ssai-14 (T+28) at 18 s, its 6 s limit at 24 s; news-1 inserted at T+20, back where left
    /// ```
    @Test("live, client side: the content with each break an AVPlayerInterstitialEvent by date, breaking news where the viewer is")
    func liveInterstitialEvents() async throws {
        StandInWorld.reset()
        let url = try #require(URL(string: ScriptedLiveContent.url))
        StandInWorld.register(url, StandInMedia(tracks: [], duration: .indefinite, startDate: Date(timeIntervalSince1970: TimeInterval(ScriptedLiveStream.epoch))))
        let text = """
            { "content": [ { "id": "channel", "url": "\(ScriptedLiveContent.url)" } ],
              "breaks": [ { "id": "ssai", "at": "markers", "ads": [ { "url": "http://127.0.0.1/ads/a.m3u8" }, { "url": "http://127.0.0.1/ads/b.mp4" } ] },
                          { "id": "nine", "at": "\(ScriptedLiveStream.date(20))", "ads": [ { "url": "http://127.0.0.1/ads/a.m3u8" } ] },
                          { "id": "news", "at": "on-demand", "ads": [ { "url": "http://127.0.0.1/news.m3u8" } ] } ] }
            """
        let schedule = try ScheduleDocument.decodeLive(Array(text.utf8), baseFolder: nil)
        let clock = ManualClock()
        let player = AVPlayer()
        let controller = LiveInterstitialController(schedule: schedule, player: player, transport: ScriptedLiveContent(clock: clock),
                                                    limits: HTTPTransportLimits(maximumRetries: 0), clock: clock)
        try await controller.start()
        // The reloads' clock starts when their task first runs: let it, before the clock moves.
        await settle(player, nil, clock: clock)
        func shown() -> [String] {
            controller.interstitials.events.map { event in
                let at = (event.date?.timeIntervalSince1970 ?? 0) - TimeInterval(ScriptedLiveStream.epoch)
                let limit = event.playoutLimit.isNumeric ? "\(event.playoutLimit.seconds)" : "none"
                let back = event.resumptionOffset.isIndefinite ? "played" : "\(event.resumptionOffset.seconds)"
                return "\(event.identifier) T+\(at) \(event.templateItems.count) items limit \(limit) back \(back)"
            }
        }
        #expect(shown() == ["nine T+40.0 1 items limit none back played"])
        var seen: [Int: [String]] = [:]
        for second in 1...26 {
            for _ in 0..<4 {
                player.standInPlay(for: CMTime(value: 1, timescale: 4))
                clock.advance(by: .milliseconds(250))
                await settle(player, nil, clock: clock)
            }
            if second == 20 { try controller.insertNow("news", resumption: .whereLeft) }
            seen[second] = shown()
        }
        #expect(seen[5] == ["nine T+40.0 1 items limit none back played"])
        #expect(seen[6] == ["ssai-8 T+16.0 2 items limit 6.0 back played", "nine T+40.0 1 items limit none back played"])
        #expect(seen[18]?.contains("ssai-14 T+28.0 2 items limit none back played") == true)
        #expect(seen[26] == [
            "ssai-8 T+16.0 2 items limit 6.0 back played", "news-1 T+20.0 1 items limit none back 0.0",
            "ssai-14 T+28.0 2 items limit 6.0 back played", "nine T+40.0 1 items limit none back played",
        ])
        #expect(controller.interstitials.events.allSatisfy { $0.primaryItem === player.currentItem })
        #expect(controller.interstitials.events.first?.templateItems.map { ($0.asset as? AVURLAsset)?.url.absoluteString } == [
            "http://127.0.0.1/ads/a.m3u8", "http://127.0.0.1/ads/b.mp4"])
        #expect(StandInWorld.ruleBreaks.isEmpty, "\(StandInWorld.ruleBreaks)")
        controller.stop()

        // Before the player has a date, nothing can be inserted now.
        let idle = LiveInterstitialController(schedule: schedule, player: AVPlayer(), transport: ScriptedLiveContent(clock: ManualClock()))
        #expect(throws: LivePlayerError.noDate) { try idle.insertNow("news") }
    }
}
#endif
