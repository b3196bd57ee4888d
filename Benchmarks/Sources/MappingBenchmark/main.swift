import BenchmarkSupport
import Compositor
import CompositorHLS
import CompositorMP4
import Foundation

// Compiles schedules of 10 and 10,000 breaks, then times 1,000,000 lookups each way on each, with
// the indexed (O(log n)) lookups against a plain linear scan of the same composition as the peer.

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Content of 90,000 s, `breakCount` mid-rolls of two 15 s ads.
func makeSchedule(breakCount: Int) throws -> Schedule { try breakSchedule(breakCount: breakCount, contentSeconds: 90_000) }

/// Best of `runs`, in nanoseconds.
func best(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<runs {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        fastest = min(fastest, nanoseconds(elapsed))
    }
    return fastest
}

struct Figures {
    let compileNs: Double
    let toCompositionNs: Double
    let toContentNs: Double
    let linearToContentNs: Double
}

func measure(breakCount: Int, lookups: Int) throws -> Figures {
    let schedule = try makeSchedule(breakCount: breakCount)
    var composition: Composition?
    let compileNs = try best(5) { composition = try Composition(schedule: schedule) }
    let c = composition!

    var rng = SplitMix64(state: UInt64(breakCount))
    let contentTimes = (0..<lookups).map { _ in
        MediaTime(value: Int64.random(in: 0...c.contentDuration.value, using: &rng), timescale: c.contentDuration.timescale)
    }
    let compositionTimes = (0..<lookups).map { _ in
        MediaTime(value: Int64.random(in: 0..<c.duration.value, using: &rng), timescale: c.duration.timescale)
    }
    var sink: Int64 = 0
    let toComposition = best(3) {
        for t in contentTimes { sink &+= c.compositionTime(forContentTime: t).value }
    }
    let toContent = best(3) {
        for t in compositionTimes { sink &+= c.contentTime(forCompositionTime: t).value }
    }
    // The peer: the same answer by scanning the segments in order (on a sample: it is slow).
    let linearSample = compositionTimes.prefix(max(1, min(lookups, 20_000_000 / max(1, c.segments.count))))
    let linear = best(1) {
        for t in linearSample {
            if let segment = c.segments.first(where: { $0.compositionRange.contains(t) }) {
                sink &+= segment.isAd ? segment.contentRange.start.value
                    : (segment.contentRange.start + (t - segment.compositionRange.start)).value
            }
        }
    }
    if sink == 42 { print("") }  // keeps the work observable
    return Figures(
        compileNs: compileNs, toCompositionNs: toComposition / Double(lookups),
        toContentNs: toContent / Double(lookups), linearToContentNs: linear / Double(linearSample.count))
}

let lookups = 1_000_000
let small = try measure(breakCount: 10, lookups: lookups)
let large = try measure(breakCount: 10_000, lookups: lookups)

func fmt(_ value: Double, _ digits: Int = 1) -> String {
    var text = String(Int((value * pow10(digits)).rounded()))
    while text.count <= digits { text = "0" + text }
    return digits == 0 ? text : String(text.dropLast(digits)) + "." + String(text.suffix(digits))
}
func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { v, _ in v * 10 } }

print("mapping benchmark (release build; \(lookups) lookups each way; best of several runs)")
print("breaks   compile ms   content->composition ns   composition->content ns   linear scan ns")
for (count, f) in [(10, small), (10_000, large)] {
    print("\(String(count).padding(8))\(fmt(f.compileNs / 1e6, 3).padding(13))\(fmt(f.toCompositionNs).padding(26))"
        + "\(fmt(f.toContentNs).padding(26))\(fmt(f.linearToContentNs))")
}
let ratioTo = large.toCompositionNs / small.toCompositionNs
let ratioFrom = large.toContentNs / small.toContentNs
print("")
print("ratio 10,000 / 10 breaks: content->composition \(fmt(ratioTo, 2))x, composition->content \(fmt(ratioFrom, 2))x (target <= 3x)")
print("speed-up over the linear scan at 10,000 breaks: \(fmt(large.linearToContentNs / large.toContentNs, 0))x")
print("compile 10,000 breaks: \(fmt(large.compileNs / 1e6, 2)) ms (target < 50 ms); "
    + "lookup at 10,000 breaks: \(fmt(max(large.toCompositionNs, large.toContentNs))) ns (target < 1000 ns)")
let pass = large.compileNs < 50e6 && max(large.toCompositionNs, large.toContentNs) < 1000 && max(ratioTo, ratioFrom) <= 3
print(pass ? "targets: met" : "targets: MISSED")

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
