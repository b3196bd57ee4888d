import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Invariants over seeded random schedules: clips with odd timescales (29.97 fps, 44.1 kHz, decimals),
/// pods, pre/mid/post-rolls at clip boundaries and at the ends, replace breaks.
@Suite("Composition properties")
struct CompositionPropertyTests {
    static let timescales: [Int32] = [1, 10, 1000, 30000, 44100, 48000, 90000]

    /// A random time of whole ticks in `[0, maxSeconds]`, in a random timescale.
    static func randomTime(maxSeconds: Int64, _ rng: inout SeededGenerator) -> MediaTime {
        let scale = timescales.randomElement(using: &rng)!
        let tick: Int64 = scale == 30000 ? 1001 : 1
        let ticks = Int64.random(in: 0...(maxSeconds * Int64(scale) / tick), using: &rng)
        return MediaTime(value: ticks * tick, timescale: scale)
    }

    /// A valid random schedule (retrying the rare ones whose replace breaks overlap).
    static func randomComposition(seed: UInt64) -> Composition {
        var rng = SeededGenerator(seed: seed)
        while true {
            var clips: [ContentClip] = []
            for i in 0..<Int.random(in: 1...5, using: &rng) {
                let start = randomTime(maxSeconds: 30, &rng)
                let length = randomTime(maxSeconds: 40, &rng) + MediaTime(value: 1, timescale: 1000)
                clips.append(ContentClip(id: "c\(i)", source: MediaLocation(FilePath("c\(i).mp4")), start: start, end: start + length))
            }
            let contentDuration = clips.reduce(MediaTime.zero) { $0 + ($1.end! - $1.start) }
            var clipBoundaries: [MediaTime] = [.zero]
            for clip in clips { clipBoundaries.append(clipBoundaries.last! + (clip.end! - clip.start)) }

            var breaks: [AdBreak] = []
            for b in 0..<Int.random(in: 0...8, using: &rng) {
                let placement: Placement
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: placement = .preroll
                case 1: placement = .postroll
                case 2, 3: placement = .midroll(at: clipBoundaries.randomElement(using: &rng)!)
                default:
                    let fraction = Int64.random(in: 0...1000, using: &rng)
                    let at = (try? MediaTime(value: contentDuration.value * fraction, timescale: contentDuration.timescale)
                        .converted(to: contentDuration.timescale, rounding: .down)) ?? .zero
                    placement = .midroll(at: MediaTime.min(contentDuration, MediaTime(value: at.value / 1000, timescale: at.timescale)))
                }
                let ads = (0..<Int.random(in: 1...3, using: &rng)).map { a in
                    Ad(id: "b\(b)a\(a)", source: "ad.mp4", start: .zero,
                       end: randomTime(maxSeconds: 30, &rng) + MediaTime(value: 1, timescale: 48000))
                }
                let offset = Int.random(in: 0..<6, using: &rng) == 0 ? randomTime(maxSeconds: 3, &rng) : .zero
                breaks.append(AdBreak(id: "b\(b)", placement: placement, ads: ads,
                                      policy: Bool.random(using: &rng) ? .once : .sticky, resumeOffset: offset))
            }
            if let composition = try? Composition(schedule: Schedule(content: clips, breaks: breaks)) {
                return composition
            }
        }
    }

    /// Instants worth checking: every boundary, a tick either side, and random points.
    static func probes(_ c: Composition, _ rng: inout SeededGenerator, span: MediaTime) -> [MediaTime] {
        let tick = MediaTime(value: 1, timescale: 90000)
        var points: [MediaTime] = [.zero, span]
        for segment in c.segments {
            for edge in [segment.compositionRange.start, segment.contentRange.start, segment.contentRange.end] {
                points += [edge, edge - tick, edge + tick]
            }
        }
        for _ in 0..<20 { points.append(randomTime(maxSeconds: max(1, span.wholeSeconds(rounding: .up)), &rng)) }
        return points
    }

    static let seeds = 0..<UInt64(1000)

    @Test("segments are contiguous from 0, monotonic in content time, and durations add up")
    func structure() {
        for seed in Self.seeds {
            let c = Self.randomComposition(seed: seed)
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

    @Test("content -> composition -> content and composition -> content -> composition are identities")
    func roundTrips() {
        for seed in Self.seeds {
            let c = Self.randomComposition(seed: seed)
            var rng = SeededGenerator(seed: seed ^ 0xABCDEF)
            let shown = c.segments.filter { !$0.isAd }.map(\.contentRange)
            for t in Self.probes(c, &rng, span: c.contentDuration) where t >= .zero && t <= c.contentDuration {
                // Content shown somewhere (or the end) comes back exactly.
                guard t == c.contentDuration || shown.contains(where: { $0.contains(t) }) else { continue }
                for bias in [Composition.BreakBias.afterBreaks, .beforeBreaks] {
                    let back = c.contentTime(forCompositionTime: c.compositionTime(forContentTime: t, bias: bias))
                    #expect(back == t, "seed \(seed): content \(t) (\(bias)) came back as \(back)")
                }
            }
            for time in Self.probes(c, &rng, span: c.duration) {
                guard let location = c.locate(time), location.ad == nil else { continue }
                let back = c.compositionTime(forContentTime: c.contentTime(forCompositionTime: time))
                #expect(back == time, "seed \(seed): composition \(time) came back as \(back)")
            }
        }
    }

    @Test("the O(log n) lookups agree with a plain linear scan")
    func agreesWithLinearScan() {
        for seed in Self.seeds {
            let c = Self.randomComposition(seed: seed)
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
}

/// The mapping rules restated as plain scans over the segments: the oracle for the indexed lookups.
enum LinearScan {
    static func contentTime(_ c: Composition, _ time: MediaTime) -> MediaTime {
        let clamped = MediaTime.max(.zero, time)
        for segment in c.segments where segment.compositionRange.contains(clamped) {
            return segment.isAd ? segment.contentRange.start
                : segment.contentRange.start + (clamped - segment.compositionRange.start)
        }
        return c.contentDuration
    }

    static func compositionTime(_ c: Composition, _ content: MediaTime, _ bias: Composition.BreakBias) -> MediaTime {
        let t = MediaTime.min(MediaTime.max(content, .zero), c.contentDuration)
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
