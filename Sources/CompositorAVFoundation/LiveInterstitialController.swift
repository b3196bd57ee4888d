import Compositor
import CompositorCore
import Foundation
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// Plays live content in an `AVPlayer` with a live schedule's breaks as `AVPlayerInterstitialEvent`s
/// by date (the client-side form; `LiveInterstitialPlan` decides every event, this forwards):
///
/// - The content's playlist is loaded through the transport and reloaded as RFC 8216bis 6.3.4 has
///   a client reload; each change goes to the plan, and when its events change the controller's
///   schedule is set to them (a schedule set by the app pre-empts the playlist's own date ranges).
/// - Each event: its date, one template item per ad (`AVPlayerItem(url:)`), `playoutLimit` at the
///   span it fills, `resumptionOffset` `.indefinite` ("in accord with the wallclock time elapsed
///   during interstitial playback; typically suitable for live broadcasts") or `.zero` to return
///   where the viewer left.
/// - `insertNow` schedules breaking news at the item's `currentDate()`.
///
/// ```swift
/// let live = LiveInterstitialController(schedule: try ScheduleDocument.readLive(path: file))
/// try await live.start()
/// try live.insertNow("news", resumption: .whereLeft)   // on the app's button
/// ```
@MainActor
public final class LiveInterstitialController {
    public let player: AVPlayer
    /// The controller of the events, for the app's own (its monitor reports the one playing).
    public let interstitials: AVPlayerInterstitialEventController
    /// The events decided so far.
    public private(set) var plan: LiveInterstitialPlan
    /// Receives the failure that ended the reloads (the player plays on, and no new marked break
    /// is scheduled).
    public var onError: (any Error) -> Void = { _ in }

    private let content: URL
    private let reloads: LiveReloads
    private var scheduled: [LiveInterstitialPlan.Event] = []

    /// Creates a controller; nothing loads or plays until `start()`.
    ///
    /// - Parameters:
    ///   - schedule: The live schedule: its content (a live HLS playlist with program date-times)
    ///     and its breaks.
    ///   - player: The player to drive (a new `AVPlayer` by default).
    ///   - transport: What loads the content's playlist for the plan (the player loads its own).
    public convenience init(schedule: LiveSchedule, player: AVPlayer = AVPlayer(), transport: any HTTPTransport = DefaultHTTPTransport()) {
        self.init(schedule: schedule, player: player, transport: transport, clock: ContinuousClock())
    }

    /// `init(schedule:player:transport:)` reloading on `clock` (a test's clock).
    package init<C: Clock>(schedule: LiveSchedule, player: AVPlayer, transport: any HTTPTransport, limits: HTTPTransportLimits = .default, clock: C)
    where C.Duration == Duration {
        self.player = player
        interstitials = AVPlayerInterstitialEventController(primaryPlayer: player)
        plan = LiveInterstitialPlan(schedule: schedule)
        content = schedule.content.source.foundationURL
        reloads = LiveReloads(LiveStreamFollower(url: schedule.content.source.url, transport: transport, limits: limits), clock: clock)
    }

    deinit { reloads.cancel() }

    /// Loads the content, gives the player its item, schedules the events, starts reloading and plays.
    ///
    /// - Throws: `LiveTimelineError` for content that cannot be loaded or has no program date-times.
    public func start() async throws {
        let first = try await reloads.follower.load()
        try plan.advance(by: first.playlist)
        player.replaceCurrentItem(with: AVPlayerItem(url: content))
        schedule()
        reloads.start(after: first, reloaded: { [weak self] load in await self?.reloaded(load) },
                      failed: { [weak self] error in await self?.failed(error) })
        player.play()
    }

    /// Stops reloading and pauses; the events scheduled stay.
    public func stop() {
        reloads.cancel()
        player.pause()
    }

    /// Plays the schedule's on-demand break `id` now: at the player's date.
    ///
    /// - Parameters:
    ///   - id: An `"on-demand"` break of the schedule.
    ///   - resumption: Back to as far on as the break played (`.afterPlayedTime`, the default), or
    ///     where the viewer left.
    /// - Throws: `ScheduleError.unknownID`; `LivePlayerError.noDate` when the item has no date now.
    public func insertNow(_ id: String, resumption: LiveInterstitialPlan.Resumption = .afterPlayedTime) throws {
        let date = try now()
        try plan.insertNow(id, at: date, resumption: resumption)
        schedule()
    }

    /// Plays `items` (ads, or another stream) now: at the player's date.
    ///
    /// - Parameters:
    ///   - items: What plays, in order.
    ///   - id: The event's name (scheduled as `ID-N`).
    ///   - resumption: Back to as far on as they played (`.afterPlayedTime`, the default), or
    ///     where the viewer left.
    /// - Throws: `LivePlayerError.noDate` when the item has no date now.
    public func insertNow(_ items: [URL], id: String = "inserted", resumption: LiveInterstitialPlan.Resumption = .afterPlayedTime) throws {
        let date = try now()
        plan.insertNow(id, ads: items.map(MediaLocation.init(foundationURL:)), at: date, resumption: resumption)
        schedule()
    }

    private func now() throws(LivePlayerError) -> MediaTime {
        guard let date = player.currentItem?.currentDate().flatMap(MediaTime.init(secondsSince1970:)) else { throw .noDate }
        return date
    }

    private func failed(_ error: any Error) { onError(error) }

    private func reloaded(_ load: LiveStreamFollower.Load) {
        do {
            if try plan.advance(by: load.playlist) { schedule() }
        } catch {
            onError(error)
        }
    }

    /// Sets the controller's schedule to the plan's events, when they changed.
    private func schedule() {
        let events = plan.events
        guard events != scheduled, let item = player.currentItem else { return }
        scheduled = events
        interstitials.events = events.map { event in
            AVPlayerInterstitialEvent(
                primaryItem: item, identifier: event.id, date: Date(secondsSince1970: event.date),
                templateItems: event.ads.map { AVPlayerItem(url: $0.foundationURL) },
                resumptionOffset: event.resumption == .whereLeft ? .zero : .indefinite,
                playoutLimit: event.playoutLimit?.cmTime ?? .invalid)
        }
    }
}
