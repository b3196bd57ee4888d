import Testing
import CompositorTestSupport
@testable import CompositorCore

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

    /// Issue 50: a pre-roll replacing a clip's start dropped the replaced content from content
    /// time (content [0, 10.5) of a 12 s clip), and `hls --interstitials` refused the break.
    ///
    /// ```
    /// asked     |pre ad 0-4|C 1.5-12|      a pre-roll with resumeOffset 1.5
    /// content   @0          [1.5, 12)      content duration 12: the replaced 1.5 s is still content
    /// actual    |ad 0-4|C 1.4-12|          the resume cut snapped to 1.4 -> content [1.4, 12)
    /// ```
    @Test("content a break replaces at a clip's start or at the content's end stays content time")
    func replacedAtEdges() throws {
        let preroll = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.m3u8", end: s(12))],
            breaks: [AdBreak(id: "pre", placement: .preroll, ads: [Ad(id: "ad", source: "ad.m3u8", end: s(4))], resumeOffset: t("1.5"))]))
        let same = try preroll.replacingSourceRanges(preroll.segments.map(\.sourceRange))
        #expect(same.contentDuration == s(12))
        #expect(same.segments.map(\.contentRange) == [range(s(0), s(0)), range(t("1.5"), s(12))])
        let snapped = try preroll.replacingSourceRanges([range(s(0), s(4)), range(t("1.4"), s(12))])
        #expect(snapped.segments.map(\.contentRange) == [range(s(0), s(0)), range(t("1.4"), s(12))])
        #expect(snapped.breaks[0].resumeContentTime == t("1.4") && snapped.contentDuration == s(12))

        // A second clip whose first 2 s a break at its edge replaces; a break near the end replacing the rest.
        let edges = try Composition(schedule: Schedule(
            content: [ContentClip(id: "A", source: "a.m3u8", end: s(10)), ContentClip(id: "B", source: "b.m3u8", start: s(5), end: s(15))],
            breaks: [AdBreak(id: "edge", placement: .midroll(at: s(10)), ads: [Ad(id: "x", source: "ad.m3u8", end: s(3))], resumeOffset: s(2)),
                     AdBreak(id: "end", placement: .midroll(at: s(18)), ads: [Ad(id: "y", source: "ad.m3u8", end: s(3))], resumeOffset: s(2))]))
        let reported = try edges.replacingSourceRanges(edges.segments.map(\.sourceRange))
        #expect(reported.contentDuration == s(20))
        #expect(reported.segments.map(\.contentRange) == edges.segments.map(\.contentRange))
        #expect(reported.breaks.map(\.resumeContentTime) == [s(12), s(20)])
    }

    @Test("the same ranges give the same content times, for 1,000 random schedules, breaks that replace content included")
    func sameContentTimes() {
        for seed in RandomCompositions.seeds {
            let c = RandomCompositions.randomComposition(seed: seed)
            guard let reported = try? c.replacingSourceRanges(c.segments.map(\.sourceRange)) else { continue }
            #expect(reported.contentDuration == c.contentDuration, "seed \(seed)")
            #expect(reported.segments.map(\.contentRange) == c.segments.map(\.contentRange), "seed \(seed)")
            #expect(reported.breaks.map(\.position) == c.breaks.map(\.position), "seed \(seed)")
        }
    }

    @Test("unchanged ranges give the same composition, for 1,000 random schedules: as they are, and worked out again")
    func identity() {
        // The same times in twice the timescale are worked out afresh; as they are, they give the composition itself.
        func doubled(_ t: MediaTime) -> MediaTime? {
            let (value, overflow) = t.value.multipliedReportingOverflow(by: 2)
            return overflow || t.timescale > Int32.max / 2 ? nil : MediaTime(value: value, timescale: t.timescale * 2)
        }
        for seed in RandomCompositions.seeds {
            let c = RandomCompositions.randomComposition(seed: seed)
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
