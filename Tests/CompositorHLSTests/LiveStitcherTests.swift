@testable import CompositorHLS
import CompositorCore
import CompositorTestSupport
import Foundation
import Testing

/// The stitched live playlist, reload by reload, then over thousands of reloads of simulated
/// origins, every reload held to RFC 8216bis (`LiveReloadCheck`) and to the stitching rules.
///
///     content   seq 100 | 100 | 101 | 102 | 103 | 104 |   2 s segments, CUE-OUT:DURATION=6 on 101
///     ads               [a0 1.5][a1 1.5][b0  2 ]         a 3 s ad, then a 2 s one: they end at 5
///     stitched  seq 100 | 100 |/a0|a1 |/b0  |/103 | 104 |  each ad out once the content passes its
///                                                        start; content back at 103 (the stream 1 s
///                                                        late) rather than 104 (1 s early)
@Suite struct LiveStitcherTests {
    static let epoch = MediaTime(seconds: 1_790_000_000)
    static let outputURL = "http://127.0.0.1/out/stitched.m3u8"

    static func ad(_ name: String, _ milliseconds: [Int64]) -> LiveAd {
        let segments = milliseconds.enumerated().map { index, ms in
            HLSMediaSegment(duration: MediaTime(value: ms, timescale: 1000), uri: "ads/\(name)-\(index).ts",
                            resolvedURI: "http://127.0.0.1/out/ads/\(name)-\(index).ts")
        }
        return LiveAd(id: name, playlist: HLSMediaPlaylist(url: "http://127.0.0.1/out/ads/\(name).m3u8", targetDuration: 2,
                                                          playlistType: .vod, hasEndList: true, segments: segments))
    }

    /// A live origin: segment `n` lasts `durations[n]` ms; the window holds `window` segments.
    struct Origin {
        var durations: [Int64]
        var discontinuities: Set<UInt64> = []
        var cueOuts: [UInt64: MediaTime?] = [:]
        var cueIns: Set<UInt64> = []
        var continuations: [UInt64: (elapsed: MediaTime, duration: MediaTime)] = [:]
        var window: Int
        var target: Int64 = 2
        var endsAfter: UInt64?

        /// The playlist once segments up to `last` are published.
        func load(through last: UInt64) -> HLSMediaPlaylist {
            var first = last + 1 >= UInt64(window) ? last + 1 - UInt64(window) : 0
            // As RFC 8216bis 6.2.2 has a server do: never shorter than three target durations.
            while first > 0, (first...last).reduce(Int64(0), { $0 + durations[Int($1)] }) < 3000 * target { first -= 1 }
            var start = epoch
            for n in 0..<first { start += MediaTime(value: durations[Int(n)], timescale: 1000) }
            var segments: [HLSMediaSegment] = []
            for n in first...last {
                let duration = MediaTime(value: durations[Int(n)], timescale: 1000)
                segments.append(HLSMediaSegment(
                    duration: duration, uri: "seg\(n).ts", resolvedURI: "http://127.0.0.1/origin/seg\(n).ts",
                    isDiscontinuity: discontinuities.contains(n), programDateTime: HLSDateTime(secondsSinceEpoch: start),
                    cueOut: cueOuts[n].map { HLSCueTag(value: $0.map { "DURATION=\($0.hlsDecimalString)" }) },
                    cueOutContinuation: continuations[n].map {
                        HLSCueTag(value: "ElapsedTime=\($0.elapsed.hlsDecimalString),Duration=\($0.duration.hlsDecimalString)")
                    },
                    cueIn: cueIns.contains(n) ? HLSCueTag(value: nil) : nil))
                start += duration
            }
            return HLSMediaPlaylist(
                url: "http://127.0.0.1/origin/live.m3u8", version: 3, targetDuration: target, mediaSequence: first,
                discontinuitySequence: UInt64(discontinuities.filter { $0 < first }.count),
                hasEndList: endsAfter == last, segments: segments)
        }
    }

    /// One stitching process: its decisions, and what it stitched last.
    struct Stitcher {
        var decisions = LiveDecisions()
        var pods: (UInt64) -> [LiveAd]

        mutating func stitch(_ load: HLSMediaPlaylist) throws -> HLSMediaPlaylist {
            let requests = load.liveMarkedBreaks.map { marked in
                LiveBreakRequest(id: "ssai-\(marked.sequence)", startSequence: marked.sequence, duration: marked.duration,
                                 ads: pods(marked.sequence), elapsed: marked.elapsed)
            }
            decisions = try decisions.advanced(by: load, requests: requests)
            return try LiveStitcher.playlist(content: load, decisions: decisions, url: LiveStitcherTests.outputURL)
        }
    }

    static let spots = [ad("a", [1500, 1500]), ad("b", [2000])]

    @Test func theTimelineAbove() throws {
        var origin = Origin(durations: Array(repeating: 2000, count: 120), window: 4)
        origin.cueOuts[101] = MediaTime(seconds: 6)
        origin.cueIns = [104]
        var stitcher = Stitcher(pods: { _ in Self.spots })
        func uris(_ playlist: HLSMediaPlaylist) -> [String] { playlist.segments.map { ($0.isDiscontinuity ? "/" : "") + $0.uri } }

        // 101 is replaced; the content passes the starts of a0 (0) and a1 (1.5 s) in it: both go out.
        var stitched = try stitcher.stitch(origin.load(through: 101))
        #expect(uris(stitched) == ["../origin/seg98.ts", "../origin/seg99.ts", "../origin/seg100.ts", "/ads/a-0.ts", "ads/a-1.ts"])
        #expect(stitched.mediaSequence == 98)
        // 102 passes 3 s, where b0 starts.
        stitched = try stitcher.stitch(origin.load(through: 102))
        #expect(uris(stitched).suffix(3) == ["/ads/a-0.ts", "ads/a-1.ts", "/ads/b-0.ts"])
        // Content back at 103 (1 s late) or 104 (1 s early): a tie goes to late. b0 comes first.
        stitched = try stitcher.stitch(origin.load(through: 103))
        #expect(uris(stitched) == ["../origin/seg100.ts", "/ads/a-0.ts", "ads/a-1.ts", "/ads/b-0.ts", "/../origin/seg103.ts"])
        #expect(stitched.mediaSequence == 100 && stitched.discontinuitySequence == 0)
        // Dates run on without a jump: 103 is on the stitched clock, a second after the content's.
        let dates = stitched.segments.map { $0.programDateTime!.secondsSinceEpoch - Self.epoch }
        #expect(dates == [2000, 2020, 2035, 2050, 2070].map { MediaTime(value: $0, timescale: 10) })
        // The break's date range, with its length once over.
        let range = try #require(stitched.segments[1].dateRanges.first)
        #expect(range.id == "ssai-101" && range.className == LiveStitcher.breakClass)
        #expect(range.duration == MediaTime(seconds: 5) && range.plannedDuration == MediaTime(seconds: 6))

        // Sliding on: 101 and 102 leave, and with them the three ads and two tags.
        stitched = try stitcher.stitch(origin.load(through: 106))
        #expect(uris(stitched) == ["/../origin/seg103.ts", "../origin/seg104.ts", "../origin/seg105.ts", "../origin/seg106.ts"])
        #expect(stitched.mediaSequence == 104 && stitched.discontinuitySequence == 2)
        // Then the break is gone: three ad segments for two content ones, three tags.
        stitched = try stitcher.stitch(origin.load(through: 110))
        #expect(uris(stitched) == ["../origin/seg107.ts", "../origin/seg108.ts", "../origin/seg109.ts", "../origin/seg110.ts"])
        #expect(stitched.mediaSequence == 108 && stitched.discontinuitySequence == 3)
        #expect(stitched.segments.allSatisfy { $0.dateRanges.isEmpty })
        #expect(stitched.segments[0].programDateTime!.secondsSinceEpoch - Self.epoch == MediaTime(seconds: 215))
    }

    @Test func aBreakWithoutADurationEndsAtTheCueInOrWhenTheAdsAreSpent() throws {
        // Open until CUE-IN at 103 (4 s): content is back at 103. The ads end at their last
        // segment inside the span (a1, at 3: 1 s early) or at the one crossing it (b0, at 5: 1 s
        // late), whichever keeps the stream nearer the content's clock; a tie goes to late.
        var origin = Origin(durations: Array(repeating: 2000, count: 120), window: 6)
        origin.cueOuts[101] = .some(nil)
        origin.cueIns = [103]
        var stitcher = Stitcher(pods: { _ in Self.spots })
        let tie = try stitcher.stitch(origin.load(through: 104))
        #expect(tie.segments.map(\.uri).suffix(5) == ["ads/a-0.ts", "ads/a-1.ts", "ads/b-0.ts", "../origin/seg103.ts", "../origin/seg104.ts"])
        #expect(tie.segments.map(\.isDiscontinuity).suffix(5) == [true, false, true, true, false])
        #expect(stitcher.decisions.breaks.first?.debtAfter == MediaTime(seconds: 1))
        // x ends its second segment at 3.8 s (0.2 s early) and its third at 5.8 (1.8 s late): early.
        stitcher = Stitcher(pods: { _ in [Self.ad("x", [1900, 1900, 2000])] })
        let early = try stitcher.stitch(origin.load(through: 104))
        #expect(early.segments.map(\.uri).suffix(4) == ["ads/x-0.ts", "ads/x-1.ts", "../origin/seg103.ts", "../origin/seg104.ts"])
        #expect(stitcher.decisions.breaks.first?.debtAfter == MediaTime(value: -1, timescale: 5))

        // No CUE-IN before the ads are spent: content is back at the first boundary after 5 s.
        origin.cueIns = [110]
        stitcher = Stitcher(pods: { _ in Self.spots })
        let spent = try stitcher.stitch(origin.load(through: 105))
        #expect(spent.segments.map(\.uri).suffix(6) == ["ads/a-0.ts", "ads/a-1.ts", "ads/b-0.ts", "../origin/seg103.ts", "../origin/seg104.ts", "../origin/seg105.ts"])
    }

    /// A window that starts inside the content a break replaced keeps every ad segment the break
    /// published. Without x0, the 6 s window 102-104 (three 2 s targets, as short as RFC 8216bis
    /// 6.2.2 allows) would be x1 and 104 alone: 5 s.
    ///
    ///     content  | 101 | 102 | 103 | 104 | 105 | 106 |    CUE-OUT:DURATION=6 on 101, a 3-segment window
    ///     stitched |/x0 (3 s) | x1 (3 s)|/104 | 105 | 106 |
    ///     window 102-104: x0 x1 104 | 103-105: x0 x1 104 105 | 104-106: 104 105 106
    @Test func aWindowStartingInsideABreakKeepsItsAds() throws {
        var origin = Origin(durations: Array(repeating: 2000, count: 120), window: 3)
        origin.cueOuts[101] = MediaTime(seconds: 6)
        origin.cueIns = [104]
        var stitcher = Stitcher(pods: { _ in [Self.ad("x", [3000, 3000])] })
        func uris(_ playlist: HLSMediaPlaylist) -> [String] { playlist.segments.map { ($0.isDiscontinuity ? "/" : "") + $0.uri } }
        var previous = try stitcher.stitch(origin.load(through: 103))
        #expect(uris(previous) == ["/ads/x-0.ts", "ads/x-1.ts"])
        var windows: [HLSMediaPlaylist] = []
        for through: UInt64 in 104...106 {
            let stitched = try stitcher.stitch(origin.load(through: through))
            #expect(LiveReloadCheck.violations(from: previous, to: stitched) == [], "through \(through)")
            windows.append(stitched)
            previous = stitched
        }
        let content = { (n: Int) in "../origin/seg\(n).ts" }
        #expect(uris(windows[0]) == ["/ads/x-0.ts", "ads/x-1.ts", "/" + content(104)])
        #expect(uris(windows[1]) == ["/ads/x-0.ts", "ads/x-1.ts", "/" + content(104), content(105)])
        #expect(windows[1].mediaSequence == 101 && windows[1].discontinuitySequence == 0)
        // Once the window passes the break, its two ad segments and its tag leave together.
        #expect(uris(windows[2]) == ["/" + content(104), content(105), content(106)])
        #expect(windows[2].mediaSequence == 103 && windows[2].discontinuitySequence == 1)
    }

    @Test func aStitcherThatMissesSegmentsSaysSoInsteadOfGuessing() throws {
        let origin = Origin(durations: Array(repeating: 2000, count: 120), window: 4)
        var stitcher = Stitcher(pods: { _ in [] })
        _ = try stitcher.stitch(origin.load(through: 10))
        #expect(throws: LiveStitchError.missedSegments(url: "http://127.0.0.1/origin/live.m3u8", lastSeen: 10, firstNow: 12)) {
            _ = try stitcher.stitch(origin.load(through: 15))
        }
        #expect(throws: LiveStitchError.self) {
            _ = try LiveStitcher.playlist(content: origin.load(through: 11), decisions: LiveDecisions(), url: Self.outputURL)
        }
    }

    /// Simulated origins (windows of 3 to 100 segments, segments of 1 to 2 s, discontinuities,
    /// breaks of every kind: with a duration that ends on a boundary or inside a segment, without
    /// one, pods that fall short or run long, back-to-back), each stitched by a process reloading
    /// after every segment, one reloading after every few, and one started late (joining breaks under
    /// way). Every reload of each passes `LiveReloadCheck`; dates run on within 1 ms; the stitched
    /// stream is the content with each break's ads in place of what they replace, and never more
    /// than two target durations from the content's clock; and processes that loaded the same
    /// playlist wrote the same bytes. An audio rendition stitched beside agrees with the variant.
    ///
    /// `COMPOSITOR_LIVE_SEED=N swift test --filter LiveStitcherTests` runs other origins (5505 by
    /// default); the test prints how far the stream ran from the content's clock.
    @Test func thousandsOfReloadsKeepEveryRule() throws {
        let seed = ProcessInfo.processInfo.environment["COMPOSITOR_LIVE_SEED"].flatMap { UInt64($0) } ?? 5_505
        var random = SeededGenerator(seed: seed)
        let library = [Self.ad("a", [1500, 1500]), Self.ad("b", [2000]), Self.ad("c", [1000, 1000, 1000, 700]),
                       Self.ad("d", [2000, 2000, 2000, 2000]), Self.ad("e", [400])]
        var reloads = 0, breaks = 0, joined = 0
        var maximumDrift = 0.0
        for scenario in 0..<20 {
            let count = 220
            var origin = Origin(durations: (0..<count).map { _ in Int64(1000 + random.next() % 1001) },
                                window: Int(3 + random.next() % 98))
            origin.endsAfter = UInt64(count - 1)
            for n in 0..<UInt64(count) where random.next() % 23 == 0 { origin.discontinuities.insert(n) }
            var n = UInt64(2 + random.next() % 10)
            while n < UInt64(count - 20) {
                let length = Int(1 + random.next() % 10)
                let span = (0..<length).reduce(MediaTime.zero) { $0 + MediaTime(value: origin.durations[Int(n) + $1], timescale: 1000) }
                switch random.next() % 4 {
                case 0: origin.cueOuts[n] = span
                case 1: origin.cueOuts[n] = span - MediaTime(value: Int64(random.next() % 900), timescale: 1000)
                case 2: origin.cueOuts[n] = .some(nil)
                default: origin.cueOuts[n] = span + MediaTime(seconds: 3)
                }
                for k in 1..<length { origin.continuations[n + UInt64(k)] = (
                    (0..<k).reduce(MediaTime.zero) { $0 + MediaTime(value: origin.durations[Int(n) + $1], timescale: 1000) }, span) }
                origin.cueIns.insert(n + UInt64(length))
                n += UInt64(length) + (random.next() % 4 == 0 ? 0 : UInt64(1 + random.next() % 15))
            }
            let seed = random.next()
            let pods: (UInt64) -> [LiveAd] = { start in
                var pick = SeededGenerator(seed: seed ^ start)
                return (0..<Int(1 + pick.next() % 3)).map { _ in library[Int(pick.next() % UInt64(library.count))] }
            }
            let origins = origin
            // Its own generator, so the scenarios stay those the seed always made.
            var lag = SeededGenerator(seed: 55 ^ UInt64(scenario))
            var every = Stitcher(pods: pods), sometimes = Stitcher(pods: pods), late = Stitcher(pods: pods)
            let lateStart = UInt64(origin.window) + random.next() % 100
            var last: (every: HLSMediaPlaylist?, sometimes: HLSMediaPlaylist?, late: HLSMediaPlaylist?, audio: HLSMediaPlaylist?) = (nil, nil, nil, nil)
            var stream: [UInt64: HLSMediaSegment] = [:]
            var nextSometimes = UInt64(0)
            for through in 0..<UInt64(count) {
                let load = origins.load(through: through)
                let stitched = try every.stitch(load)
                try Self.expectGood(stitched, after: last.every, target: origin.target, "scenario \(scenario), reload \(through)")
                for (offset, segment) in stitched.segments.enumerated() { stream[stitched.mediaSequence! + UInt64(offset)] = segment }
                last.every = stitched
                reloads += 1
                // An audio rendition, loaded a moment before (a segment behind, now and then: its
                // window may still hold a segment the variant's left), stitched from the same
                // decisions: it agrees with the variant wherever both list a segment.
                var audio = origins.load(through: through - (through > 0 && lag.next() % 3 == 0 ? 1 : 0))
                for index in audio.segments.indices {
                    audio.segments[index].resolvedURI = audio.segments[index].resolvedURI.replacingOccurrences(of: "/origin/", with: "/origin/audio/")
                }
                let stitchedAudio = try LiveStitcher.playlist(content: audio, decisions: every.decisions, url: Self.outputURL)
                try Self.expectGood(stitchedAudio, after: last.audio, target: origin.target, "scenario \(scenario), audio \(through)")
                let (video, heard) = (Self.numbered(stitched), Self.numbered(stitchedAudio))
                let differing = heard.filter { entry in video[entry.key].map { $0 != entry.value } ?? false }
                #expect(differing.isEmpty, "scenario \(scenario), reload \(through): the rendition disagrees at \(differing.keys.sorted())")
                last.audio = stitchedAudio
                if through == nextSometimes {
                    let other = try sometimes.stitch(load)
                    #expect(other.text == stitched.text, "scenario \(scenario), reload \(through): two processes disagree")
                    try Self.expectGood(other, after: last.sometimes, target: origin.target, "scenario \(scenario), sometimes \(through)")
                    last.sometimes = other
                    nextSometimes += 1 + random.next() % UInt64(max(1, min(4, origin.window - 2)))
                }
                if through >= lateStart {
                    let joining = try late.stitch(load)
                    try Self.expectGood(joining, after: last.late, target: origin.target, "scenario \(scenario), late \(through)")
                    if last.late == nil, joining.segments.first.map({ $0.uri.hasPrefix("ads/") }) == true { joined += 1 }
                    last.late = joining
                }
            }
            #expect(last.every?.hasEndList == true)
            // Half a target duration after a break that could choose; more after one whose content
            // came back early (EXT-X-CUE-IN before the ads' end), which the next breaks work off.
            let drift = every.decisions.breaks.map { abs($0.debtAfter.seconds) }.max() ?? 0
            #expect(drift <= 2 * Double(origin.target), "scenario \(scenario): the stream ran \(drift) s from the content's clock")
            maximumDrift = max(maximumDrift, drift)
            breaks += every.decisions.breaks.count
            Self.expectContentAndAdsInPlace(stream, decisions: every.decisions, origin: origins, "scenario \(scenario)")
        }
        let summary = "\(reloads) reloads, \(breaks) breaks, \(joined) joined under way, at most \(maximumDrift) s from the content's clock"
        #expect(reloads >= 4000 && breaks > 150 && joined > 0, "\(summary)")
        print("LiveStitcherTests, seed \(seed): \(summary)")
    }

    /// Each segment by media sequence number: its discontinuity number, date, and whether it is an
    /// ad (RFC 8216bis 6.2.2: what a variant and its renditions must agree on).
    static func numbered(_ playlist: HLSMediaPlaylist) -> [UInt64: String] {
        var number = playlist.discontinuitySequence ?? 0
        var found: [UInt64: String] = [:]
        for (offset, segment) in playlist.segments.enumerated() {
            if segment.isDiscontinuity { number += 1 }
            found[(playlist.mediaSequence ?? 0) + UInt64(offset)] = "d\(number) \(segment.programDateTime.map(\.description) ?? "-") \(segment.uri.hasPrefix("ads/") ? "ad" : "content")"
        }
        return found
    }

    /// The reload rules, and dates that run on within 1 ms everywhere, breaks included.
    static func expectGood(_ stitched: HLSMediaPlaylist, after previous: HLSMediaPlaylist?, target: Int64, _ context: String) throws {
        if let previous { #expect(LiveReloadCheck.violations(from: previous, to: stitched) == [], "\(context)") }
        #expect(stitched.targetDuration == target)
        if (stitched.mediaSequence ?? 0) % 16 == 0 {
            let text = stitched.text
            #expect(try HLSMediaPlaylist(parsing: Array(text.utf8), url: outputURL).text == text, "\(context): the text reads back")
        }
        // One expectation for all of them: an #expect per segment would cost more than the stitching.
        let jumps = zip(stitched.segments, stitched.segments.dropFirst()).compactMap { previous, segment -> String? in
            let jump = segment.programDateTime!.secondsSinceEpoch - (previous.programDateTime!.secondsSinceEpoch + previous.duration)
            return abs(jump.seconds) <= 0.001 ? nil : "\(jump) s at \(segment.uri)"
        }
        #expect(jumps == [], "\(context): the dates jump")
    }

    /// The whole stitched stream, by media sequence: the content's segments in order, but for the
    /// ones each break replaced, which its ad segments stand in for, in pod order.
    static func expectContentAndAdsInPlace(_ stream: [UInt64: HLSMediaSegment], decisions: LiveDecisions, origin: Origin, _ context: String) {
        let ordered = stream.keys.sorted()
        #expect(ordered.last! - ordered.first! + 1 == UInt64(ordered.count), "\(context): the stream has holes")
        var expected: [String] = []
        var replaced: [UInt64: LiveBreak] = [:]
        for item in decisions.breaks {
            for k in 0..<item.replaced.count { replaced[item.startSequence + UInt64(k)] = item }
        }
        var n: UInt64 = 0
        while n < UInt64(origin.durations.count) {
            if let item = replaced[n], item.startSequence == n {
                expected += item.adSegments[..<item.publishedCount].map(\.uri)
                n += UInt64(item.replaced.count)
                continue
            }
            expected.append("../origin/seg\(n).ts")
            n += 1
        }
        #expect(ordered.map { stream[$0]!.uri } == expected, "\(context)")
    }
}
