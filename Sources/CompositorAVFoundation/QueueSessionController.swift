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
    /// The session's events from now on, in order (the same `onEvents` gets), as a stream that
    /// ends at `stop()`. Each read of it is a new stream, so any number of readers may follow.
    public var events: AsyncStream<PlaybackEvent> { pipeline.eventStream() }

    private let pipeline = ReactionPipeline()
    private let observers: TimeObservers
    private var playing = false
    /// The plan index whose boundaries are observed.
    private var observedIndex: Int?

    public init(session: PlaybackSession, player: AVQueuePlayer = AVQueuePlayer(), lookahead: Int = 2) {
        self.session = session
        self.adapter = AVQueuePlayerAdapter(player: player)
        self.driver = QueueDriver(plan: QueuePlan(composition: session.composition), player: adapter, lookahead: lookahead)
        self.observers = TimeObservers(player: player)
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

    public func stop() {
        playing = false
        observers.removeAll()
        player.pause()
        pipeline.finishEvents()
    }

    public func seek(toContentTime time: MediaTime) async throws { try await pipeline.perform(session.seek(toContentTime: time)) }
    public func seek(toCompositionTime time: MediaTime) async throws { try await pipeline.perform(session.seek(toCompositionTime: time)) }
    public func seek(toContentTime time: CMTime) async throws { try await seek(toContentTime: MediaTime.numeric(time)) }
    public func seek(toCompositionTime time: CMTime) async throws { try await seek(toCompositionTime: MediaTime.numeric(time)) }
    public func skipAd() async throws { try await pipeline.perform(session.skipAd()) }
    public func skipBreak() async throws { try await pipeline.perform(session.skipBreak()) }
    public func insertNow(_ ads: [Ad]) async throws { try await pipeline.perform(session.insertNow(ads)) }

    public var seekBar: SeekBarState {
        session.composition.seekBar(at: session.position, playedBreakIDs: session.playedBreakIDs)
    }

    private func playerMoved() {
        guard pipeline.isSettled, adapter.seeksInFlight == 0 else { return }
        if driver.currentIndex != observedIndex {
            // The player moved on to its next item: top the queue up, observe the new item.
            driver.currentItemDidChange()
            observeBoundaries()
        }
        pipeline.submit(session.update(position: driver.compositionTime))
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
