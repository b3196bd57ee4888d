import Compositor
import CompositorCore

/// Carries out a session's reactions one after another, in the order the session made them: the
/// events go to the app, then each command is awaited before the next (a new item is built before
/// the seek into it). While anything is in flight the player's clock is not to be trusted (an old
/// item still ticks while the new one is built; a seek reports the old time until it lands), so
/// `isSettled` tells the controllers to ignore ticks until then.
@MainActor
final class ReactionPipeline {
    private var waiting: [(reaction: PlaybackSession.Reaction, done: CheckedContinuation<Void, any Error>?)] = []
    private var running = false
    /// Carries out one command (set by the controller that owns the pipeline).
    var execute: @MainActor (PlaybackSession.PlayerCommand) async throws -> Void = { _ in }
    var onEvents: ([PlaybackEvent]) -> Void = { _ in }
    /// Gets every reaction as its events go to the app: the ad servers' beacons.
    var beacons: AdBeacons?
    /// Failures of reactions nobody awaits (those the player's own progress caused).
    var onError: (any Error) -> Void = { _ in }

    /// No reaction is waiting or being carried out.
    var isSettled: Bool { !running && waiting.isEmpty }

    /// The events, as `onEvents` gets them, for the controllers' `events` streams.
    let events = Broadcast<PlaybackEvent>()
    /// Called after each reaction was carried out (the controllers report their seek bars then).
    var afterReaction: @MainActor () -> Void = {}

    /// Carries out `reaction` after those before it; returns when its commands were given, and
    /// throws the error of the first that failed.
    func perform(_ reaction: PlaybackSession.Reaction) async throws {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((reaction, continuation))
            runIfIdle()
        }
    }

    /// Carries out `reaction` after those before it; a failure goes to `onError`.
    func submit(_ reaction: PlaybackSession.Reaction) {
        guard !reaction.events.isEmpty || !reaction.commands.isEmpty else { return }
        waiting.append((reaction, nil))
        runIfIdle()
    }

    private func runIfIdle() {
        guard !running else { return }
        running = true
        Task { @MainActor in
            while !waiting.isEmpty {
                let (reaction, done) = waiting.removeFirst()
                onEvents(reaction.events)
                beacons?.handle(reaction)
                for event in reaction.events { events.yield(event) }
                do {
                    for command in reaction.commands { try await execute(command) }
                    done?.resume()
                } catch {
                    if let done { done.resume(throwing: error) } else { onError(error) }
                }
                afterReaction()
            }
            running = false
        }
    }
}
