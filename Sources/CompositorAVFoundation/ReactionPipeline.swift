import Compositor
import CompositorCore

/// Carries out a session's reactions one after another, in the order the session made them: the
/// events go to the app, then each command is awaited before the next (a new item is built before
/// the seek into it). While anything is in flight the player's clock is not to be trusted (an old
/// item still ticks while the new one is built; a seek reports the old time until it lands), so
/// `isSettled` tells the controllers to ignore ticks until then.
///
/// `Command` is what the session asks of the player: `PlaybackSession.PlayerCommand`, or
/// `LivePlaybackSession.Command` for a live stream.
@MainActor
final class ReactionPipeline<Command: Sendable> {
    private var waiting: [(events: [PlaybackEvent], commands: [Command], done: CheckedContinuation<Void, any Error>?)] = []
    private var running = false
    /// Carries out one command (set by the controller that owns the pipeline).
    var execute: @MainActor (Command) async throws -> Void = { _ in }
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

    /// Carries out a reaction after those before it; returns when its commands were given, and
    /// throws the error of the first that failed.
    func perform(events: [PlaybackEvent], commands: [Command]) async throws {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((events, commands, continuation))
            runIfIdle()
        }
    }

    /// Carries out a reaction after those before it; a failure goes to `onError`.
    func submit(events: [PlaybackEvent], commands: [Command]) {
        guard !events.isEmpty || !commands.isEmpty else { return }
        waiting.append((events, commands, nil))
        runIfIdle()
    }

    private func runIfIdle() {
        guard !running else { return }
        running = true
        Task { @MainActor in
            while !waiting.isEmpty {
                let (reactionEvents, commands, done) = waiting.removeFirst()
                onEvents(reactionEvents)
                beacons?.handle(events: reactionEvents)
                for event in reactionEvents { events.yield(event) }
                do {
                    for command in commands { try await execute(command) }
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

extension ReactionPipeline where Command == PlaybackSession.PlayerCommand {
    func perform(_ reaction: PlaybackSession.Reaction) async throws { try await perform(events: reaction.events, commands: reaction.commands) }
    func submit(_ reaction: PlaybackSession.Reaction) { submit(events: reaction.events, commands: reaction.commands) }
}

extension ReactionPipeline where Command == LivePlaybackSession.Command {
    func perform(_ reaction: LivePlaybackSession.Reaction) async throws { try await perform(events: reaction.events, commands: reaction.commands) }
    func submit(_ reaction: LivePlaybackSession.Reaction) { submit(events: reaction.events, commands: reaction.commands) }
}
