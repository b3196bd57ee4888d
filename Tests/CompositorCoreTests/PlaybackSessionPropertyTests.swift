import Testing
import CompositorTestSupport
@testable import CompositorCore

/// The session over random schedules (the property tests' generator), driven by random actions at
/// random instants in every timescale of the issue: it never traps, its playhead stays on the
/// composition's grid and inside it, and every event is stamped on the grid.
@Suite("Playback session properties")
struct PlaybackSessionPropertyTests {
    static let seeds = 0..<UInt64(300)

    /// `before`: the composition when the action began (events are stamped in the composition
    /// current when they happen).
    static func check(
        _ session: PlaybackSession, _ reaction: PlaybackSession.Reaction, before: Composition, seed: UInt64, _ what: String
    ) {
        let c = session.composition
        #expect(session.position.timescale == c.timescale, "seed \(seed) \(what): playhead \(session.position) off the grid")
        #expect(session.position >= .zero && session.position <= c.duration, "seed \(seed) \(what)")
        for command in reaction.commands {
            switch command {
            case .seek(let to): #expect(to.timescale == c.timescale && to <= c.duration, "seed \(seed) \(what): seek \(to)")
            case .load(let composition, let at): #expect(at.timescale == composition.timescale, "seed \(seed) \(what)")
            }
        }
        var current = before
        for event in reaction.events {
            if case .compositionChanged(_, let new) = event.kind { current = new }
            #expect(event.compositionTime.timescale == current.timescale, "seed \(seed) \(what): \(event.name) off the grid")
            #expect(event.compositionTime <= current.duration && event.contentTime <= current.contentDuration, "seed \(seed) \(what)")
        }
        let state = session.playedState
        #expect(state.bookmark >= .zero && state.bookmark <= c.contentDuration, "seed \(seed)")
        #expect(state.bookmark.timescale == c.timescale, "seed \(seed) \(what): bookmark off the grid")
    }

    @Test("start, update, seek, skip ad, skip break, insert now and playedState at random times in every timescale")
    func randomActions() throws {
        for seed in Self.seeds {
            let (schedule, _) = RandomCompositions.randomSchedule(seed: seed)
            var rng = SeededGenerator(seed: seed ^ 0x5E55)
            let snapback = SnapbackPolicy.allCases.randomElement(using: &rng)!
            var session = try PlaybackSession(schedule: schedule, naturalDurations: ["new.mp4": MediaTime(value: 1001, timescale: 24000)],
                                              snapback: snapback)
            let started = session.start()
            Self.check(session, started, before: session.composition, seed: seed, "start")
            for step in 0..<40 {
                let c = session.composition
                let query = RandomCompositions.randomQuery(span: c.duration, &rng)
                let reaction: PlaybackSession.Reaction
                do {
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0...3:
                        // Mostly forward, as a player's clock runs: a little past the playhead.
                        let ahead = session.position + RandomCompositions.randomTime(maxSeconds: 5, &rng)
                        reaction = session.update(position: Bool.random(using: &rng) ? ahead : query)
                    case 4: reaction = try session.seek(toContentTime: query)
                    case 5: reaction = try session.seek(toCompositionTime: query)
                    case 6: reaction = try session.skipAd()
                    case 7: reaction = try session.skipBreak()
                    case 8:
                        let end = RandomCompositions.randomTime(maxSeconds: 3, &rng) + MediaTime(value: 1, timescale: 2_147_483_647)
                        reaction = try session.insertNow([Ad(id: "n\(step)", source: "new.mp4", end: end)])
                    default:
                        let boundary = session.nextBoundary(after: query)
                        reaction = session.update(position: boundary ?? query)
                    }
                } catch {
                    _ = error.description
                    continue
                }
                Self.check(session, reaction, before: c, seed: seed, "step \(step)")
            }
        }
    }

    @Test("a session resumed from a bookmark in any timescale starts on the grid")
    func resumeFromBookmark() throws {
        for seed in Self.seeds.prefix(100) {
            let (schedule, c) = RandomCompositions.randomSchedule(seed: seed)
            var rng = SeededGenerator(seed: seed ^ 0xB00C)
            let bookmark = RandomCompositions.randomQuery(span: c.contentDuration, &rng)
            let played = Set(c.breaks.filter { _ in Bool.random(using: &rng) }.map(\.id))
            var session = try PlaybackSession(schedule: schedule, playedState: PlayedState(playedBreakIDs: played, bookmark: bookmark))
            let started = session.start()
            Self.check(session, started, before: session.composition, seed: seed, "resume")
        }
    }
}
