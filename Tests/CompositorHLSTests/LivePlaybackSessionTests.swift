@testable import CompositorHLS
import CompositorCore
import CompositorTestSupport
import Testing

/// The session on a live stream: every reload of a stitched playlist (the simulated origin of
/// `LiveStitcherTests`) read into a `LiveTimeline`, a player advancing its program date-time in
/// half-second ticks.
///
///     content   | 100 | 101 | 102 | 103 | ... | 111 | 112 | ...   2 s segments
///     breaks          ssai-101: a 3 s, b 2 s        ssai-111: a, b
///     player     joins 3 segments behind the live edge, plays on at 1x
@Suite struct LivePlaybackSessionTests {
    typealias Origin = LiveStitcherTests.Origin

    static func origin() -> Origin {
        var origin = Origin(durations: Array(repeating: 2000, count: 160), window: 6)
        origin.cueOuts = [101: MediaTime(seconds: 6), 111: MediaTime(seconds: 6)]
        origin.cueIns = [104, 114]
        return origin
    }

    /// The stitched playlists, one per published segment from `first` to `last`.
    static func reloads(_ origin: Origin, from first: UInt64, through last: UInt64,
                        inserting: [UInt64: LiveBreakRequest] = [:]) throws -> [HLSMediaPlaylist] {
        var stitcher = LiveStitcherTests.Stitcher(pods: { _ in LiveStitcherTests.spots })
        var loads: [HLSMediaPlaylist] = []
        for through in first...last {
            let load = origin.load(through: through)
            if let request = inserting[through] {
                let marked = load.liveMarkedBreaks.map { LiveBreakRequest(id: "ssai-\($0.sequence)", startSequence: $0.sequence, duration: $0.duration, ads: LiveStitcherTests.spots) }
                stitcher.decisions = try stitcher.decisions.advanced(by: load, requests: marked + [request])
                loads.append(try LiveStitcher.playlist(content: load, decisions: stitcher.decisions, url: LiveStitcherTests.outputURL))
            } else {
                loads.append(try stitcher.stitch(load))
            }
        }
        return loads
    }

    /// Plays `loads` in real time: one reload every 2 s, a tick every 0.5 s, from 3 segments
    /// behind the first load's live edge. Returns the events' names with the IDs they carry.
    static func play(_ loads: [HLSMediaPlaylist], session: inout LivePlaybackSession?, seekBars: inout [LiveSeekBar],
                     adStarts: inout [String: MediaTime]) throws -> [String] {
        var names: [String] = []
        func note(_ reaction: LivePlaybackSession.Reaction) {
            for event in reaction.events {
                switch event.kind {
                case .breakStarted(let id, _): names.append("breakStarted \(id)")
                case .adStarted(let ad):
                    names.append("adStarted \(ad.adID)")
                    adStarts[ad.adID] = session!.epoch + event.compositionTime
                case .adEnded(let ad, _): names.append("adEnded \(ad.adID)")
                case .breakEnded(let id, _): names.append("breakEnded \(id)")
                case .contentResumed: names.append("contentResumed")
                default: break
                }
            }
        }
        var date: MediaTime?
        for load in loads {
            let timeline = try #require(LiveTimeline(stitched: load))
            if session == nil {
                session = try LivePlaybackSession(timeline: timeline)
            } else {
                note(try session!.update(timeline: timeline))
            }
            date = date ?? timeline.liveEdge - MediaTime(seconds: 6)
            for _ in 0..<4 {
                note(session!.update(date: date!))
                date = date! + MediaTime(value: 1, timescale: 2)
            }
            seekBars.append(session!.seekBar)
        }
        return names
    }

    @Test func breaksAndAdsReportedOnTheStreamsClock() throws {
        let loads = try Self.reloads(Self.origin(), from: 99, through: 120)
        var session: LivePlaybackSession?
        var bars: [LiveSeekBar] = []
        var adStarts: [String: MediaTime] = [:]
        let events = try Self.play(loads, session: &session, seekBars: &bars, adStarts: &adStarts)
        #expect(events == [
            "breakStarted ssai-101", "adStarted ssai-101/a", "adEnded ssai-101/a", "adStarted ssai-101/b", "adEnded ssai-101/b",
            "breakEnded ssai-101", "contentResumed",
            "breakStarted ssai-111", "adStarted ssai-111/a", "adEnded ssai-111/a", "adStarted ssai-111/b", "adEnded ssai-111/b",
            "breakEnded ssai-111", "contentResumed",
        ])
        // Each ad started at the program date-time its first segment has in the stitched playlist.
        let segmentDates = Dictionary(loads.flatMap { $0.segments.map { ($0.uri, $0.programDateTime!.secondsSinceEpoch) } }, uniquingKeysWith: { first, _ in first })
        #expect(adStarts["ssai-101/a"] == segmentDates["ads/a-0.ts"])
        #expect(adStarts["ssai-101/b"] == adStarts["ssai-101/a"]! + MediaTime(seconds: 3))
        // The seek bar: the window and the live edge of each load; the playhead 6 s behind live at
        // first, and the breaks in the window.
        for (bar, load) in zip(bars, loads) {
            let timeline = try #require(LiveTimeline(stitched: load))
            #expect(bar.windowStart == timeline.windowStart && bar.liveEdge == timeline.liveEdge)
        }
        // While the break goes on, the bar shows its ads so far (3 s once a0 and a1 are out); then all 5 s.
        let with101 = bars.compactMap { $0.breaks.first { $0.breakID == "ssai-101" } }
        #expect(with101.first.map { $0.end - $0.start } == MediaTime(seconds: 3))
        #expect(with101.last.map { $0.end - $0.start } == MediaTime(seconds: 5) && with101.last?.played == true)
        // Content time is the content's clock from the epoch: the break replaced 4 s, played 5.
        let live = try #require(session)
        #expect(live.session.schedule.adBreak(id: "ssai-101")?.resumeOffset == MediaTime(seconds: 4))
    }

    @Test func aSeekAcrossAnUnplayedBreakPlaysItFirstWithinTheWindow() throws {
        // A long window: the break ssai-111 is in it, behind the live edge.
        var origin = Self.origin()
        origin.window = 20
        let loads = try Self.reloads(origin, from: 118, through: 118)
        let timeline = try #require(LiveTimeline(stitched: loads[0]))
        var live = try LivePlaybackSession(timeline: timeline)
        // Join at the window's start, before both breaks, then seek to live.
        _ = live.update(date: timeline.windowStart)
        let reaction = try live.seekToLiveEdge()
        let ssai111 = try #require(timeline.breaks.first { $0.id == "ssai-111" })
        #expect(reaction.commands == [.seek(toDate: ssai111.start)])
        #expect(reaction.events.contains { if case .breakStarted("ssai-111", _) = $0.kind { true } else { false } })
        // A seek before the window lands on its start.
        let back = try live.seek(toDate: timeline.windowStart - MediaTime(seconds: 100))
        #expect(back.commands == [.seek(toDate: timeline.windowStart)])
    }

    @Test func breakingNewsInsertedByTheStitcherIsReportedWhenPlayed() throws {
        let news = LiveBreakRequest(id: "news-106", startSequence: 106, duration: MediaTime(seconds: 2), ads: [LiveStitcherTests.ad("bulletin", [2000])],
                                    waitsForOpenBreak: true)
        let loads = try Self.reloads(Self.origin(), from: 99, through: 110, inserting: [106: news])
        var session: LivePlaybackSession?
        var bars: [LiveSeekBar] = []
        var adStarts: [String: MediaTime] = [:]
        let events = try Self.play(loads, session: &session, seekBars: &bars, adStarts: &adStarts)
        #expect(events.contains("breakStarted news-106") && events.contains("adStarted news-106/bulletin"))
        #expect(events.firstIndex(of: "breakEnded ssai-101")! < events.firstIndex(of: "breakStarted news-106")!)
    }
}
