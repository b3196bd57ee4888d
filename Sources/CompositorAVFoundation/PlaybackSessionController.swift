import Compositor
import CompositorCore
import Foundation
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// Wires a `PlaybackSession` to an `AVPlayer` playing one composition item. Every rule lives in
/// the session; this forwards, in order:
///
/// - Break ends and ad quartiles come from a boundary time observer at the session's boundaries,
///   progress from a periodic one (`tickInterval`); both read `player.currentTime()` when they run,
///   as Apple advises, not the time they were queued with.
/// - Player times (timescale 10^9 on devices) go to the session as they are; it takes them at the
///   composition's tick at or before them, so no arithmetic on them can overflow.
/// - Reactions are carried out one after another; ticks are ignored while one is in flight or a
///   seek has not landed, so a stale tick of the old item or the old position is never taken for
///   playback (no phantom break, no lost snapback target).
/// - The observers are removed by `stop()` or when the controller goes away.
@MainActor
public final class PlaybackSessionController {
    public let player: AVPlayer
    public private(set) var session: PlaybackSession
    /// Receives the session's events, in order.
    public var onEvents: ([PlaybackEvent]) -> Void {
        get { pipeline.onEvents }
        set { pipeline.onEvents = newValue }
    }
    /// Receives failures of work the player's progress started (a new item after a `once` break);
    /// the methods below throw their own.
    public var onError: (any Error) -> Void {
        get { pipeline.onError }
        set { pipeline.onError = newValue }
    }
    /// How often progress is reported between boundaries.
    public static let tickInterval = CMTime(value: 1, timescale: 2)

    private let pipeline = ReactionPipeline()
    private let observers: TimeObservers
    private var seeksInFlight = 0

    public init(session: PlaybackSession, player: AVPlayer = AVPlayer()) {
        self.session = session
        self.player = player
        self.observers = TimeObservers(player: player)
        pipeline.execute = { [weak self] command in try await self?.execute(command) }
    }

    deinit {
        observers.removeAll()
    }

    /// Loads the session's composition into the player, starts observing and plays from the start
    /// (or the session's bookmark).
    public func start() async throws {
        player.replaceCurrentItem(with: try await AVMutableCompositionAdapter.makePlayerItem(for: session.composition))
        observers.periodic(every: Self.tickInterval) { [weak self] in self?.playerMoved() }
        observeBoundaries()
        try await pipeline.perform(session.start())
        player.play()
    }

    /// Stops observing and pauses.
    public func stop() {
        observers.removeAll()
        player.pause()
    }

    public func seek(toContentTime time: MediaTime) async throws { try await pipeline.perform(session.seek(toContentTime: time)) }
    public func seek(toCompositionTime time: MediaTime) async throws { try await pipeline.perform(session.seek(toCompositionTime: time)) }
    public func seek(toContentTime time: CMTime) async throws { try await seek(toContentTime: MediaTime.numeric(time)) }
    public func seek(toCompositionTime time: CMTime) async throws { try await seek(toCompositionTime: MediaTime.numeric(time)) }
    public func skipAd() async throws { try await pipeline.perform(session.skipAd()) }
    public func skipBreak() async throws { try await pipeline.perform(session.skipBreak()) }
    public func insertNow(_ ads: [Ad]) async throws { try await pipeline.perform(session.insertNow(ads)) }

    /// The seek bars for the playhead now.
    public var seekBar: SeekBarState {
        session.composition.seekBar(at: session.position, playedBreakIDs: session.playedBreakIDs)
    }

    /// Whether the player's clock can be trusted: nothing in flight.
    var isSettled: Bool { pipeline.isSettled && seeksInFlight == 0 }

    private func playerMoved() {
        guard isSettled, let position = MediaTime(player.currentTime()) else { return }
        pipeline.submit(session.update(position: position))
    }

    private func observeBoundaries() {
        observers.boundaries(session.boundaries) { [weak self] in self?.playerMoved() }
    }

    private func execute(_ command: PlaybackSession.PlayerCommand) async throws {
        switch command {
        case .seek(let time):
            seek(to: time)
        case .load(let composition, let time):
            let item = try await AVMutableCompositionAdapter.makePlayerItem(for: composition)
            player.replaceCurrentItem(with: item)
            observeBoundaries()
            seek(to: time)
        }
    }

    private func seek(to time: MediaTime) {
        seeksInFlight += 1
        player.seek(to: time.cmTime, toleranceBefore: .zero, toleranceAfter: .zero) { [weak self] _ in
            // Apple names no queue for this handler: hop to the main actor.
            Task { @MainActor in self?.seeksInFlight -= 1 }
        }
    }
}

/// A player's time observers, added and removed in pairs as `AVPlayer` requires. Not isolated
/// (the add and remove calls are not), so a controller's `deinit` can remove them.
final class TimeObservers: @unchecked Sendable {
    private let player: AVPlayer
    private let lock = NSLock()
    private var periodicToken: Any?
    private var boundaryToken: Any?

    init(player: AVPlayer) { self.player = player }

    func periodic(every interval: CMTime, _ action: @escaping @MainActor () -> Void) {
        let token = player.addPeriodicTimeObserver(forInterval: interval, queue: .main) { _ in
            MainActor.assumeIsolated { action() }
        }
        replace(\.periodicToken, with: token)
    }

    /// Observes `times` (replacing the times observed before); none, no observer (an empty list
    /// raises an exception).
    func boundaries(_ times: [MediaTime], _ action: @escaping @MainActor () -> Void) {
        let token: Any? = times.isEmpty ? nil : player.addBoundaryTimeObserver(
            forTimes: times.map { NSValue(time: $0.cmTime) }, queue: .main) { MainActor.assumeIsolated { action() } }
        replace(\.boundaryToken, with: token)
    }

    func removeAll() {
        replace(\.periodicToken, with: nil)
        replace(\.boundaryToken, with: nil)
    }

    private func replace(_ slot: ReferenceWritableKeyPath<TimeObservers, Any?>, with token: Any?) {
        let old: Any? = lock.withLock {
            defer { self[keyPath: slot] = token }
            return self[keyPath: slot]
        }
        if let old { player.removeTimeObserver(old) }
    }
}

extension PlaybackSession {
    /// Every instant the session has something to say about, in order (segment ends, quartiles).
    var boundaries: [MediaTime] {
        var times: [MediaTime] = []
        var time = MediaTime.zero
        while let next = nextBoundary(after: time), next > time {
            times.append(next)
            time = next
        }
        return times
    }
}
