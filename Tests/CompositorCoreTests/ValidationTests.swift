import Testing
import CompositorTestSupport
@testable import CompositorCore

@Suite("Schedule validation: every error names the item and the value")
struct ValidationTests {
    let clip = ContentClip(id: "C", source: "c.mp4", end: s(10))
    func ad(_ id: String = "ad", start: MediaTime = .zero, end: MediaTime? = s(2)) -> Ad {
        Ad(id: id, source: "ad.mp4", start: start, end: end)
    }

    @Test("no content")
    func noContent() {
        #expect(throws: ScheduleError.noContent) { try Composition(schedule: Schedule()) }
    }

    @Test("empty and duplicate IDs (clips, breaks and ads share one namespace)")
    func ids() throws {
        var schedule = try Schedule(content: [clip], breaks: [])
        #expect(throws: ScheduleError.emptyID(kind: "content clip")) {
            try schedule.appendContentClip(ContentClip(id: "", source: "c.mp4"))
        }
        #expect(throws: ScheduleError.duplicateID("C")) { try schedule.appendContentClip(clip) }
        #expect(throws: ScheduleError.duplicateID("C")) {
            try schedule.appendBreak(AdBreak(id: "C", placement: .preroll, ads: [ad()]))
        }
        #expect(throws: ScheduleError.duplicateID("x")) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad("x"), ad("x")]))
        }
        #expect(throws: ScheduleError.duplicateID("b")) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad("y"), ad("b")]))
        }
        #expect(throws: ScheduleError.duplicateID("C")) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad("x"), ad("y"), ad("C")]))
        }
        // A failed append changes nothing: "b", "x" and "y" are still free.
        try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad("x"), ad("y")]))
        #expect(schedule.breaks.count == 1)
    }

    @Test("unknown IDs")
    func unknownIDs() throws {
        var schedule = try Schedule(content: [clip], breaks: [])
        #expect(throws: ScheduleError.unknownID("nope")) { try schedule.appendAd(ad(), after: "nope") }
        #expect(throws: ScheduleError.unknownID("nope")) { try schedule.appendAd(ad(), toBreak: "nope") }
        #expect(throws: ScheduleError.unknownID("nope")) { try schedule.removeBreak(id: "nope") }
        #expect(throws: ScheduleError.unknownID("nope")) { try schedule.removeAd(id: "nope") }
        #expect(throws: ScheduleError.unknownID("nope")) { try schedule.removeContentClip(id: "nope") }
        #expect(throws: ScheduleError.unknownID("nope")) { try schedule.setPolicy(.once, forBreak: "nope") }
        #expect(throws: ScheduleError.unknownID("nope")) { try Composition(schedule: schedule, excludingBreaks: ["nope"]) }
    }

    @Test("negative times")
    func negativeTimes() throws {
        var schedule = try Schedule(content: [clip], breaks: [])
        #expect(throws: ScheduleError.negativeTime(item: "neg", field: "start", value: s(-1))) {
            try schedule.appendContentClip(ContentClip(id: "neg", source: "c.mp4", start: s(-1)))
        }
        #expect(throws: ScheduleError.negativeTime(item: "b", field: "position", value: t("-0.5"))) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .midroll(at: t("-0.5")), ads: [ad()]))
        }
        #expect(throws: ScheduleError.negativeTime(item: "b", field: "resumeOffset", value: s(-2))) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad()], resumeOffset: s(-2)))
        }
        #expect(throws: ScheduleError.negativeTime(item: "b", field: "skippable after", value: s(-5))) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad()],
                                             restrictions: BreakRestrictions(skipping: .after(s(-5)))))
        }
        #expect(throws: ScheduleError.negativeTime(item: "a", field: "start", value: s(-3))) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad("a", start: s(-3))]))
        }
    }

    @Test("empty ranges and empty pods")
    func emptyRanges() throws {
        var schedule = try Schedule(content: [clip], breaks: [])
        #expect(throws: ScheduleError.emptyRange(item: "e", start: s(5), end: s(5))) {
            try schedule.appendContentClip(ContentClip(id: "e", source: "c.mp4", start: s(5), end: s(5)))
        }
        #expect(throws: ScheduleError.emptyRange(item: "a", start: s(3), end: s(2))) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: [ad("a", start: s(3), end: s(2))]))
        }
        #expect(throws: ScheduleError.emptyPod(breakID: "b")) {
            try schedule.appendBreak(AdBreak(id: "b", placement: .preroll, ads: []))
        }
    }

    @Test("a mid-roll outside the content; one exactly at the end is fine")
    func midrollOutside() throws {
        let outside = try Schedule(content: [clip], breaks: [AdBreak(id: "late", placement: .midroll(at: t("10.001")), ads: [ad()])])
        #expect(throws: ScheduleError.midrollOutsideContent(breakID: "late", at: t("10.001"), contentDuration: s(10))) {
            try Composition(schedule: outside)
        }
        let atEnd = try Schedule(content: [clip], breaks: [AdBreak(id: "end", placement: .midroll(at: s(10)), ads: [ad()])])
        #expect(try Composition(schedule: atEnd).segments.last?.id == "ad")
    }

    @Test("natural durations: unknown, start past it, and an end past it clamped with a diagnostic")
    func naturalDurations() throws {
        let open = try Schedule(content: [ContentClip(id: "open", source: "c.mp4")], breaks: [])
        #expect(throws: ScheduleError.unknownDuration(item: "open", source: "c.mp4")) { try Composition(schedule: open) }
        #expect(try Composition(schedule: open, naturalDurations: ["c.mp4": t("12.04")]).contentDuration == t("12.04"))

        let late = try Schedule(content: [ContentClip(id: "late", source: "c.mp4", start: s(13))], breaks: [])
        #expect(throws: ScheduleError.startPastNaturalDuration(item: "late", start: s(13), naturalDuration: s(12))) {
            try Composition(schedule: late, naturalDurations: ["c.mp4": s(12)])
        }

        let long = try Schedule(content: [clip], breaks: [AdBreak(id: "b", placement: .midroll(at: s(5)), ads: [ad("long", end: s(40))])])
        let c = try Composition(schedule: long, naturalDurations: ["ad.mp4": t("29.97")])
        #expect(c.segments[1].sourceRange == range(.zero, t("29.97")))
        #expect(c.diagnostics == [.endClamped(item: "long", requested: s(40), naturalDuration: t("29.97"))])
    }

    @Test("sums that overflow 64 bits are reported, not wrapped")
    func overflow() throws {
        let huge = MediaTime(value: Int64.max / 2 + 1, timescale: 1)
        let schedule = try Schedule(content: [
            ContentClip(id: "h1", source: "c.mp4", end: huge), ContentClip(id: "h2", source: "c.mp4", end: huge),
        ], breaks: [])
        #expect(throws: ScheduleError.self) { try Composition(schedule: schedule) }
        do { _ = try Composition(schedule: schedule) } catch {
            guard case .timeOverflow(item: "h2", _) = error else { Issue.record("unexpected \(error)"); return }
        }
    }

    @Test("errors read well")
    func messages() {
        #expect(ScheduleError.midrollOutsideContent(breakID: "mid1", at: t("95.5"), contentDuration: s(90)).description
            == "break 'mid1' at 95.5 s is outside the content (0...90 s)")
        #expect(ScheduleError.emptyRange(item: "a3", start: s(4), end: s(1)).description
            == "'a3': empty range, end 1 s is not after start 4 s")
    }

    @Test("removing things")
    func removing() throws {
        var schedule = try Schedule(content: [clip, ContentClip(id: "D", source: "d.mp4", end: s(5))],
                                    breaks: [AdBreak(id: "b", placement: .preroll, ads: [ad("x"), ad("y")])])
        try schedule.removeAd(id: "x")
        #expect(schedule.breaks[0].ads.map(\.id) == ["y"])
        try schedule.removeAd(id: "y")
        #expect(schedule.breaks.isEmpty)
        try schedule.removeContentClip(id: "C")
        #expect(try Composition(schedule: schedule).contentDuration == s(5))
        // Removed IDs are free again.
        try schedule.appendContentClip(clip)
    }
}
