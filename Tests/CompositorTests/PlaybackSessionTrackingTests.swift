import CompositorCore
import CompositorTesting
import CompositorTestSupport
import Testing

/// What ad tracking needs from the session beyond quartiles: progress offsets reached by play, and
/// pause and resume.
///
///     content  [0, 20) ▕ a20 (10 s) ▏ [20, 40) ▕ a40 ▏ [40, 60) ▕ a60 ▏ [60, 100)
///     composition      20          30
///     a20's offsets:   +3 (23), +5 (25, with the midpoint), +10 (its end: never), +12.5 (past it: never)
@Suite struct PlaybackSessionTrackingTests {
    func run(_ script: String, offsets: [MediaTime], restrictions: BreakRestrictions = .none) throws -> [String] {
        var session = try PlaybackSession(schedule: try threeBreaks(restrictions: restrictions))
        session.adProgressOffsets = ["a20": offsets]
        var player = SingleItemPlayer(composition: session.composition)
        return PlaybackSimulation.run(try PlaybackSimulation.parse(script), session: &session, player: &player)
            .map(logLine).filter { $0.contains("adProgress") || $0.contains("adQuartile") || $0.contains("paused") || $0.contains("resumed") }
    }

    @Test func progressIsReportedWhenPlayReachesIt() throws {
        #expect(try run("play 32", offsets: [s(3), s(5), s(10), MediaTime(value: 25, timescale: 2)]) == [
            "22.5 20 adQuartile a20 q1",
            "23 20 adProgress a20 +3",
            "25 20 adQuartile a20 q2",
            "25 20 adProgress a20 +5",
            "27.5 20 adQuartile a20 q3",
        ])
    }

    @Test func progressIsABoundaryAPlayerCanObserve() throws {
        var session = try PlaybackSession(schedule: try threeBreaks())
        session.adProgressOffsets = ["a20": [s(3)]]
        #expect(session.nextBoundary(after: s(22)) == MediaTime(value: 45, timescale: 2))
        #expect(session.nextBoundary(after: MediaTime(value: 45, timescale: 2)) == s(23))
        #expect(session.nextBoundary(after: s(23)) == s(25))
    }

    @Test func aStretchSkippedBySeekingIsNotReported() throws {
        // Seeking within the ad from 21 to 26 passes the first quartile and +3 without playing them.
        #expect(try run("play 21; seek composition 26; play 5", offsets: [s(3), s(7)]) == [
            "27 20 adProgress a20 +7",
            "27.5 20 adQuartile a20 q3",
        ])
    }

    @Test func pauseAndResumeAreSaidOnce() throws {
        #expect(try run("play 21; pause; pause; resume; resume; play 1", offsets: []) == [
            "21 20 paused",
            "21 20 resumed",
        ])
    }

    @Test func hostileOffsetsAreNeverReached() throws {
        #expect(try run("play 32", offsets: [MediaTime(value: Int64.max, timescale: 1), MediaTime(value: -5, timescale: 1), .zero]).filter {
            $0.contains("adProgress")
        } == [])
    }
}
