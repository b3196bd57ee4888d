import CompositorAds
import CompositorCore
import CompositorTestSupport
import Testing

/// Beacons from the session's events: what each event makes due, once per play, with macros filled.
///
///     content [0, 10) ▕ pre: p1 (8 s) ▏ … ▕ mid at 4: m1 (4 s) ▏ [4, 10)
///     composition   0          8      12          16
@Suite struct BeaconPlannerTests {
    static let base = "http://127.0.0.1/"

    static func resolved(_ id: String, seconds: Int64, tracking: [VASTTracking]) -> ResolvedAd {
        ResolvedAd(id: id, sequence: nil, adSystem: nil, title: nil, duration: s(seconds), skipOffset: nil,
                   mediaFile: VASTMediaFile(url: base + "m/\(id).mp4", delivery: .progressive, type: "video/mp4"),
                   impressions: [base + "i/\(id)"], tracking: tracking, errors: [base + "e/\(id)?c=[ERRORCODE]"],
                   clickThrough: nil, clickTracking: [], wrappers: [], universalAdIDs: [], verifications: [])
    }

    static func events(_ id: String) -> [VASTTracking] {
        [VASTTracking(event: .start, url: base + "t/\(id)/start?ad=[ADPLAYHEAD]&c=[CONTENTPLAYHEAD]&p=[BREAKPOSITION]&a=[ASSETURI]"),
         VASTTracking(event: .firstQuartile, url: base + "t/\(id)/q1"), VASTTracking(event: .midpoint, url: base + "t/\(id)/q2?ad=[ADPLAYHEAD]"),
         VASTTracking(event: .thirdQuartile, url: base + "t/\(id)/q3"), VASTTracking(event: .complete, url: base + "t/\(id)/complete"),
         VASTTracking(event: .skip, url: base + "t/\(id)/skip"), VASTTracking(event: .pause, url: base + "t/\(id)/pause"),
         VASTTracking(event: .resume, url: base + "t/\(id)/resume"),
         VASTTracking(event: .progress(.fraction(basisPoints: 1000)), url: base + "t/\(id)/p10?ad=[ADPLAYHEAD]")]
    }

    let schedule = try! Schedule(
        content: [ContentClip(id: "c", source: "c.mp4", end: s(10))],
        breaks: [AdBreak(id: "pre", placement: .preroll, ads: [Ad(id: "p1", source: "p1.mp4", end: s(8))]),
                 AdBreak(id: "mid", placement: .midroll(at: s(4)), ads: [Ad(id: "m1", source: "m1.mp4", end: s(4))], policy: .once)])
    var tracking: AdTracking {
        AdTracking(ads: ["p1": Self.resolved("p1", seconds: 8, tracking: Self.events("p1")), "m1": Self.resolved("m1", seconds: 4, tracking: Self.events("m1"))],
                   breaks: ["mid": [.breakStart: [Self.base + "b/mid/start?t=[CONTENTPLAYHEAD]"], .breakEnd: [Self.base + "b/mid/end"]]])
    }
    let macros = BeaconMacros(cacheBusting: "12345678", timestamp: "2026-11-27T10:00:00.000Z")

    /// Plays `session` from where it is for `seconds`, stopping at every boundary, and returns the
    /// beacons due (name and URL, after the host).
    func play(_ session: inout PlaybackSession, _ planner: inout BeaconPlanner, for seconds: Int64) -> [String] {
        var due: [DueBeacon] = []
        let end = session.position + s(seconds)
        while let boundary = session.nextBoundary(after: session.position), boundary <= end {
            due += planner.beacons(for: session.update(position: boundary).events, macros: macros)
        }
        if session.position < end { due += planner.beacons(for: session.update(position: end).events, macros: macros) }
        return due.map(Self.line)
    }

    static func line(_ beacon: DueBeacon) -> String { "\(beacon.name) \(beacon.url.dropFirst(base.count))" }

    @Test func aWholePlayInOrder() throws {
        var session = try PlaybackSession(schedule: schedule)
        session.adProgressOffsets = tracking.progressOffsets
        var planner = BeaconPlanner(tracking: tracking, schedule: schedule)
        var due = planner.beacons(for: session.start().events, macros: macros).map(Self.line)
        due += play(&session, &planner, for: 20)
        #expect(due == [
            "impression i/p1", "start t/p1/start?ad=00%3A00%3A00.000&c=00%3A00%3A00.000&p=1&a=http%3A%2F%2F127.0.0.1%2Fm%2Fp1.mp4",
            "progress t/p1/p10?ad=00%3A00%3A00.800", "firstQuartile t/p1/q1", "midpoint t/p1/q2?ad=00%3A00%3A04.000", "thirdQuartile t/p1/q3",
            "complete t/p1/complete",
            "breakStart b/mid/start?t=00%3A00%3A04.000",
            "impression i/m1", "start t/m1/start?ad=00%3A00%3A00.000&c=00%3A00%3A04.000&p=2&a=http%3A%2F%2F127.0.0.1%2Fm%2Fm1.mp4",
            "progress t/m1/p10?ad=00%3A00%3A00.400", "firstQuartile t/m1/q1", "midpoint t/m1/q2?ad=00%3A00%3A02.000", "thirdQuartile t/m1/q3",
            "complete t/m1/complete", "breakEnd b/mid/end",
        ])
    }

    @Test func aSkippedAdReportsSkipAndNothingItDidNotPlay() throws {
        var session = try PlaybackSession(schedule: schedule)
        var planner = BeaconPlanner(tracking: tracking, schedule: schedule)
        var due = planner.beacons(for: session.start().events, macros: macros).map(Self.line)
        due += play(&session, &planner, for: 3)
        due += planner.beacons(for: try session.skipAd().events, macros: macros).map(Self.line)
        #expect(due == ["impression i/p1", due[1], "firstQuartile t/p1/q1", "skip t/p1/skip"])
    }

    @Test func pauseAndResumeInAnAdOnly() throws {
        var session = try PlaybackSession(schedule: schedule)
        var planner = BeaconPlanner(tracking: tracking, schedule: schedule)
        _ = planner.beacons(for: session.start().events, macros: macros)
        var due = play(&session, &planner, for: 1)
        due += planner.beacons(for: session.pause().events + session.resume().events, macros: macros).map(Self.line)
        due += play(&session, &planner, for: 8)  // into the content
        due += planner.beacons(for: session.pause().events + session.resume().events, macros: macros).map(Self.line)
        #expect(due.filter { $0.hasPrefix("pause") || $0.hasPrefix("resume") } == ["pause t/p1/pause", "resume t/p1/resume"])
    }

    @Test func aBreakPlayedOnceIsTrackedOnceAndAStickyOneEachTime() throws {
        var session = try PlaybackSession(schedule: schedule)
        var planner = BeaconPlanner(tracking: tracking, schedule: schedule)
        _ = planner.beacons(for: session.start().events, macros: macros)
        var due = play(&session, &planner, for: 20)
        // Back to the start: the sticky pre-roll plays again; the once mid-roll has left the timeline.
        due = planner.beacons(for: try session.seek(toCompositionTime: .zero).events, macros: macros).map(Self.line)
        due += play(&session, &planner, for: 30)
        #expect(due.filter { $0.hasPrefix("impression") } == ["impression i/p1"])
        #expect(!due.contains { $0.contains("m1") || $0.contains("b/mid") })
    }

    @Test func errorsOwedWithTheirCode() {
        let planner = BeaconPlanner(tracking: tracking, schedule: schedule)
        let report = VASTErrorReport(error: VASTError(code: .noAdsAfterWrapper, reason: "empty"), urls: [Self.base + "e/w?c=[ERRORCODE]&x=[UNKNOWNMACRO]&t=[ADPLAYHEAD]"])
        #expect(planner.beacons(for: [report], macros: macros).map(Self.line) == ["error e/w?c=303&x=[UNKNOWNMACRO]&t=-1"])
    }

    @Test func macrosArePercentEncoded() {
        var macros = self.macros
        macros.assetURI = "http://127.0.0.1/a b?x=1&y=é"
        #expect(macros.expand("u=[ASSETURI]&ts=[TIMESTAMP]&cb=[CACHEBUSTING]&[") == "u=http%3A%2F%2F127.0.0.1%2Fa%20b%3Fx%3D1%26y%3D%C3%A9&ts=2026-11-27T10%3A00%3A00.000Z&cb=12345678&[")
        #expect(BeaconMacros.percentEncoded("AZaz09-._~") == "AZaz09-._~")
    }
}
