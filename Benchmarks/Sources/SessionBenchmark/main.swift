import BenchmarkSupport
import Compositor
import Foundation

// Plays sessions through whole programmes of 10 and of 10,000 breaks, one `update(position:)` per
// player tick (every 0.5 s plus an odd number of nanoseconds, on a 10^9 clock as AVPlayer reports
// it), and prints the cost per tick. Both programmes have the same shape (a pod of two 15 s ads
// after every 9 s of content), so they report as many events per tick and differ only in size;
// the short one is played many times over. The peer, measured in the same run on the same ticks:
// finding the segment under the playhead by scanning the composition's segments in order, which is
// what a tick handler without the session's index would do.

/// Content of 9 s per break plus 9 s, `breakCount` mid-rolls of two 15 s ads, evenly spread.
func makeSchedule(breakCount: Int) throws -> Schedule {
    try breakSchedule(breakCount: breakCount, contentSeconds: Int64(breakCount + 1) * 9)
}

struct Figures {
    let ticks: Int
    let events: Int
    let sessionNs: Double
    let scanNs: Double
}

func measure(breakCount: Int) throws -> Figures {
    let schedule = try makeSchedule(breakCount: breakCount)
    let step: Int64 = 500_000_001
    let composition = try PlaybackSession(schedule: schedule).composition
    let end = composition.duration.value * (1_000_000_000 / Int64(composition.duration.timescale))
    let ticks = (1...(end / step)).map { MediaTime(value: $0 * step, timescale: 1_000_000_000) }

    // Enough plays of the programme for at least 600,000 ticks, on sessions made beforehand.
    let plays = max(1, 600_000 / ticks.count)
    var fastest = Double.infinity
    var events = 0
    for _ in 0..<3 {
        var sessions = try (0..<plays).map { _ in try PlaybackSession(schedule: schedule) }
        for index in sessions.indices { _ = sessions[index].start() }
        var count = 0
        let elapsed = ContinuousClock().measure {
            for index in sessions.indices {
                for tick in ticks { count &+= sessions[index].update(position: tick).events.count }
            }
        }
        fastest = min(fastest, nanoseconds(elapsed))
        events = count
    }
    // The peer, on ticks spread over the whole programme (a full scan per tick is slow at 10,000 breaks).
    let stride = max(1, ticks.count / max(1, min(ticks.count, 40_000_000 / composition.segments.count)))
    let sample = Swift.stride(from: 0, to: ticks.count, by: stride).map { ticks[$0] }
    var sink = 0
    let scan = ContinuousClock().measure {
        for tick in sample {
            sink &+= composition.segments.firstIndex { $0.compositionRange.contains(tick) } ?? 0
        }
    }
    if sink == 42 { print("") }  // keeps the work observable
    return Figures(
        ticks: ticks.count * plays, events: events, sessionNs: fastest / Double(ticks.count * plays),
        scanNs: nanoseconds(scan) / Double(sample.count))
}

func fmt(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}

let small = try measure(breakCount: 10)
let large = try measure(breakCount: 10_000)
print("session benchmark (release build; one update(position:) per 0.5 s tick on a 10^9 clock; a pod every 9 s of content; best of 3)")
print("breaks   ticks      events    ns per tick   peer: segment scan ns per tick")
for (count, f) in [(10, small), (10_000, large)] {
    print("\(String(count).padding(toLength: 9, withPad: " ", startingAt: 0))\(String(f.ticks).padding(toLength: 11, withPad: " ", startingAt: 0))"
        + "\(String(f.events).padding(toLength: 10, withPad: " ", startingAt: 0))\(fmt(f.sessionNs).padding(toLength: 14, withPad: " ", startingAt: 0))\(fmt(f.scanNs))")
}
let flat = large.sessionNs / small.sessionNs
print("")
print("ratio 10,000 / 10 breaks: \(fmt(flat, 2))x (target: flat, <= 1.5x)")
print("against the scan at 10,000 breaks: \(fmt(large.scanNs / large.sessionNs, 0))x faster")
let worst = max(small.sessionNs, large.sessionNs)
print("worst per tick: \(fmt(worst)) ns (target <= 200 ns)")
print(worst <= 200 && flat <= 1.5 ? "targets: met" : "targets: MISSED")
