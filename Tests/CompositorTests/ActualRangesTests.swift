import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// A stitcher moves cuts to keyframes or segment boundaries; the composition it reports follows.
///
/// ```
/// asked     |C 0-10   |ad 0-5|C 10-20  |     a break at content 10
/// actual    |C 0-9.6  |ad 0-5|C 9.6-20 |     the cut snapped to 9.6
/// reported  composition 0  9.6  14.6  25;  the break at content 9.6
/// ```
@Suite("Composition from actual (snapped) ranges")
struct ActualRangesTests {
    let composition: Composition

    init() throws {
        composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.m3u8", end: s(20))],
            breaks: [AdBreak(id: "b", placement: .midroll(at: s(10)), ads: [Ad(id: "ad", source: "ad.m3u8", end: s(5))])]))
    }

    @Test("a snapped cut moves the break and everything after it")
    func snapped() throws {
        let reported = try composition.replacingSourceRanges([range(s(0), t("9.6")), range(s(0), s(5)), range(t("9.6"), s(20))])
        #expect(reported.segments.map(\.compositionRange) == [range(s(0), t("9.6")), range(t("9.6"), t("14.6")), range(t("14.6"), s(25))])
        #expect(reported.segments.map(\.contentRange) == [range(s(0), t("9.6")), range(t("9.6"), t("9.6")), range(t("9.6"), s(20))])
        #expect(reported.breaks[0].position == t("9.6"))
        #expect(reported.breaks[0].compositionRange == range(t("9.6"), t("14.6")))
        #expect(reported.compositionTime(forContentTime: t("9.6")) == t("14.6"))
        #expect(reported.contentTime(forCompositionTime: s(12)) == t("9.6"))
    }

    @Test("clip edges snapped: content time starts at the clip's new start")
    func clipEdges() throws {
        let reported = try composition.replacingSourceRanges([range(t("0.4"), s(10)), range(s(0), s(4)), range(s(10), t("19.5"))])
        #expect(reported.contentDuration == t("19.1"))
        #expect(reported.breaks[0].position == t("9.6"))
        #expect(reported.duration == t("23.1"))
    }

    @Test("unchanged ranges give the same composition, for 1,000 random schedules: as they are, and worked out again")
    func identity() {
        // The same times in twice the timescale are worked out afresh; as they are, they give the composition itself.
        func doubled(_ t: MediaTime) -> MediaTime? {
            let (value, overflow) = t.value.multipliedReportingOverflow(by: 2)
            return overflow || t.timescale > Int32.max / 2 ? nil : MediaTime(value: value, timescale: t.timescale * 2)
        }
        for seed in CompositionPropertyTests.seeds {
            let c = CompositionPropertyTests.randomComposition(seed: seed)
            guard c.breaks.allSatisfy({ $0.resumeContentTime == $0.position }) else { continue }
            #expect((try? c.replacingSourceRanges(c.segments.map(\.sourceRange))) == c, "seed \(seed)")
            let rescaled = c.segments.compactMap { segment in
                doubled(segment.sourceRange.start).flatMap { start in doubled(segment.sourceRange.end).map { MediaTimeRange(start: start, end: $0) } }
            }
            guard rescaled.count == c.segments.count else { continue }
            #expect((try? c.replacingSourceRanges(rescaled)) == c, "seed \(seed), rescaled")
        }
    }

    @Test("empty or overlapping actual ranges are errors naming the item")
    func errors() {
        #expect(throws: ScheduleError.emptyRange(item: "ad", start: s(2), end: s(2))) {
            try composition.replacingSourceRanges([range(s(0), s(10)), range(s(2), s(2)), range(s(10), s(20))])
        }
        #expect(throws: ScheduleError.overlappingPieces(item: "C", end: s(10), nextStart: s(9))) {
            try composition.replacingSourceRanges([range(s(0), s(10)), range(s(0), s(5)), range(s(9), s(20))])
        }
        #expect(ScheduleError.overlappingPieces(item: "C", end: s(10), nextStart: s(0)).description
            == "'C': one piece would end at 10 s and the next start at 0 s, playing content twice: its source has no keyframe "
            + "(or segment boundary) near the cut between them. Cut nearer one, or use sample-accurate cuts")
    }

    @Test("a range count other than one per segment is an error, not a trap")
    func rangeCount() {
        #expect(throws: ScheduleError.sourceRangeCount(given: 2, segments: 3)) {
            try composition.replacingSourceRanges([range(s(0), s(10)), range(s(0), s(5))])
        }
        #expect(ScheduleError.sourceRangeCount(given: 2, segments: 3).description
            == "2 source ranges for a composition of 3 segments; give one per segment, in order")
    }
}
