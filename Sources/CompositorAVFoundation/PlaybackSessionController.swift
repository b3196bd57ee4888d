import Compositor
import CompositorCore
import Foundation
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// Wires a `PlaybackSession` to an `AVPlayer` playing one item: an `AVMutableComposition` of MP4
/// sources, or the composition stitched into HLS playlists (`CompositionPlayback`). Every rule
/// lives in the session; this forwards, in order:
///
/// - Break ends and ad quartiles come from a boundary time observer at the session's boundaries,
///   progress from a periodic one (`tickInterval`); both read `player.currentTime()` when they run,
///   as Apple advises, not the time they were queued with.
/// - Player times (timescale 10^9 on devices) go to the session as they are; it takes them at the
///   composition's tick at or before them, so no arithmetic on them can overflow.
/// - Reactions are carried out one after another; ticks are ignored while one is in flight or a
///   seek has not landed, so a stale tick of the old item or the old position is never taken for
///   playback (no phantom break, no lost snapback target).
/// - With stitched playlists, player times and seek targets are mapped between the stitched cuts
///   and the schedule's (`HLSExport`), so the session keeps the schedule's times.
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
    /// The session's events from now on, in order (the same `onEvents` gets), as a stream that
    /// ends at `stop()`. Each read of it is a new stream, so any number of readers may follow.
    ///
    /// ```swift
    /// Task { for await event in controller.events { overlay.show(event) } }
    /// ```
    public var events: AsyncStream<PlaybackEvent> { pipeline.events.stream() }
    /// Receives failures of work the player's progress started (a new item after a `once` break);
    /// the methods below throw their own.
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
    /// How often progress is reported between boundaries.
    public static let tickInterval = CMTime(value: 1, timescale: 2)

    /// What the session's composition plays as.
    public let playback: CompositionPlayback
    /// The catalog the session's sources were loaded with, if any: items read them through it.
    public let catalog: SourceCatalog?

    private let pipeline = ReactionPipeline<PlaybackSession.PlayerCommand>()
    private let observers: TimeObservers
    private var seeksInFlight = 0
    /// Items made so far.
    private var generation = 0
    /// The stitch the current item plays; `nil` when it plays the session's composition itself.
    private var stitched: HLSExport?

    /// Creates a controller; nothing plays until `start()`.
    ///
    /// - Parameters:
    ///   - session: The session to drive the player by.
    ///   - player: The player to drive (a new `AVPlayer` by default).
    ///   - playback: What the composition plays as: an `AVMutableComposition` (the default), or
    ///     stitched HLS playlists in a folder.
    ///   - catalog: The catalog the schedule's sources were loaded with (`SourceCatalog.load`):
    ///     remote sources are read through it. `nil` reads local files by their names.
    public init(session: PlaybackSession, player: AVPlayer = AVPlayer(), playing playback: CompositionPlayback = .mutableComposition,
                catalog: SourceCatalog? = nil) {
        self.session = session
        self.player = player
        self.playback = playback
        self.catalog = catalog
        self.observers = TimeObservers(player: player)
        pipeline.afterReaction = { [weak self] in self?.reportSeekBar() }
        pipeline.execute = { [weak self] command in try await self?.execute(command) }
    }

    deinit {
        observers.removeAll()
    }

    /// Loads the session's composition into the player, starts observing and plays from the start
    /// (or the session's bookmark).
    public func start() async throws {
        try await load(session.composition)
        observers.periodic(every: Self.tickInterval) { [weak self] in self?.playerMoved() }
        observeBoundaries()
        try await pipeline.perform(session.start())
        player.play()
    }

    /// Stops observing and pauses.
    public func stop() {
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

    /// The seek bars for the playhead now.
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

    /// Whether the player's clock can be trusted: nothing in flight.
    var isSettled: Bool { pipeline.isSettled && seeksInFlight == 0 }

    private func playerMoved() {
        guard isSettled, let position = MediaTime(player.currentTime()) else { return }
        pipeline.submit(session.update(position: stitched?.reconciled.requestedTime(forPlayedTime: position) ?? position))
        reportSeekBar()
    }

    /// The item's time showing what the session's composition shows at `time`.
    private func playerTime(_ time: MediaTime) -> MediaTime {
        stitched?.reconciled.playedTime(forRequestedTime: time) ?? time
    }

    private func observeBoundaries() {
        observers.boundaries(session.boundaries.map(playerTime)) { [weak self] in self?.playerMoved() }
    }

    private func execute(_ command: PlaybackSession.PlayerCommand) async throws {
        switch command {
        case .seek(let time):
            seek(to: time)
        case .load(let composition, let time):
            try await load(composition)
            observeBoundaries()
            seek(to: time)
        }
    }

    /// Makes the item of `composition` and makes it current; the folder of a stitch it replaces goes.
    private func load(_ composition: Composition) async throws {
        generation += 1
        let (item, stitch) = try await playback.makeItem(for: composition, generation: generation, catalog: catalog)
        player.replaceCurrentItem(with: item)
        let replaced = stitched
        stitched = stitch
        // Playback goes on without the old folder's removal; its failure is only reported.
        if let replaced {
            do { try CompositionPlayback.remove(replaced) } catch { pipeline.onError(error) }
        }
    }

    private func seek(to time: MediaTime) {
        seeksInFlight += 1
        player.seek(to: playerTime(time).cmTime, toleranceBefore: .zero, toleranceAfter: .zero) { [weak self] _ in
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
