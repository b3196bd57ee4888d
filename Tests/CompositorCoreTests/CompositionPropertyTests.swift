import Testing
import CompositorTestSupport
@testable import CompositorCore

/// Invariants over seeded random schedules: clips with odd timescales (29.97 and 23.976 fps, 44.1 kHz,
/// AVFoundation's 10^9, the prime 2147483647, decimals), pods, pre/mid/post-rolls at clip boundaries
/// and at the ends, replace breaks; queried at random instants in all those timescales.
///
/// Many of these schedules mix timescales with no common multiple within Int32 (10^9 beside 30000,
/// the prime beside anything), and the queries meet the schedule's times in such mixes too: the
/// cases that trapped (issue 13, C1). Every query must answer, on the composition's grid.
@Suite("Composition properties")
struct CompositionPropertyTests {
    /// Instants worth checking: every boundary, a tick either side in several timescales, and
    /// random points in every timescale.
    static func probes(_ c: Composition, _ rng: inout SeededGenerator, span: MediaTime) -> [MediaTime] {
        let ticks = [MediaTime(value: 1, timescale: 90000), MediaTime(value: 1, timescale: 1_000_000_000),
                     MediaTime(value: 1, timescale: 2_147_483_647), MediaTime(value: 1, timescale: c.timescale)]
        var points: [MediaTime] = [.zero, span]
        for segment in c.segments {
            for edge in [segment.compositionRange.start, segment.contentRange.start, segment.contentRange.end] {
                points.append(edge)
                let tick = ticks.randomElement(using: &rng)!
                points += [edge - tick, edge + tick]
            }
        }
        for _ in 0..<20 { points.append(RandomCompositions.randomQuery(span: span, &rng)) }
        return points
    }

    /// Whether every time of `c` is a whole tick of its timescale (stored in it, in fact).
    static func onGrid(_ t: MediaTime, _ c: Composition) -> Bool { t.timescale == c.timescale }

    @Test("segments are contiguous from 0, monotonic in content time, and durations add up")
    func structure() {
        for seed in RandomCompositions.seeds {
            let c = RandomCompositions.randomComposition(seed: seed)
            var cursor = MediaTime.zero, lastContent = MediaTime.zero
            var contentShown = MediaTime.zero
            for segment in c.segments {
                #expect(segment.compositionRange.start == cursor, "seed \(seed): gap or overlap at \(cursor)")
                #expect(!segment.compositionRange.isEmpty, "seed \(seed): empty segment")
                #expect(segment.compositionRange.duration == segment.sourceRange.duration)
                #expect(segment.contentRange.start >= lastContent, "seed \(seed): content goes backwards")
                if segment.isAd {
                    #expect(segment.contentRange.isEmpty)
                } else {
                    #expect(segment.contentRange.duration == segment.compositionRange.duration)
                    contentShown += segment.contentRange.duration
                }
                cursor = segment.compositionRange.end
                lastContent = segment.contentRange.end
            }
            #expect(cursor == c.duration, "seed \(seed)")
            let adTime = c.breaks.reduce(MediaTime.zero) { $0 + $1.compositionRange.duration }
            #expect(contentShown + adTime == c.duration, "seed \(seed)")
            let replaced = c.contentDuration - contentShown
            #expect(replaced >= .zero, "seed \(seed)")
        }
    }

    /// ```
    /// schedule  c0 [1001/30000, 7.5)  c1 [0.123456789, 3)  ad [0, 2147483647/2147483647 ...)
    /// grid      every time a whole tick of composition.timescale; a time the grid cannot hold
    ///           exactly is rounded to the nearest tick and named in a .timeRounded diagnostic
    /// ```
    @Test("every time is on the composition's grid; what the grid cannot hold is rounded by half a tick at most, and reported")
    func grid() throws {
        var roundedSchedules = 0
        for seed in RandomCompositions.seeds {
            let (schedule, c) = RandomCompositions.randomSchedule(seed: seed)
            #expect(c.timescale > 200_000_000, "seed \(seed): a tick must be finer than 5 ns, got 1/\(c.timescale)")
            for segment in c.segments {
                for t in [segment.sourceRange.start, segment.sourceRange.end, segment.compositionRange.start,
                          segment.compositionRange.end, segment.contentRange.start, segment.contentRange.end] {
                    #expect(Self.onGrid(t, c), "seed \(seed): \(t) is not in ticks of 1/\(c.timescale)")
                }
            }
            for placed in c.breaks {
                #expect(Self.onGrid(placed.position, c) && Self.onGrid(placed.resumeContentTime, c), "seed \(seed)")
            }
            #expect(Self.onGrid(c.duration, c) && Self.onGrid(c.contentDuration, c), "seed \(seed)")
            // Each rounded time moved by at most half a tick, to the nearest tick.
            var rounded: [String: [MediaTime]] = [:]
            for case .timeRounded(let item, _, let requested, let to) in c.diagnostics {
                // Exactly: between the midpoints to the ticks either side of `to`.
                let below = MediaTime(value: to.value - 1, timescale: to.timescale)
                let above = MediaTime(value: to.value + 1, timescale: to.timescale)
                #expect(to.timescale == c.timescale, "seed \(seed)")
                #expect(MediaTime.signOfOffset(requested, fromMidpointOf: below, and: to) >= 0
                        && MediaTime.signOfOffset(requested, fromMidpointOf: to, and: above) <= 0,
                        "seed \(seed): \(requested) -> \(to) is not the nearest tick")
                rounded[item, default: []].append(requested)
            }
            if !rounded.isEmpty { roundedSchedules += 1 }
            // A time of the schedule that is not on the grid was reported.
            for clip in schedule.content {
                for t in [clip.start, clip.end!] where (try? t.converted(to: c.timescale, rounding: .down)) != t {
                    #expect(rounded[clip.id]?.contains(t) == true, "seed \(seed): \(clip.id) \(t) rounded silently")
                }
            }
        }
        #expect(roundedSchedules > 20, "the generator should make schedules without a common timescale")
    }

    @Test("content -> composition -> content and composition -> content -> composition are identities on the grid")
    func roundTrips() {
        for seed in RandomCompositions.seeds {
            let c = RandomCompositions.randomComposition(seed: seed)
            var rng = SeededGenerator(seed: seed ^ 0xABCDEF)
            let shown = c.segments.filter { !$0.isAd }.map(\.contentRange)
            for query in Self.probes(c, &rng, span: c.contentDuration) where query >= .zero && query <= c.contentDuration {
                // A query between two ticks is taken at the tick before it, in both directions.
                let t = c.onGrid(query, clampedTo: c.contentDuration)
                #expect(t <= query && Self.onGrid(t, c), "seed \(seed): \(query) taken as \(t)")
                // Content shown somewhere (or the end) comes back exactly.
                guard t == c.contentDuration || shown.contains(where: { $0.contains(t) }) else { continue }
                for bias in [Composition.BreakBias.afterBreaks, .beforeBreaks] {
                    let there = c.compositionTime(forContentTime: query, bias: bias)
                    #expect(there == c.compositionTime(forContentTime: t, bias: bias), "seed \(seed)")
                    #expect(Self.onGrid(there, c), "seed \(seed)")
                    let back = c.contentTime(forCompositionTime: there)
                    #expect(back == t, "seed \(seed): content \(query) (\(bias)) came back as \(back)")
                }
            }
            for time in Self.probes(c, &rng, span: c.duration) {
                guard let location = c.locate(time), location.ad == nil else { continue }
                let back = c.compositionTime(forContentTime: c.contentTime(forCompositionTime: time))
                #expect(back == location.compositionTime, "seed \(seed): composition \(time) came back as \(back)")
            }
        }
    }

    @Test("the O(log n) lookups agree with a plain linear scan of the quantized query")
    func agreesWithLinearScan() {
        for seed in RandomCompositions.seeds {
            let c = RandomCompositions.randomComposition(seed: seed)
            var rng = SeededGenerator(seed: seed ^ 0x5EED)
            for time in Self.probes(c, &rng, span: c.duration) {
                let linear = c.segments.firstIndex { $0.compositionRange.contains(time) }
                #expect(c.segmentIndex(at: time) == linear, "seed \(seed) at \(time)")
                #expect(c.contentTime(forCompositionTime: time) == LinearScan.contentTime(c, time), "seed \(seed) at \(time)")
            }
            for t in Self.probes(c, &rng, span: c.contentDuration) {
                for bias in [Composition.BreakBias.afterBreaks, .beforeBreaks] {
                    #expect(c.compositionTime(forContentTime: t, bias: bias) == LinearScan.compositionTime(c, t, bias),
                            "seed \(seed): content \(t) \(bias)")
                }
            }
        }
    }

    /// ```
    /// composition  |--content--|--ad 1--|--ad 2--|--content--|
    ///                          ^ break start      ^ timeInBreak = t - break start
    ///                                   ^ timeInAd = t - ad start, sourceTime = source start + timeInAd
    /// ```
    @Test("locate, seekBar and breakMarkers answer every instant in every timescale, consistently")
    func locateAndSeekBar() {
        for seed in RandomCompositions.seeds {
            let c = RandomCompositions.randomComposition(seed: seed)
            var rng = SeededGenerator(seed: seed ^ 0x10CA7E)
            let played = Set(c.breaks.filter { _ in Bool.random(using: &rng) }.map(\.id))
            let markers = c.breakMarkers(playedBreakIDs: played)
            #expect(markers.map(\.breakID) == c.breaks.map(\.id) && markers.map(\.position) == c.breaks.map(\.position))
            #expect(markers.map(\.played) == c.breaks.map { played.contains($0.id) })
            for time in Self.probes(c, &rng, span: c.duration) {
                let bar = c.seekBar(at: time, playedBreakIDs: played)
                #expect(bar.main.position == c.contentTime(forCompositionTime: time) && bar.main.duration == c.contentDuration)
                #expect(bar.main.markers == markers)
                _ = bar.main.label
                guard let location = c.locate(time) else {
                    #expect(time < .zero || time >= c.duration, "seed \(seed): no location at \(time)")
                    #expect(bar.ad == nil)
                    continue
                }
                let segment = location.segment
                #expect(location.compositionTime == c.onGrid(time, clampedTo: c.duration), "seed \(seed) at \(time)")
                #expect(segment.compositionRange.contains(location.compositionTime))
                let offset = location.compositionTime - segment.compositionRange.start
                #expect(location.sourceTime == segment.sourceRange.start + offset, "seed \(seed) at \(time)")
                #expect(location.contentTime == c.contentTime(forCompositionTime: time))
                if let ad = location.ad {
                    let placed = c.breaks[ad.breakIndex]
                    #expect(placed.id == ad.position.breakID && placed.compositionRange.contains(location.compositionTime))
                    #expect(ad.timeInAd == offset && ad.timeInAd < ad.adDuration)
                    #expect(ad.timeInBreak == location.compositionTime - placed.compositionRange.start)
                    #expect(bar.ad?.position == ad.timeInAd && bar.ad?.duration == ad.adDuration)
                    #expect(bar.ad?.podPosition == ad.position.podPosition && bar.ad?.podSize == ad.position.podSize)
                    _ = bar.ad?.label
                } else {
                    #expect(bar.ad == nil)
                }
            }
        }
    }
}

/// The mapping rules restated as plain scans over the segments: the oracle for the indexed lookups.
enum LinearScan {
    /// Queries are taken at the tick at or before them on the composition's grid first (the rule
    /// `Composition.timescale` states).
    static func contentTime(_ c: Composition, _ time: MediaTime) -> MediaTime {
        guard time < c.duration else { return c.contentDuration }
        let clamped = c.onGrid(time, clampedTo: c.duration)
        for segment in c.segments where segment.compositionRange.contains(clamped) {
            return segment.isAd ? segment.contentRange.start
                : segment.contentRange.start + (clamped - segment.compositionRange.start)
        }
        return c.contentDuration
    }

    static func compositionTime(_ c: Composition, _ content: MediaTime, _ bias: Composition.BreakBias) -> MediaTime {
        let t = c.onGrid(content, clampedTo: c.contentDuration)
        if bias == .beforeBreaks {
            if let first = c.breaks.first(where: { $0.position == t }) { return first.compositionRange.start }
            if let replacing = c.breaks.first(where: { $0.position < t && t < $0.resumeContentTime }) {
                return c.breaks.first { $0.position == replacing.position }!.compositionRange.start
            }
        }
        // Where t is shown, or else where the next content after it starts.
        let shown = c.segments.filter { !$0.isAd }
        for segment in shown where segment.contentRange.contains(t) {
            return segment.compositionRange.start + (t - segment.contentRange.start)
        }
        return shown.first { $0.contentRange.start > t }?.compositionRange.start ?? c.duration
    }
}
