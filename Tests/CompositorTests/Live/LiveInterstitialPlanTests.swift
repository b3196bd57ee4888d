@testable import Compositor
import CompositorCore
@testable import CompositorHLS
import CompositorTestSupport
import Foundation
import Testing

/// The client-side form: a live schedule's breaks as interstitial events by date, decided from
/// the content's loads.
///
///     content   2 s segments from T, a window of 6
///     segment   ... 7 | 8  9  10 | 11 ... 13 | 14 15 16 | 17 ...
///     markers         CUE-OUT:DURATION=6     CUE-OUT     CUE-IN on 17
///     events    nine at T+40 (from the start); ssai-8 at T+16, stopped at 6 s; ssai-14 at T+28,
///               its 6 s known at 17's CUE-IN; news-1 when the app inserts it
@Suite("Live: breaks as interstitial events by date, for the app's player")
struct LiveInterstitialPlanTests {
    static let epoch: Int64 = 1_795_000_000

    static func date(_ segment: Int) -> MediaTime { MediaTime(seconds: epoch + 2 * Int64(segment)) }

    /// The content's playlist with segments up to `last`; `markers` by segment, `undated` without dates.
    static func content(through last: Int, markers: [Int: String] = [8: "#EXT-X-CUE-OUT:DURATION=6", 14: "#EXT-X-CUE-OUT", 17: "#EXT-X-CUE-IN"],
                        undated: Bool = false) -> [UInt8] {
        let first = max(0, last - 5)
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for n in first...last {
            if let marker = markers[n] { text += marker + "\n" }
            if !undated { text += "#EXT-X-PROGRAM-DATE-TIME:\(HLSDateTime(secondsSinceEpoch: date(n)))\n" }
            text += "#EXTINF:2.0,\nseg\(n).ts\n"
        }
        return Array(text.utf8)
    }

    static func schedule() throws -> LiveSchedule {
        let ads = #"[ { "url": "http://127.0.0.1/ads/a.m3u8" }, { "url": "http://127.0.0.1/ads/b.mp4" } ]"#
        let text = """
            { "content": [ { "id": "channel", "url": "http://127.0.0.1/live.m3u8" } ],
              "breaks": [ { "id": "ssai", "at": "markers", "ads": \(ads) },
                          { "id": "nine", "at": "\(HLSDateTime(secondsSinceEpoch: date(20)))", "ads": [ { "url": "http://127.0.0.1/ads/a.m3u8" } ] },
                          { "id": "news", "at": "on-demand", "ads": [ { "url": "http://127.0.0.1/news.m3u8" } ] } ] }
            """
        return try ScheduleDocument.decodeLive(Array(text.utf8), baseFolder: nil)
    }

    static let pod = [MediaLocation(remoteURL: "http://127.0.0.1/ads/a.m3u8"), MediaLocation(remoteURL: "http://127.0.0.1/ads/b.mp4")]

    @Test func eventsAsTheContentMarksThem() throws {
        var plan = LiveInterstitialPlan(schedule: try Self.schedule())
        // Dated breaks are known from the start.
        #expect(plan.events.map(\.id) == ["nine"] && plan.events[0].date == Self.date(20))
        var changes: [Int] = []
        for last in 5...22 where try plan.advance(byPlaylist: Self.content(through: last), url: "http://127.0.0.1/live.m3u8") {
            changes.append(last)
        }
        // The load that published 8, 14 (opening an open span) and 17 (closing it) changed the plan.
        #expect(changes == [8, 14, 17])
        typealias Event = LiveInterstitialPlan.Event
        #expect(plan.events == [
            Event(id: "ssai-8", date: Self.date(8), ads: Self.pod, playoutLimit: MediaTime(seconds: 6), resumption: .afterPlayedTime),
            Event(id: "ssai-14", date: Self.date(14), ads: Self.pod, playoutLimit: MediaTime(seconds: 6), resumption: .afterPlayedTime),
            Event(id: "nine", date: Self.date(20), ads: [Self.pod[0]], playoutLimit: nil, resumption: .afterPlayedTime),
        ])
        // A load seen again, or an older one, changes nothing.
        #expect(try !plan.advance(byPlaylist: Self.content(through: 22), url: "http://127.0.0.1/live.m3u8"))
    }

    @Test func breakingNewsWhereTheAppSaysAndBackWhereTheViewerLeft() throws {
        var plan = LiveInterstitialPlan(schedule: try Self.schedule())
        let now = Self.date(11) + MediaTime(value: 1, timescale: 2)
        let news = try plan.insertNow("news", at: now, resumption: .whereLeft)
        #expect(news == LiveInterstitialPlan.Event(id: "news-1", date: now, ads: [MediaLocation(remoteURL: "http://127.0.0.1/news.m3u8")],
                                                  playoutLimit: nil, resumption: .whereLeft))
        let other = plan.insertNow("bulletin", ads: [MediaLocation(remoteURL: "http://127.0.0.1/other.m3u8")], at: now + MediaTime(seconds: 60), resumption: .afterPlayedTime)
        #expect(other.id == "bulletin-2" && plan.events.map(\.id) == ["news-1", "nine", "bulletin-2"])
        #expect(throws: ScheduleError.unknownID("nine")) { try plan.insertNow("nine", at: now, resumption: .whereLeft) }
    }

    @Test func aBreakUnderWayAtTheFirstLoadStartsWhereItBegan() throws {
        var plan = LiveInterstitialPlan(schedule: try Self.schedule())
        try plan.advance(byPlaylist: Self.content(through: 14, markers: [9: "#EXT-X-CUE-OUT-CONT:ElapsedTime=2,Duration=6"]), url: "http://127.0.0.1/live.m3u8")
        #expect(plan.events.first == LiveInterstitialPlan.Event(
            id: "ssai-9", date: Self.date(8), ads: Self.pod, playoutLimit: MediaTime(seconds: 6), resumption: .afterPlayedTime))
    }

    @Test func contentWithoutDatesIsATypedError() throws {
        var plan = LiveInterstitialPlan(schedule: try Self.schedule())
        #expect(throws: LiveTimelineError.self) {
            try plan.advance(byPlaylist: Self.content(through: 8, undated: true), url: "http://127.0.0.1/live.m3u8")
        }
    }
}
