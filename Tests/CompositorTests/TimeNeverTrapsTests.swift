import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Issue 13, C1: schedules and queries whose timescales share no common multiple within Int32
/// (AVFoundation's 10^9 clock against 29.97 fps boundaries, a 9-place decimal against 1001/30000,
/// the prime 2147483647 against anything) trapped in `MediaTime`'s `+` and `-`. These are the
/// reported cases, by name; each trapped before the fix. The property tests below sweep the rest.
@Suite("Time that never traps")
struct TimeNeverTrapsTests {
    static let nanosecond: Int32 = 1_000_000_000
    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: nanosecond) }
    static func ntsc(_ frames: Int64) -> MediaTime { MediaTime(value: frames * 1001, timescale: 30000) }

    /// The demo's `map S.json --composition-time 1001/30000` on a clip with `"start": 0.123456789`:
    ///
    /// ```
    /// composition  0                  4.876543211    9.876543211                  24.876543211
    ///              |--feature 0.123456789-5--|---ad 5 s---|--feature 5-20 (source)--|
    /// content      0                  4.876543211    4.876543211                  19.876543211
    /// query        ^ 1001/30000 s: source time 0.123456789 + 1001/30000 had no common timescale
    /// ```
    static func nineDecimalsSchedule() throws -> Schedule {
        try Schedule(
            content: [ContentClip(id: "feature", source: "content.mp4", start: ns(123_456_789), end: s(20))],
            breaks: [AdBreak(id: "mid", placement: .midroll(at: MediaTime(value: 4_876_543_211, timescale: nanosecond)),
                             ads: [Ad(id: "a1", source: "ad1.mp4", end: s(5))])])
    }

    @Test("contentTime, locate and seekBar at 1001/30000 on a clip starting at 0.123456789 s")
    func nineDecimalsAgainstNTSC() throws {
        let c = try Composition(schedule: Self.nineDecimalsSchedule())
        let query = Self.ntsc(1)   // 0.0333666... s: between two nanoseconds
        #expect(c.timescale == Self.nanosecond)
        // Taken at the nanosecond before it, the instant on screen.
        let taken = Self.ns(33_366_666)
        #expect(c.contentTime(forCompositionTime: query) == taken)
        let location = try #require(c.locate(query))
        #expect(location.compositionTime == taken)
        #expect(location.sourceTime == Self.ns(123_456_789 + 33_366_666))
        #expect(c.seekBar(at: query).main.position == taken)
        #expect(c.compositionTime(forContentTime: query) == taken)
        // Past the break: source time 5 + (10.01 - 9.876543211).
        let later = try #require(c.locate(Self.ntsc(300)))   // 10.01 s
        #expect(later.sourceTime == Self.ns(5_000_000_000 + 10_010_000_000 - 9_876_543_211))
    }

    /// A 29.97 fps schedule (breaks at frame boundaries) and a player that reports AVFoundation's
    /// nanosecond clock:
    ///
    /// ```
    /// composition  0            301301/30000 (10.0433...)   +15.015         ...
    ///              |--C 0-10.04..--|------ad 15.015 s --------|--C ...
    /// player       12345678901/1000000000 (12.345678901 s): inside the ad
    /// ```
    static func ntscSchedule() throws -> Schedule {
        try Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: ntsc(1800))],   // 60.06 s
            breaks: [
                AdBreak(id: "b1", placement: .midroll(at: ntsc(301)), ads: [
                    Ad(id: "a1", source: "ad.mp4", end: MediaTime(value: 15015, timescale: 1000)),
                    Ad(id: "a2", source: "ad.mp4", end: ntsc(150)),
                ], policy: .once),
                AdBreak(id: "b2", placement: .midroll(at: ntsc(1200)), ads: [Ad(id: "a3", source: "ad.mp4", end: ntsc(300))]),
            ])
    }

    @Test("compositionTime(forContentTime:) and contentTime(forCompositionTime:) with a 10^9 clock and 29.97 fps breaks")
    func nanosecondClockMapping() throws {
        let c = try Composition(schedule: Self.ntscSchedule())
        #expect(c.timescale == 300_000_000)
        let player = Self.ns(12_345_678_901)
        // Inside the break: the break's position.
        #expect(c.contentTime(forCompositionTime: player) == Self.ntsc(301))
        // A content time in nanoseconds, after the first break: shifted by the pod (15.015 + 5.005 s).
        let content = Self.ns(30_000_000_001)   // 30.000000001 s: taken at 30 s + 0 ticks of 1/300000000
        #expect(c.compositionTime(forContentTime: content) == MediaTime(seconds: 30) + MediaTime(value: 20020, timescale: 1000))
        // Just before the break's position (10.0433666... s): content, not the break.
        #expect(c.compositionTime(forContentTime: Self.ns(10_043_366_666), bias: .beforeBreaks)
            == MediaTime(value: 3_013_009_999, timescale: 300_000_000))
        #expect(c.compositionTime(forContentTime: Self.ntsc(301), bias: .beforeBreaks) == Self.ntsc(301))
        let bar = c.seekBar(at: player)
        #expect(bar.ad?.title == "Ad 1 of 2")
        #expect(bar.ad?.position == MediaTime(value: 3_703_703_670, timescale: 300_000_000) - Self.ntsc(301))
    }

    @Test("PlaybackSession.update(position:) on a 10^9 clock, then playedState, skipAd, seek(toContentTime:)")
    func nanosecondClockSession() throws {
        var session = try PlaybackSession(schedule: Self.ntscSchedule())
        _ = session.start()
        let reaction = session.update(position: Self.ns(12_345_678_901))
        #expect(reaction.events.map(\.name) == ["breakStarted", "adStarted"])
        // On the composition's grid: 12.3456789 s, the tick before the clock's reading.
        #expect(session.position == MediaTime(value: 3_703_703_670, timescale: 300_000_000))
        #expect(session.playedState.bookmark == Self.ntsc(301))
        let skipped = try session.skipAd()
        #expect(skipped.events.map(\.name) == ["adEnded", "adStarted"])
        #expect(session.position == Self.ntsc(301) + MediaTime(value: 15015, timescale: 1000))
        _ = session.update(position: Self.ns(26_000_000_001))
        _ = try session.seek(toContentTime: Self.ns(50_123_456_789))
        // The once break played and left; a sticky one at 40.04 s plays first (snapback).
        #expect(session.composition.breaks.map(\.id) == ["b2"])
        #expect(session.position == session.composition.breaks[0].compositionRange.start)
        _ = try session.skipBreak()
        #expect(session.playedState.bookmark == MediaTime(value: 15_037_037_036, timescale: 300_000_000))
        #expect(session.playedState.playedBreakIDs == ["b1", "b2"])
    }

    @Test("the simulate script with 29.97 fps times, nanosecond seeks and insert now")
    func simulateMixedTimescales() throws {
        // 149 frames: 149149/30000 s, whose timescale has no common multiple with 10^9 within Int32.
        let durations: [MediaLocation: MediaTime] = ["ad2.mp4": Self.ntsc(149)]
        var session = try PlaybackSession(schedule: Self.nineDecimalsSchedule())
        var player = SingleItemPlayer(composition: session.composition)
        let script = "play 1001/30000; play 10; insert now ad2.mp4; play 1001/30000; skip ad; "
            + "seek composition 12345678901/1000000000; play 3; seek content 301301/30000; play 100"
        let log = PlaybackSimulation.run(try PlaybackSimulation.parse(script), session: &session, player: &player,
                                         naturalDuration: { durations[$0] })
        #expect(session.composition.diagnostics.contains { if case .timeRounded(item: "inserted-ad-1", field: "end", _, _) = $0 { true } else { false } })
        #expect(!log.contains { if case .refused = $0 { true } else { false } }, "\(log.map(logLine))")
        #expect(log.map(logLine).last?.hasSuffix("ended") == true, "\(log.map(logLine))")
        #expect(session.hasEnded)
    }

    /// The prime timescale: every tick of it is a tick of no other timescale.
    @Test("a schedule in 1/2147483647 s mixed with 29.97 fps: rounded on the grid, reported, queried in any timescale")
    func primeTimescaleSchedule() throws {
        let prime: Int32 = 2_147_483_647
        let schedule = try Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", start: MediaTime(value: 1, timescale: prime), end: Self.ntsc(600))],
            breaks: [AdBreak(id: "b", placement: .midroll(at: Self.ntsc(300)), ads: [Ad(id: "a", source: "ad.mp4", end: s(5))])])
        let c = try Composition(schedule: schedule)
        // lcm(2147483647, 30000) does not fit: the grid is the prime's, the 29.97 fps times round.
        #expect(c.timescale == prime)
        #expect(c.diagnostics.contains { if case .timeRounded(item: "C", field: "end", _, _) = $0 { true } else { false } })
        #expect(c.diagnostics.contains { if case .timeRounded(item: "b", field: "position", _, _) = $0 { true } else { false } })
        for query in [Self.ntsc(1), Self.ns(12_345_678_901), MediaTime(value: 7, timescale: 44100), MediaTime(value: 1, timescale: 2_147_483_646)] {
            _ = c.contentTime(forCompositionTime: query)
            _ = c.compositionTime(forContentTime: query)
            _ = c.locate(query)
            _ = c.seekBar(at: query)
        }
        var session = try PlaybackSession(schedule: schedule)
        _ = session.start()
        _ = session.update(position: Self.ns(10_010_000_001))
        _ = try session.skipAd()
        _ = session.playedState
        _ = try session.seek(toCompositionTime: MediaTime(value: 1, timescale: 2_147_483_646))
    }

    @Test("a range shorter than one tick of the grid it must be rounded to is a typed error naming it")
    func rangeBelowTheGrid() throws {
        // 1/2147483646 .. 1/2147483645 lasts 1/(2147483646 * 2147483645) s: both ends round to one tick.
        let schedule = try Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", start: MediaTime(value: 1, timescale: 2_147_483_646),
                                  end: MediaTime(value: 1, timescale: 2_147_483_645))],
            breaks: [])
        #expect(throws: ScheduleError.self) { try Composition(schedule: schedule) }
        do { _ = try Composition(schedule: schedule) } catch {
            guard case .rangeBelowTimescale(item: "C", _, _, _) = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("shorter than one tick"))
        }
    }

    /// R4's structural side: the streaming run hands every entry over before the next action
    /// starts, so nothing (a `compositionChanged` event holds two compositions) piles up.
    @Test("the streaming simulation hands each entry over before the next action: it keeps no log")
    func simulationKeepsNoLog() throws {
        let schedule = try Schedule(content: [ContentClip(id: "C", source: "c.mp4", end: s(60))], breaks: [])
        var session = try PlaybackSession(schedule: schedule)
        var player = SingleItemPlayer(composition: session.composition)
        let inserts = 50
        let actions = [PlaybackSimulation.Action.play(s(1))]
            + Array(repeating: .insertNow(url: "ad.mp4", start: .zero, end: s(1)), count: inserts)
        var changes = 0, insertsResolved = 0
        PlaybackSimulation.run(actions, session: &session, player: &player, resolveURL: { url throws(MediaLocationError) in
            // Every earlier insertion's composition change has been handed over already.
            #expect(changes == insertsResolved)
            insertsResolved += 1
            return try MediaLocation(parsing: url)
        }) { entry in
            if case .event(let event) = entry, case .compositionChanged = event.kind { changes += 1 }
        }
        #expect(changes == inserts && insertsResolved == inserts)
        // The session and the player hold one composition each, whatever the number of insertions.
        #expect(session.composition.breaks.count == 1 && session.composition.breaks[0].adIDs.count == inserts)
        #expect(player.composition == session.composition)
    }
}

/// Issue 13, U3: messages must show times exactly enough to be true.
@Suite("Exact times in messages")
struct ExactMessageTests {
    /// A clip ending at 1/2147483647 s was reported as "placed at [0, 0) in the output", which
    /// reads as a bug in the timeline: the output's timescale cannot hold a piece that short. The
    /// message now gives both ranges exactly and the reason.
    @Test("a clip shorter than one tick of the output's timescale is named with its exact length and the tick")
    func clipShorterThanAnOutputTick() throws {
        let source = MediaLocation(FilePath(packageRoot.appendingPathComponent("Fixtures/content.mp4").path))
        let composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "feature", source: source, end: MediaTime(value: 1, timescale: 2_147_483_647))], breaks: []))
        do {
            _ = try MP4Exporter.plan(composition)
            Issue.record("planned a piece of 1/2147483647 s")
        } catch {
            guard case .planDisagrees(piece: 0, item: "feature", let plan, _) = error.detail else { Issue.record("\(error)"); return }
            let tick = "1/\(plan.start.timescale) s"
            #expect(error.description == "piece 1 ('feature') is at [0, 1/2147483647) s by its timeline, but the output can only "
                + "place it at [0, 0) s: it lasts 1/2147483647 s, less than one tick of the output's timescale (\(tick))")
        }
    }
}
