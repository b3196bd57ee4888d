import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// The queue backend: one item per segment, exact cuts, at most two items queued ahead.
///
/// ```
/// composition 0  5       28   45   62      82    107     128  143     169       249   294
///             |pre|A 0-23 |pod1|pod2|A 23-43|once |A 43-64|stky|A 64-90|B 0-80   |post |
/// items        0   1       2    3    4       5     6       7    8       9         10
/// ```
@Suite("Queue plan and queue player")
struct QueuePlaybackTests {
    let composition: Composition

    init() throws {
        composition = try Composition(schedule: try fixtureSchedule("reference-sample.json"))
    }

    @Test("one item per segment, with exact start and forward end times")
    func plan() {
        let plan = QueuePlan(composition: composition)
        #expect(plan.items.count == composition.segments.count)
        #expect(plan.items[4].startTime == s(23) && plan.items[4].forwardPlaybackEndTime == s(43))
        #expect(plan.items[4].compositionRange == range(s(62), s(82)))
        #expect(plan.itemIndex(at: s(62)) == 4)
        #expect(plan.itemIndex(at: t("61.999")) == 3)
        #expect(plan.itemIndex(at: s(294)) == nil)
    }

    @Test("playing through: every transition at the exact composition time, no gap, no overlap")
    func transitions() {
        var player = QueueBackendPlayer(composition: composition)
        // Odd steps, so transitions fall inside steps as well as on them.
        let step = t("7/3")
        var played = MediaTime.zero
        while played < composition.duration {
            player.play(for: step)
            played += step
            #expect(player.compositionTime == MediaTime.min(played, composition.duration))
        }
        let simulated = player.driver.player
        #expect(simulated.transitions.map(\.clock) == composition.segments.map(\.compositionRange.end))
        #expect(simulated.transitions.map(\.endedSegment) == Array(composition.segments.indices))
        #expect(simulated.transitions.map(\.startedSegment) == Array(1..<composition.segments.count).map { $0 } + [nil])
        #expect(simulated.mostItemsQueued == 3, "the current item and two ahead, never more")
    }

    @Test("the mapping agrees at every transition")
    func mappingAgrees() {
        var player = QueueBackendPlayer(composition: composition)
        for segment in composition.segments {
            #expect(player.compositionTime == segment.compositionRange.start)
            #expect(player.driver.currentIndex.map { composition.segments[$0] } == segment)
            #expect(composition.locate(player.compositionTime)?.segment == segment)
            player.play(for: segment.compositionRange.duration)
        }
        #expect(player.compositionTime == composition.duration)
    }

    @Test("seeks within the current item and across items; lookahead stays bounded")
    func seeks() {
        var player = QueueBackendPlayer(composition: composition)
        player.apply(.seek(to: s(3)))
        #expect(player.compositionTime == s(3))
        player.apply(.seek(to: s(150)))
        #expect(player.compositionTime == s(150))
        #expect(player.driver.currentIndex == 8)
        #expect(player.driver.player.currentTime == s(71))
        #expect(player.driver.player.items().count == 3)
        player.play(for: s(19))
        #expect(player.compositionTime == s(169))
        #expect(player.driver.currentIndex == 9)
    }
}

/// The same scripts over both backends give the same events at the same composition times.
@Suite("Session over both backends")
struct BackendEquivalenceTests {
    static let scripts = [
        "play 400",
        "play 30; seek content 50; play 60; seek content 10; play 300",
        "play 3; skip ad; play 30; skip break; seek composition 120; play 500",
        "play 12; insert now promo.mp4 0 4; play 20; insert now promo.mp4 1 3; play 400",
        "seek content 170; play 50; seek composition 0; play 100",
    ]

    @Test("same events, same times", arguments: scripts)
    func sameEvents(script: String) throws {
        let schedule = try fixtureSchedule("reference-sample.json")
        let actions = try PlaybackSimulation.parse(script)

        var single = try PlaybackSession(schedule: schedule)
        var singlePlayer = SingleItemPlayer(composition: single.composition)
        let singleLog = PlaybackSimulation.run(actions, session: &single, player: &singlePlayer)

        var queued = try PlaybackSession(schedule: schedule)
        var queuePlayer = QueueBackendPlayer(composition: queued.composition)
        let queueLog = PlaybackSimulation.run(actions, session: &queued, player: &queuePlayer)

        #expect(singleLog.count > 5)
        #expect(queueLog == singleLog)
        #expect(queuePlayer.compositionTime == singlePlayer.compositionTime)
    }
}
