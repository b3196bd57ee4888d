import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation

/// Wires a `PlaybackSession` to an `AVPlayer` playing one composition item: a periodic time
/// observer feeds the session, and the session's commands are applied to the player. Every rule
/// lives in the session; this only forwards.
@MainActor
public final class PlaybackSessionController {
    public let player: AVPlayer
    public private(set) var session: PlaybackSession
    /// Receives the session's events, in order.
    public var onEvents: ([PlaybackEvent]) -> Void = { _ in }
    private var timeObserver: Any?

    public init(session: PlaybackSession, player: AVPlayer = AVPlayer()) {
        self.session = session
        self.player = player
    }

    /// Loads the session's composition into the player, starts observing and starts the session.
    public func start() async throws {
        player.replaceCurrentItem(with: try await AVMutableCompositionAdapter.makePlayerItem(for: session.composition))
        let interval = CMTime(value: 1, timescale: 10)
        timeObserver = player.addPeriodicTimeObserver(forInterval: interval, queue: .main) { [weak self] time in
            MainActor.assumeIsolated { self?.playerReached(time) }
        }
        try await apply(session.start())
        player.play()
    }

    public func stop() {
        if let timeObserver { player.removeTimeObserver(timeObserver) }
        timeObserver = nil
    }

    public func seek(toContentTime time: MediaTime) async throws { try await apply(session.seek(toContentTime: time)) }
    public func seek(toCompositionTime time: MediaTime) async throws { try await apply(session.seek(toCompositionTime: time)) }
    public func skipAd() async throws { try await apply(session.skipAd()) }
    public func skipBreak() async throws { try await apply(session.skipBreak()) }
    public func insertNow(_ ads: [Ad]) async throws { try await apply(session.insertNow(ads)) }

    /// The seek bars for the playhead now.
    public var seekBar: SeekBarState {
        session.composition.seekBar(at: session.position, playedBreakIDs: session.playedBreakIDs)
    }

    private func playerReached(_ time: CMTime) {
        guard let position = MediaTime(time) else { return }
        let reaction = session.update(position: position)
        Task { try? await self.apply(reaction) }
    }

    private func apply(_ reaction: PlaybackSession.Reaction) async throws {
        for command in reaction.commands {
            switch command {
            case .seek(let time):
                _ = await player.seek(to: time.cmTime, toleranceBefore: .zero, toleranceAfter: .zero)
            case .load(let composition, let time):
                let item = try await AVMutableCompositionAdapter.makePlayerItem(for: composition)
                player.replaceCurrentItem(with: item)
                _ = await player.seek(to: time.cmTime, toleranceBefore: .zero, toleranceAfter: .zero)
            }
        }
        onEvents(reaction.events)
    }
}
#endif
