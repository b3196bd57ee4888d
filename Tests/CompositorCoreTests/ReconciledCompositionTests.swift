import Testing
import CompositorTestSupport
@testable import CompositorCore

/// A schedule, and what an output made of its cuts: the one value both exports return.
///
/// ```
/// requested 0        8.5       12.5           16
///           |C 0-8.5  |ad 0-4   |C 8.5-12      |
/// played    0      8        11.8           15.8
///           |C 0-8  |ad 0.2-4|C 8-12         |        (cuts moved to 8 and to the ad's 0.2)
/// ```
@Suite("A composition reconciled with the cuts an output made")
struct ReconciledCompositionTests {
    let requested: Composition

    init() throws {
        requested = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.m3u8", end: s(12))],
            breaks: [AdBreak(id: "mid", placement: .midroll(at: t("8.5")), ads: [Ad(id: "ad", source: "ad.mp4", end: s(4))])]))
    }

    /// The cuts of the picture above: content to 8, the ad from 0.2, content from 8.
    var movedRanges: [MediaTimeRange] {
        [MediaTimeRange(start: .zero, end: s(8)), MediaTimeRange(start: t("0.2"), end: s(4)), MediaTimeRange(start: s(8), end: s(12))]
    }

    @Test("the played composition, the moved cuts and the breaks as scheduled and as played")
    func reconciled() throws {
        let reconciled = try ReconciledComposition(requested: requested, playedSourceRanges: movedRanges)
        #expect(reconciled.played.segments.map(\.compositionRange) ==
                [MediaTimeRange(start: .zero, end: s(8)), MediaTimeRange(start: s(8), end: t("11.8")),
                 MediaTimeRange(start: t("11.8"), end: t("15.8"))])
        #expect(reconciled.movedCuts.map(\.segment.id) == requested.segments.map(\.id))
        #expect(reconciled.movedCuts.map(\.requested) == requested.segments.map(\.sourceRange))
        #expect(reconciled.breaks.map(\.requested.position) == [t("8.5")])
        #expect(reconciled.breaks.map(\.played.position) == [s(8)])
    }

    @Test("the mapping pair: boundaries to boundaries, the same frame inside, each the other's inverse")
    func mapping() throws {
        let reconciled = try ReconciledComposition(requested: requested, playedSourceRanges: movedRanges)
        for (asked, plays) in zip(reconciled.requested.segments, reconciled.played.segments) {
            #expect(reconciled.playedTime(forRequestedTime: asked.compositionRange.start) == plays.compositionRange.start)
            #expect(reconciled.requestedTime(forPlayedTime: plays.compositionRange.start) == asked.compositionRange.start)
        }
        #expect(reconciled.playedTime(forRequestedTime: s(14)) == t("13.8"), "content 10")
        for time in [s(3), t("10.5"), s(14), t("15.9")] {
            #expect(reconciled.requestedTime(forPlayedTime: reconciled.playedTime(forRequestedTime: time)) == time)
        }
    }

    @Test("cuts as scheduled: the composition itself, nothing moved, times unchanged")
    func unchanged() throws {
        let exact = try ReconciledComposition(requested: requested, playedSourceRanges: requested.segments.map(\.sourceRange),
                                              placedRanges: requested.segments.map(\.compositionRange))
        #expect(exact == ReconciledComposition(unchanged: requested))
        #expect(exact.played == requested && exact.movedCuts.isEmpty)
        #expect(exact.playedTime(forRequestedTime: t("10.5")) == t("10.5"))
    }

    @Test("an output that placed a segment elsewhere, cuts that empty a segment, a wrong count: typed errors")
    func errors() throws {
        var placed = movedRanges.map { _ in MediaTimeRange(start: .zero, end: s(1)) }
        placed[0] = MediaTimeRange(start: .zero, end: s(8))
        #expect(throws: ReconciliationError.placedElsewhere(
            segment: 1, item: requested.segments[1].id, placed: MediaTimeRange(start: .zero, end: s(1)),
            composition: MediaTimeRange(start: s(8), end: t("11.8")))) {
            try ReconciledComposition(requested: requested, playedSourceRanges: movedRanges, placedRanges: placed)
        }
        var emptied = movedRanges
        emptied[1] = MediaTimeRange(start: s(4), end: s(4))
        #expect(throws: ScheduleError.self) { try ReconciledComposition(requested: requested, playedSourceRanges: emptied) }
        #expect(throws: ScheduleError.sourceRangeCount(given: 1, segments: 3)) {
            try ReconciledComposition(requested: requested, playedSourceRanges: [MediaTimeRange(start: .zero, end: s(8))])
        }
        let wrapped = #expect(throws: ReconciliationError.self) {
            try ReconciledComposition(requested: requested, playedSourceRanges: emptied, placedRanges: placed)
        }
        guard case .snapping? = wrapped else { Issue.record("not .snapping: \(String(describing: wrapped))"); return }
    }
}
