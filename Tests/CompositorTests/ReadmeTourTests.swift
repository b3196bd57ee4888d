import Testing
import Compositor   // exactly what the README's reader writes: nothing package-level, nothing testable

/// The README's tour, verbatim in spirit: if this stops compiling or its answers change, fix the README.
@Suite("README tour")
struct ReadmeTourTests {
    @Test("the tour's calls and the answers its comments give")
    func tour() throws {
        var schedule = Schedule()
        try schedule.appendContentClip(ContentClip(id: "A", source: "movie.mp4", end: MediaTime(seconds: 90)))
        try schedule.appendContentClip(ContentClip(id: "B", source: "extra.mp4", start: MediaTime(seconds: 30)))
        try schedule.appendBreak(AdBreak(id: "pre", placement: .preroll, ads: [Ad(id: "p1", source: "ad1.mp4")]))
        try schedule.appendBreak(AdBreak(id: "mid", placement: .midroll(at: MediaTime(seconds: 23)),
                                         ads: [Ad(id: "m1", source: "ad2.mp4")], policy: .once))
        try schedule.appendAd(Ad(id: "m2", source: "ad3.mp4", end: MediaTime(value: 15015, timescale: 1000)),
                              after: "m1")
        let composition = try Composition(schedule: schedule, naturalDurations: [
            "extra.mp4": MediaTime(seconds: 80), "ad1.mp4": MediaTime(seconds: 5), "ad2.mp4": MediaTime(seconds: 17),
        ])
        #expect(composition.compositionTime(forContentTime: MediaTime(seconds: 23)) == t("60.015"))
        #expect(composition.compositionTime(forContentTime: MediaTime(seconds: 23), bias: .beforeBreaks) == s(28))
        #expect(composition.contentTime(forCompositionTime: MediaTime(seconds: 30)) == s(23))
        let ad = try #require(composition.locate(MediaTime(seconds: 30))?.ad)
        #expect(ad.position.podPosition == 1 && ad.position.podSize == 2 && ad.timeInAd == s(2))
        let bars = composition.seekBar(at: MediaTime(seconds: 30), playedBreakIDs: ["pre"])
        #expect(bars.main.label == "00:23/02:20")
        #expect(bars.ad?.title == "Ad 1 of 2")
    }
}
