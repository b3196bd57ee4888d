import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// Wires a `PlaybackSession` to an `AVQueuePlayer` playing a composition as one item per segment
/// (the path for HLS sources, which AVFoundation cannot compose). The same rules as
/// `PlaybackSessionController`: ordered reactions, ticks ignored while anything is in flight,
/// boundary observers at the session's boundaries (in the current item's time), observers removed
/// on `stop()` or when it goes away. `AVQueuePlayer` switches items "as gaplessly as possible",
/// not frame-exactly: only a device shows how close that is.
@MainActor
public final class QueueSessionController {
    public let adapter: AVQueuePlayerAdapter
    public var player: AVQueuePlayer { adapter.player }
    public private(set) var session: PlaybackSession
    public private(set) var driver: QueueDriver<AVQueuePlayerAdapter>
    public var onEvents: ([PlaybackEvent]) -> Void {
        get { pipeline.onEvents }
        set { pipeline.onEvents = newValue }
    }
    public var onError: (any Error) -> Void {
        get { pipeline.onError }
        set { pipeline.onError = newValue }
    }
    /// Fires the ad servers' beacons from the session's events as they go to the app (nil: none).
    ///
    /// ```swift
    /// controller.beacons = AdBeacons(ads: loaded, delivery: .send(DefaultHTTPTransport()))
    /// ```
    public var beacons: AdBeacons? {
        get { pipeline.beacons }
        set { pipeline.beacons = newValue }
    }
    /// The session's events from now on, in order (the same `onEvents` gets), as a stream that
    /// ends at `stop()`. Each read of it is a new stream, so any number of readers may follow.
    public var events: AsyncStream<PlaybackEvent> { pipeline.events.stream() }

    private let pipeline = ReactionPipeline<PlaybackSession.PlayerCommand>()
    private let observers: TimeObservers
    private var playing = false
    /// The plan index whose boundaries are observed.
    private var observedIndex: Int?

    /// Creates a controller; nothing is queued until `start()`.
    ///
    /// - Parameters:
    ///   - session: The session to drive the player by.
    ///   - player: The queue player to drive (a new `AVQueuePlayer` by default).
    ///   - lookahead: How many items to keep queued after the current one, at least 1 (2 by default).
    public init(session: PlaybackSession, player: AVQueuePlayer = AVQueuePlayer(), lookahead: Int = 2) {
        self.session = session
        self.adapter = AVQueuePlayerAdapter(player: player)
        self.driver = QueueDriver(plan: QueuePlan(composition: session.composition), player: adapter, lookahead: lookahead)
        self.observers = TimeObservers(player: player)
        pipeline.afterReaction = { [weak self] in self?.reportSeekBar() }
        pipeline.execute = { [weak self] command in self?.execute(command) }
    }

    deinit {
        observers.removeAll()
    }

    /// Queues the first items, starts observing and plays.
    public func start() async throws {
        playing = true
        observers.periodic(every: PlaybackSessionController.tickInterval) { [weak self] in self?.playerMoved() }
        try await pipeline.perform(session.start())
        player.play()
    }

    /// Stops observing and pauses.
    public func stop() {
        playing = false
        observers.removeAll()
        player.pause()
        pipeline.events.finish()
        seekBarUpdates.finish()
    }

    /// Seeks the session to a content time and carries out its reaction (snapback applies).
    ///
    /// - Parameter time: The content time to land on.
    /// - Throws: The session's `PlaybackSessionError` (a break that may not be left yet), or what
    ///   carrying out its commands throws.
    public func seek(toContentTime time: MediaTime) async throws { try await pipeline.perform(session.seek(toContentTime: time)) }
    /// Seeks the session to a composition time and carries out its reaction.
    ///
    /// - Parameter time: The composition time to land on.
    /// - Throws: The session's `PlaybackSessionError` (a seek its break forbids), or what carrying out
    ///   its commands throws.
    public func seek(toCompositionTime time: MediaTime) async throws { try await pipeline.perform(session.seek(toCompositionTime: time)) }
    /// `seek(toContentTime:)` for a `CMTime`.
    ///
    /// - Parameter time: The content time to land on.
    /// - Throws: `PlayerTimeError.notNumeric` for a time that is not numeric, or what the
    ///   `MediaTime` form throws.
    public func seek(toContentTime time: CMTime) async throws { try await seek(toContentTime: MediaTime.numeric(time)) }
    /// `seek(toCompositionTime:)` for a `CMTime`.
    ///
    /// - Parameter time: The composition time to land on.
    /// - Throws: `PlayerTimeError.notNumeric` for a time that is not numeric, or what the
    ///   `MediaTime` form throws.
    public func seek(toCompositionTime time: CMTime) async throws { try await seek(toCompositionTime: MediaTime.numeric(time)) }
    /// Skips the playing ad, if its break allows it now.
    /// Pauses the player; the session reports `.paused` (an ad's `pause` beacon).
    public func pause() async throws {
        player.pause()
        try await pipeline.perform(session.pause())
    }

    /// Plays on after `pause()`; the session reports `.resumed` (an ad's `resume` beacon).
    public func resume() async throws {
        try await pipeline.perform(session.resume())
        player.play()
    }

    public func skipAd() async throws { try await pipeline.perform(session.skipAd()) }
    /// Skips the rest of the playing break, if it allows skipping now.
    public func skipBreak() async throws { try await pipeline.perform(session.skipBreak()) }
    /// Inserts ads and plays them at once (`PlaybackSession.insertNow(_:breakID:naturalDurations:)`).
    ///
    /// - Parameter ads: The ads, in play order; their IDs must be new to the schedule.
    /// - Throws: The session's `PlaybackSessionError`, or what carrying out its commands throws.
    public func insertNow(_ ads: [Ad]) async throws { try await pipeline.perform(session.insertNow(ads)) }

    public var seekBar: SeekBarState {
        session.composition.seekBar(at: session.position, playedBreakIDs: session.playedBreakIDs)
    }

    /// The seek bars as they change (at each tick of progress and after each reaction), from now
    /// on, as a stream that ends at `stop()`: a view follows it instead of polling `seekBar`.
    ///
    /// ```swift
    /// Task { for await bars in controller.seekBars { mainLabel = bars.main.label } }
    /// ```
    public var seekBars: AsyncStream<SeekBarState> { seekBarUpdates.stream() }

    private let seekBarUpdates = Broadcast<SeekBarState>()

    private func reportSeekBar() { seekBarUpdates.yieldChange(seekBar) }

    private func playerMoved() {
        guard pipeline.isSettled, adapter.seeksInFlight == 0 else { return }
        if driver.currentIndex != observedIndex {
            // The player moved on to its next item: top the queue up, observe the new item.
            driver.currentItemDidChange()
            observeBoundaries()
        }
        pipeline.submit(session.update(position: driver.compositionTime))
        reportSeekBar()
    }

    /// The session's boundaries inside the current item, in the item's own time.
    private func observeBoundaries() {
        observedIndex = driver.currentIndex
        guard let index = observedIndex else { return observers.boundaries([]) { } }
        let item = driver.plan.items[index]
        let times = session.boundaries.filter { item.compositionRange.start < $0 && $0 <= item.compositionRange.end }
            .map { item.startTime + ($0 - item.compositionRange.start) }
        observers.boundaries(times) { [weak self] in self?.playerMoved() }
    }

    private func execute(_ command: PlaybackSession.PlayerCommand) {
        driver.apply(command)
        observeBoundaries()
        if playing, player.rate == 0 { player.play() }
    }
}
