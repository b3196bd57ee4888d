import Testing
import CompositorTestSupport
import Compositor   // exactly what the README's reader writes: nothing package-level, nothing testable

/// The README's quick start and the tour of the time spaces article
/// (Sources/Compositor/Compositor.docc/TimeSpaces.md), verbatim in spirit: if this stops compiling
/// or its answers change, fix the README and the article.
@Suite("README tour")
struct ReadmeTourTests {
    @Test("the README's quick start: probe, compose, query, render Fixtures/demo.json")
    func quickStart() throws {
        let schedule = try ScheduleDocument.read(path: FilePath(packageRoot.path + "/Fixtures/demo.json"))
        let probed = SourceProbe.probeAll(schedule)
        #expect(probed.failures.isEmpty)
        let durations = probed.results.mapValues(\.naturalDuration)
        let composition = try Composition(schedule: schedule, naturalDurations: durations)
        #expect(composition.duration == s(60))
        #expect(composition.compositionTime(forContentTime: MediaTime(seconds: 10)) == s(28))
        #expect(composition.contentTime(forCompositionTime: MediaTime(seconds: 15)) == t("8.5"))
        let ad = try #require(composition.locate(MediaTime(seconds: 15))?.ad)
        #expect("ad \(ad.position.podPosition) of \(ad.position.podSize), \(ad.timeInAd) s in" == "ad 1 of 2, 1.5 s in")
        let folder = try MP4Fixtures.makeScratchFolder("readme")
        defer { MP4Fixtures.remove(folder) }
        let rendered = try MP4Exporter.render(composition, to: FilePath(folder + "/out.mp4"), cut: .keyframeAligned)
        #expect(rendered.composition.compositionTime(forContentTime: MediaTime(seconds: 10)) == t("28.003"))
    }

    @Test("the time spaces article's tour: its calls and the answers its comments give")
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
