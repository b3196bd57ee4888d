import Compositor
import CompositorCore
import Foundation
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// Wires a `LivePlaybackSession` to an `AVPlayer` playing a stitched live stream (what
/// `CompositorDemo live` writes, served by an origin). Every rule lives in the session; this
/// forwards, in order:
///
/// - The stream's playlist is loaded through the transport and reloaded as RFC 8216bis 6.3.4 has a
///   client reload; each change goes to the session (`update(timeline:)`), so breaks join as the
///   stitcher publishes them, breaking news included.
/// - The player's program date-time (`AVPlayerItem.currentDate()`) goes to the session at each
///   tick (`tickInterval`) and at each boundary the session names (break ends, ad quartiles),
///   observed at the item time the date has now.
/// - The session's seeks are seeks to a date (`AVPlayerItem.seek(to:completionHandler:)`); ticks
///   are ignored until they land, and while a reaction is carried out.
/// - The observers and the reloads stop at `stop()` or when the controller goes away.
///
/// ```swift
/// let controller = LiveSessionController(url: URL(string: "https://origin.example/live/stitched.m3u8")!)
/// Task { for await event in controller.events { overlay.show(event) } }
/// try await controller.start()
/// try await controller.seekToLiveEdge()
/// ```
@MainActor
public final class LiveSessionController {
    public let player: AVPlayer
    /// The stitched live playlist the player plays.
    public let url: URL
    /// The session, once `start()` loaded the stream.
    public private(set) var session: LivePlaybackSession?
    /// Receives the session's events, in order.
    public var onEvents: ([PlaybackEvent]) -> Void {
        get { pipeline.onEvents }
        set { pipeline.onEvents = newValue }
    }
    /// The session's events from now on, in order (the same `onEvents` gets), as a stream that
    /// ends at `stop()`. Each read of it is a new stream.
    public var events: AsyncStream<PlaybackEvent> { pipeline.events.stream() }
    /// Receives failures of work nobody awaits: a reload that failed once too often (the player
    /// plays on; the session stops learning of new breaks) or a seek the session asked for.
    public var onError: (any Error) -> Void {
        get { pipeline.onError }
        set { pipeline.onError = newValue }
    }
    /// How often progress is reported between boundaries.
    public static let tickInterval = CMTime(value: 1, timescale: 2)

    /// The seek bar now: the DVR window, the live edge, the playhead and the breaks (`nil` before `start()`).
    public var seekBar: LiveSeekBar? { session?.seekBar }
    /// The seek bars as they change (at each tick, reload and reaction), as a stream that ends at `stop()`.
    public var seekBars: AsyncStream<LiveSeekBar> { seekBarUpdates.stream() }

    private let pipeline = ReactionPipeline<LivePlaybackSession.Command>()
    private let observers: TimeObservers
    private let reloads: LiveReloads
    private let seekBarUpdates = Broadcast<LiveSeekBar>()
    private var seeksInFlight = 0
    /// Whether the boundaries observed are out of date: the stream changed or the player jumped
    /// since they were (re)placed, or no date was known then.
    private var boundariesStale = true

    /// Creates a controller; nothing loads or plays until `start()`.
    ///
    /// - Parameters:
    ///   - url: The stitched live playlist (multivariant, or one variant's media playlist).
    ///   - player: The player to drive (a new `AVPlayer` by default).
    ///   - transport: What loads the playlist for the session (the player loads its own).
    public convenience init(url: URL, player: AVPlayer = AVPlayer(), transport: any HTTPTransport = DefaultHTTPTransport()) {
        self.init(url: url, player: player, transport: transport, clock: ContinuousClock())
    }

    /// `init(url:player:transport:)` reloading on `clock` (a test's clock).
    package init<C: Clock>(url: URL, player: AVPlayer, transport: any HTTPTransport, limits: HTTPTransportLimits = .default, clock: C)
    where C.Duration == Duration {
        self.url = url
        self.player = player
        reloads = LiveReloads(LiveStreamFollower(url: url.absoluteString, transport: transport, limits: limits), clock: clock)
        observers = TimeObservers(player: player)
        pipeline.afterReaction = { [weak self] in self?.reportSeekBar() }
        pipeline.execute = { [weak self] command in try self?.execute(command) }
    }

    deinit {
        observers.removeAll()
        reloads.cancel()
    }

    /// Loads the stream, starts the session on it, gives the player its item, starts observing
    /// and reloading, and plays. The session joins where the player starts (its first date).
    ///
    /// - Throws: `LiveTimelineError` for a stream that cannot be loaded or has no program
    ///   date-times; `ScheduleError` for breaks that overlap.
    public func start() async throws {
        let first = try await reloads.follower.load()
        session = try LivePlaybackSession(timeline: first.timeline)
        player.replaceCurrentItem(with: AVPlayerItem(url: url))
        observers.periodic(every: Self.tickInterval) { [weak self] in self?.playerMoved() }
        reloads.start(after: first, reloaded: { [weak self] load in await self?.reloaded(load.timeline) },
                      failed: { [weak self] error in await self?.failed(error) })
        player.play()
    }

    /// Stops observing and reloading, and pauses.
    public func stop() {
        reloads.cancel()
        observers.removeAll()
        player.pause()
        pipeline.events.finish()
        seekBarUpdates.finish()
    }

    /// Seeks to `date`, clamped to the window; a seek forward across unplayed breaks plays them
    /// first (`LivePlaybackSession.seek(toDate:)`).
    ///
    /// - Parameter date: Where to go.
    /// - Throws: `PlaybackSessionError` when the playing break may not be left;
    ///   `LivePlayerError` when the player has no such date.
    public func seek(to date: Date) async throws {
        guard let time = MediaTime(secondsSince1970: date) else { throw LivePlayerError.notPlayable(date) }
        try await perform { live throws(PlaybackSessionError) in try live.seek(toDate: time) }
    }

    /// Seeks to the live edge.
    ///
    /// - Throws: `PlaybackSessionError` when the playing break may not be left;
    ///   `LivePlayerError` when the player has no such date.
    public func seekToLiveEdge() async throws {
        try await perform { live throws(PlaybackSessionError) in try live.seekToLiveEdge() }
    }

    /// Carries out the reaction of `change` to the session (none before `start()`).
    private func perform(_ change: (inout LivePlaybackSession) throws(PlaybackSessionError) -> LivePlaybackSession.Reaction) async throws {
        guard var live = session else { return }
        let reaction = try change(&live)
        session = live
        try await pipeline.perform(reaction)
    }

    /// Whether the player's clock can be trusted: nothing in flight.
    var isSettled: Bool { pipeline.isSettled && seeksInFlight == 0 }

    /// The player's date, on the session's clock.
    private var playerDate: MediaTime? {
        player.currentItem?.currentDate().flatMap(MediaTime.init(secondsSince1970:))
    }

    private func playerMoved() {
        guard isSettled, let date = playerDate, let reaction = session?.update(date: date) else { return }
        pipeline.submit(reaction)
        if boundariesStale { observeBoundaries() }
        reportSeekBar()
    }

    private func failed(_ error: any Error) { pipeline.onError(error) }

    private func reloaded(_ timeline: LiveTimeline) {
        do {
            guard let reaction = try session?.update(timeline: timeline) else { return }
            pipeline.submit(reaction)
            boundariesStale = true
            observeBoundaries()
            reportSeekBar()
        } catch {
            pipeline.onError(error)
        }
    }

    /// Observes the session's boundaries ahead of the player, at the item times their dates have
    /// now (a stitched stream's dates run on with its time). Placed again only when the stream
    /// changed or the player jumped, not at every tick.
    private func observeBoundaries() {
        guard let live = session, let date = playerDate, let now = MediaTime(player.currentTime()) else { return }
        let offset = date - now
        let ahead = live.session.boundaries.map { live.epoch + $0 - offset }.filter { $0 > now }
        observers.boundaries(ahead) { [weak self] in self?.playerMoved() }
        boundariesStale = false
    }

    private func reportSeekBar() {
        if let seekBar { seekBarUpdates.yieldChange(seekBar) }
    }

    private func execute(_ command: LivePlaybackSession.Command) throws {
        switch command {
        case .seek(let date):
            guard let item = player.currentItem else { return }
            seeksInFlight += 1
            let moved = item.seek(to: Date(secondsSince1970: date)) { [weak self] _ in
                // Apple names no queue for this handler: hop to the main actor.
                Task { @MainActor in
                    self?.seeksInFlight -= 1
                    self?.boundariesStale = true
                }
            }
            guard moved else {
                seeksInFlight -= 1
                throw LivePlayerError.notPlayable(Date(secondsSince1970: date))
            }
        }
    }
}

/// What the player of a live stream could not do.
public enum LivePlayerError: Error, Equatable, CustomStringConvertible {
    /// The player has no such date: outside its window, or its item maps no dates.
    case notPlayable(Date)
    /// The player's item has no date now: not playing yet, or the stream has no program date-time.
    case noDate

    public var description: String {
        switch self {
        case .notPlayable(let date): return "the player's stream has no date \(date.formatted(.iso8601)) (outside its window, or the item has no program date-time)"
        case .noDate: return "the player's item has no date now (not playing yet, or its stream has no EXT-X-PROGRAM-DATE-TIME)"
        }
    }
}
