@testable import CompositorHLS
import CompositorCore
import CompositorTestSupport
import Testing

/// The live reload rules (RFC 8216bis 6.2.1-6.2.2, as hls-monitor checks them), one reload at a time,
/// then over thousands of reloads of a simulated server.
///
///     load 1:  seq 10 [s10 s11 |s12 s13]          (| a discontinuity, DS 3)
///     load 2:  seq 11     [s11 |s12 s13 s14]      one removed, one appended: DS still 3
///     load 3:  seq 13             [s13 s14 s15]   s12's tag left: DS 4
@Suite struct LiveReloadCheckTests {
    /// A window of four-second segments `s<N>` from `first`, a discontinuity before each in `cuts`.
    static func window(_ first: UInt64, count: Int, cuts: Set<UInt64> = [12], discontinuitySequence: UInt64, target: Int64 = 4,
                       endList: Bool = false, rename: [UInt64: String] = [:], dateRanges: [UInt64: HLSDateRange] = [:]) -> HLSMediaPlaylist {
        let epoch = MediaTime(seconds: 1_790_000_000)
        let segments = (first..<first + UInt64(count)).map { n in
            HLSMediaSegment(duration: MediaTime(seconds: 4), uri: rename[n] ?? "s\(n).ts", isDiscontinuity: cuts.contains(n),
                            programDateTime: HLSDateTime(secondsSinceEpoch: epoch + MediaTime(seconds: 4 * Int64(n))),
                            dateRanges: dateRanges[n].map { [$0] } ?? [])
        }
        return HLSMediaPlaylist(url: "http://127.0.0.1/live.m3u8", targetDuration: target, mediaSequence: first,
                                discontinuitySequence: discontinuitySequence, hasEndList: endList, segments: segments)
    }

    func rules(_ previous: HLSMediaPlaylist, _ next: HLSMediaPlaylist) -> [LiveReloadCheck.Violation.Rule] {
        LiveReloadCheck.violations(from: previous, to: next).map(\.rule)
    }

    @Test func theTimelineAbove() {
        let load1 = Self.window(10, count: 4, discontinuitySequence: 3)
        let load2 = Self.window(11, count: 4, discontinuitySequence: 3)
        let load3 = Self.window(13, count: 3, discontinuitySequence: 4)
        #expect(rules(load1, load2) == [])
        #expect(rules(load2, load3) == [])
        #expect(rules(load1, load1) == [])
    }

    @Test(arguments: [
        ("the discontinuity sequence must count the tag that left", Self.window(13, count: 3, discontinuitySequence: 3), [.discontinuitySequenceMismatch]),
        ("nor count one that did not", Self.window(11, count: 4, discontinuitySequence: 4), [.discontinuitySequenceMismatch]),
        ("a published segment keeps its URI", Self.window(11, count: 4, discontinuitySequence: 3, rename: [12: "other.ts"]), [.segmentChanged]),
        ("and its discontinuity", Self.window(11, count: 4, cuts: [], discontinuitySequence: 3), [.segmentChanged]),
        ("the media sequence never decreases", Self.window(9, count: 4, discontinuitySequence: 3), [.mediaSequenceDecreased]),
        ("nor jumps past the window", Self.window(20, count: 4, discontinuitySequence: 4), [.windowSkippedSegments]),
        ("only the head is removed", Self.window(10, count: 2, discontinuitySequence: 3), [.segmentsRemovedFromTail]),
        ("the target duration stays", Self.window(11, count: 5, discontinuitySequence: 3, target: 6), [.targetDurationChanged]),
        ("a window of three target durations at least", Self.window(12, count: 2, discontinuitySequence: 3), [.windowTooShort]),
    ] as [(String, HLSMediaPlaylist, [LiveReloadCheck.Violation.Rule])])
    func aReloadThatBreaks(_ rule: String, next: HLSMediaPlaylist, expected: [LiveReloadCheck.Violation.Rule]) {
        #expect(rules(Self.window(10, count: 4, discontinuitySequence: 3), next) == expected, "\(rule)")
    }

    @Test func nothingChangesAfterTheEnd() {
        let ended = Self.window(10, count: 4, discontinuitySequence: 3, endList: true)
        #expect(rules(Self.window(10, count: 4, discontinuitySequence: 3), ended) == [])
        #expect(rules(ended, ended) == [])
        #expect(rules(ended, Self.window(11, count: 4, discontinuitySequence: 3, endList: true)) == [.changedAfterEndList])
    }

    @Test func dateRangesStayWhileTheirDatesAreInTheWindow() {
        let start = HLSDateTime(secondsSinceEpoch: MediaTime(seconds: 1_790_000_000 + 4 * 10))
        let long = HLSDateRange(id: "ad-1", startDate: start, duration: MediaTime(seconds: 12))   // to s13's start
        let short = HLSDateRange(id: "ad-1", startDate: start, duration: MediaTime(seconds: 2))
        let before = { (range: HLSDateRange) in Self.window(10, count: 4, discontinuitySequence: 3, dateRanges: [10: range]) }
        // s10 leaves with its tag: fine when the range ended before the new window, not when it reaches into it.
        #expect(rules(before(short), Self.window(11, count: 4, discontinuitySequence: 3)) == [])
        #expect(rules(before(long), Self.window(11, count: 4, discontinuitySequence: 3)) == [.dateRangeRemovedEarly])
        #expect(rules(before(long), Self.window(11, count: 4, discontinuitySequence: 3, dateRanges: [11: long])) == [])
        #expect(rules(before(long), Self.window(11, count: 4, discontinuitySequence: 3, dateRanges: [11: short])) == [.dateRangeChanged])
    }

    /// A correct server over thousands of reloads: windows of 3 to 100 segments, discontinuities
    /// anywhere, reloads that see 0 to a whole window of change. Every reload passes; and each kind of
    /// mistake a server makes is caught wherever it is made.
    @Test func thousandsOfReloadsOfACorrectServerPassAndEachMistakeIsCaught() {
        var random = SeededGenerator(seed: 55)
        var reloads = 0
        for _ in 0..<40 {
            let size = Int(3 + random.next() % 98)
            var cuts: Set<UInt64> = []
            for n in 0..<UInt64(4000) where random.next() % 7 == 0 { cuts.insert(n) }
            func load(_ first: UInt64) -> HLSMediaPlaylist {
                let ds = UInt64(cuts.filter { $0 < first }.count)
                return Self.window(first, count: size, cuts: cuts, discontinuitySequence: ds)
            }
            var first: UInt64 = 0
            var previous = load(0)
            while first < 3000 {
                first += random.next() % UInt64(size + 1)
                let next = load(first)
                #expect(rules(previous, next) == [], "window \(size), \(previous.mediaSequence ?? 0) -> \(first)")
                // The mistakes, each made on this reload.
                var staleDS = next
                staleDS.discontinuitySequence = previous.discontinuitySequence
                if staleDS != next { #expect(rules(previous, staleDS).contains(.discontinuitySequenceMismatch)) }
                if next.segments.count > 1, first < (previous.mediaSequence ?? 0) + UInt64(previous.segments.count) {
                    var renamed = next
                    renamed.segments[0].uri += "?v=2"
                    renamed.segments[0].resolvedURI += "?v=2"
                    #expect(rules(previous, renamed).contains(.segmentChanged))
                }
                previous = next
                reloads += 1
            }
        }
        #expect(reloads > 2000)
    }
}
