import Testing
import CompositorTestSupport
@testable import CompositorCore

/// ```
/// composition 0        10       15                25
///             |--C 0-10--|--ad--|------C 10-20-----|
/// content     0         10      10                20
/// ```
@Suite("Mapping boundaries (IMA rules)")
struct MappingTests {
    let composition: Composition

    init() throws {
        composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: s(20))],
            breaks: [AdBreak(id: "mid", placement: .midroll(at: s(10)), ads: [Ad(id: "ad", source: "ad.mp4", end: s(5))])]))
    }

    @Test("a content time at a break maps after the break, or to its start with .beforeBreaks")
    func breakPosition() {
        #expect(composition.compositionTime(forContentTime: s(10)) == s(15))
        #expect(composition.compositionTime(forContentTime: s(10), bias: .beforeBreaks) == s(10))
    }

    @Test("a composition time inside a break maps to the break's position")
    func insideBreak() {
        #expect(composition.contentTime(forCompositionTime: s(10)) == s(10))
        #expect(composition.contentTime(forCompositionTime: t("12.5")) == s(10))
        #expect(composition.contentTime(forCompositionTime: t("14.999")) == s(10))
    }

    @Test("the last instant before the ad, its first instant, and the instant content resumes")
    func boundaries() throws {
        let before = try #require(composition.locate(t("9.999999")))
        #expect(before.ad == nil)
        #expect(before.contentTime == t("9.999999"))

        let first = try #require(composition.locate(s(10)))
        #expect(first.segment.id == "ad")
        #expect(first.ad?.timeInAd == .zero)
        #expect(first.ad?.position.podPosition == 1)
        #expect(first.sourceTime == .zero)

        let resumed = try #require(composition.locate(s(15)))
        #expect(resumed.ad == nil)
        #expect(resumed.contentTime == s(10))
        #expect(resumed.sourceTime == s(10))
    }

    @Test("the ends: content 0 and the content end, composition 0 and its end")
    func ends() {
        #expect(composition.compositionTime(forContentTime: .zero) == .zero)
        #expect(composition.compositionTime(forContentTime: s(20)) == s(25))
        #expect(composition.contentTime(forCompositionTime: s(25)) == s(20))
        #expect(composition.locate(s(25)) == nil)
        #expect(composition.locate(t("-0.001")) == nil)
    }

    @Test("times outside the timeline are clamped")
    func clamping() {
        #expect(composition.compositionTime(forContentTime: s(-3)) == .zero)
        #expect(composition.compositionTime(forContentTime: s(99)) == s(25))
        #expect(composition.contentTime(forCompositionTime: s(99)) == s(20))
        #expect(composition.contentTime(forCompositionTime: s(-1)) == .zero)
    }

    @Test("29.97 fps times stay exact")
    func rationalTimes() throws {
        let frame = t("1001/30000")
        let c = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", start: frame, end: t("300300/30000"))],
            breaks: [AdBreak(id: "b", placement: .midroll(at: t("150150/30000")),
                             ads: [Ad(id: "a", source: "a.mp4", end: t("10.010"))])]))
        #expect(c.duration == t("300300/30000") - frame + t("10.010"))
        #expect(c.compositionTime(forContentTime: t("150150/30000")) == t("150150/30000") + t("10.010"))
        let justBefore = t("150150/30000") - frame
        #expect(c.locate(justBefore)?.sourceTime == justBefore + frame)
        #expect(c.contentTime(forCompositionTime: c.compositionTime(forContentTime: justBefore)) == justBefore)
    }
}

/// Pre-rolls, mid-rolls at 0 and at the end, post-rolls, same-place breaks.
///
/// ```
/// scheduled: post1 mid@end pre1 mid@0 pre2 post2 midA@5 midB@5
/// plays:     pre1 pre2 mid@0 | C 0-5 | midA midB | C 5-10 | mid@end post1 post2
/// ```
@Suite("Ordering rules")
struct OrderingTests {
    @Test("same-place breaks play in scheduling order; mid-rolls at 0 after pre-rolls, at the end before post-rolls")
    func ordering() throws {
        func ad(_ id: String) -> [Ad] { [Ad(id: id + "-ad", source: "ad.mp4", end: s(1))] }
        let schedule = try Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: s(10))],
            breaks: [
                AdBreak(id: "post1", placement: .postroll, ads: ad("post1")),
                AdBreak(id: "midEnd", placement: .midroll(at: s(10)), ads: ad("midEnd")),
                AdBreak(id: "pre1", placement: .preroll, ads: ad("pre1")),
                AdBreak(id: "mid0", placement: .midroll(at: .zero), ads: ad("mid0")),
                AdBreak(id: "pre2", placement: .preroll, ads: ad("pre2")),
                AdBreak(id: "post2", placement: .postroll, ads: ad("post2")),
                AdBreak(id: "midA", placement: .midroll(at: s(5)), ads: ad("midA")),
                AdBreak(id: "midB", placement: .midroll(at: s(5)), ads: ad("midB")),
            ])
        let c = try Composition(schedule: schedule)
        #expect(c.breaks.map(\.id) == ["pre1", "pre2", "mid0", "midA", "midB", "midEnd", "post1", "post2"])
        #expect(c.segments.map(\.id) == [
            "pre1-ad", "pre2-ad", "mid0-ad", "C", "midA-ad", "midB-ad", "C", "midEnd-ad", "post1-ad", "post2-ad",
        ])
        #expect(c.breaks.map(\.position) == [s(0), s(0), s(0), s(5), s(5), s(10), s(10), s(10)])
        // Before-bias lands on the first break at a position; after-bias after the last.
        #expect(c.compositionTime(forContentTime: s(5), bias: .beforeBreaks) == s(8))
        #expect(c.compositionTime(forContentTime: s(5)) == s(10))
        #expect(c.compositionTime(forContentTime: .zero) == s(3))
        #expect(c.compositionTime(forContentTime: s(10), bias: .beforeBreaks) == s(15))
    }

    @Test("appending an ad after another puts it right after it in its pod")
    func appendAfter() throws {
        var schedule = try Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: s(10))],
            breaks: [AdBreak(id: "b", placement: .midroll(at: s(5)), ads: [
                Ad(id: "x", source: "x.mp4", end: s(1)), Ad(id: "z", source: "z.mp4", end: s(1)),
            ])])
        try schedule.appendAd(Ad(id: "y", source: "y.mp4", end: s(1)), after: "x")
        try schedule.appendAd(Ad(id: "w", source: "w.mp4", end: s(1)), toBreak: "b")
        let c = try Composition(schedule: schedule)
        #expect(c.breaks[0].adIDs == ["x", "y", "z", "w"])
        #expect(c.segments.compactMap(\.adPosition).map(\.podPosition) == [1, 2, 3, 4])
        #expect(c.segments.compactMap(\.adPosition).allSatisfy { $0.podSize == 4 })
    }

    @Test("content clips cut together make one content timeline")
    func roughCut() throws {
        let c = try Composition(schedule: Schedule(content: [
            ContentClip(id: "A", source: "a.mp4", start: s(30), end: s(80)),
            ContentClip(id: "B", source: "b.mp4", start: t("2.5"), end: t("7.5")),
        ], breaks: [AdBreak(id: "m", placement: .midroll(at: s(52)), ads: [Ad(id: "ad", source: "ad.mp4", end: s(4))])]))
        #expect(c.contentDuration == s(55))
        #expect(c.segments.map(\.sourceRange) == [
            range(s(30), s(80)), range(t("2.5"), t("4.5")), range(s(0), s(4)), range(t("4.5"), t("7.5")),
        ])
        // Content 51.5 is 1.5 s into B, which starts at its source's 2.5.
        #expect(c.locate(t("51.5"))?.sourceTime == s(4))
    }
}

/// A break with `resumeOffset` replaces content instead of being inserted.
///
/// ```
/// composition 0       10     16        26
///             |C 0-10 |--ad--|C 14-24  |
/// content     0      10  (10-14 replaced) 14      24
/// ```
@Suite("Replace breaks (resumeOffset)")
struct ResumeOffsetTests {
    let composition: Composition

    init() throws {
        composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: s(24))],
            breaks: [AdBreak(id: "r", placement: .midroll(at: s(10)),
                             ads: [Ad(id: "ad", source: "ad.mp4", end: s(6))], resumeOffset: s(4))]))
    }

    @Test("content resumes at position + offset")
    func resumes() {
        #expect(composition.segments.map(\.contentRange) == [range(s(0), s(10)), range(s(10), s(10)), range(s(14), s(24))])
        #expect(composition.duration == s(26))
        #expect(composition.contentDuration == s(24))
        #expect(composition.breaks[0].resumeContentTime == s(14))
        #expect(composition.contentTime(forCompositionTime: s(16)) == s(14))
    }

    @Test("replaced content maps to where content resumes, or the break's start")
    func replacedContent() {
        #expect(composition.compositionTime(forContentTime: s(12)) == s(16))
        #expect(composition.compositionTime(forContentTime: s(12), bias: .beforeBreaks) == s(10))
        #expect(composition.compositionTime(forContentTime: s(14)) == s(16))
    }

    @Test("a break inside replaced content, or an offset past the end, is an error")
    func errors() throws {
        let content = [ContentClip(id: "C", source: "c.mp4", end: s(24))]
        let ads = { (id: String) in [Ad(id: id, source: "ad.mp4", end: s(1))] }
        #expect(throws: ScheduleError.breakInsideReplacedContent(breakID: "inside", at: s(12), replacedBy: "r", replaced: range(s(10), s(14)))) {
            try Composition(schedule: Schedule(content: content, breaks: [
                AdBreak(id: "r", placement: .midroll(at: s(10)), ads: ads("a"), resumeOffset: s(4)),
                AdBreak(id: "inside", placement: .midroll(at: s(12)), ads: ads("b")),
            ]))
        }
        #expect(throws: ScheduleError.resumeOffsetPastContentEnd(breakID: "r", resumesAt: s(30), contentDuration: s(24))) {
            try Composition(schedule: Schedule(content: content, breaks: [
                AdBreak(id: "r", placement: .midroll(at: s(20)), ads: ads("a"), resumeOffset: s(10)),
            ]))
        }
        // Same-position breaks share the replaced range; a break at its end plays right after.
        let shared = try Composition(schedule: Schedule(content: content, breaks: [
            AdBreak(id: "r", placement: .midroll(at: s(10)), ads: ads("a"), resumeOffset: s(4)),
            AdBreak(id: "same", placement: .midroll(at: s(10)), ads: ads("b"), resumeOffset: s(2)),
            AdBreak(id: "atEnd", placement: .midroll(at: s(14)), ads: ads("c")),
        ]))
        #expect(shared.segments.map(\.id) == ["C", "a", "b", "c", "C"])
        #expect(shared.segments.last?.contentRange == range(s(14), s(24)))
    }
}
