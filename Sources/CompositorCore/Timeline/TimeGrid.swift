/// The one timescale every time of a composition is a whole number of ticks of, so that all the
/// arithmetic inside a composition is exact `Int64` arithmetic in one timescale.
///
/// The rule (`Composition.timescale` states it for callers):
///
/// 1. `L`: the least common multiple of the timescales (in lowest terms) of the times the timeline
///    is built from, when it fits `Int32`. When it does not (`1/2147483647` beside `1001/30000`),
///    `L` is built from the finest timescale down, leaving out each one that would push it past
///    `Int32.max`; times in a timescale left out are rounded to the nearest tick of the grid,
///    halfway away from zero, and reported (`Composition.Diagnostic.timeRounded`).
/// 2. The grid is `lcm(L, 10^d)` for the largest `d <= 9` that keeps it within `Int32.max` and the
///    composition's times within `Int64` ticks (bounded, conservatively, by the sum of the
///    magnitudes of the schedule's times), so decimal queries and nanosecond player clocks
///    are exact where they can be, and a tick is always finer than 5 ns
///    (`lcm(L, 10^(d+1)) <= 10 * lcm(L, 10^d)`).
///
/// ```
/// times 0, 20, 8.5, 5          L = 2            grid 1000000000   (a nanosecond)
/// times 1001/30000, 15.015     L = 30000        grid 300000000    (10^8 with 30000)
/// times 0.123456789, 1001/30000: no common timescale in Int32: L = 1000000000, the 29.97 fps
///                               times round to the nearest nanosecond (and are reported)
/// ```
struct TimeGrid: Sendable {
    let timescale: Int32
    /// Ticks of the grid per tick of each timescale the grid was chosen for that divides it: a
    /// time in one of them is placed by one multiplication (no division per time).
    private var factors: [(timescale: Int32, factor: Int64)] = []

    /// The grid for `times`.
    init(_ times: [MediaTime]) {
        // Distinct raw timescales first: in the usual case their lcm fits and nothing needs reducing.
        var scales: [Int32] = []
        var last: Int32 = 0
        for t in times where t.timescale != last {
            last = t.timescale
            if !scales.contains(last) { scales.append(last) }
        }
        var base = TimeGrid.leastCommonMultiple(scales)
        if base == nil {
            var reduced: [Int32] = []
            for t in times {
                let scale = t.reduced.timescale
                if !reduced.contains(scale) { reduced.append(scale) }
            }
            base = TimeGrid.leastCommonMultiple(reduced) ?? TimeGrid.greedyMultiple(reduced)
        }
        let l = base ?? 1
        // The sum of the magnitudes bounds every time the composition computes (source, content and
        // composition times are sums of these or smaller), in ticks of L; rounded times count a
        // tick more.
        var bound: UInt64? = 0
        let boundFactors = scales.map { l % $0 == 0 ? Int64(l / $0) : 0 }
        var lastScale: Int32 = 0, lastFactor: Int64 = 0
        for t in times {
            guard let sum = bound else { break }
            if t.timescale != lastScale {
                lastScale = t.timescale
                lastFactor = scales.firstIndex(of: lastScale).map { boundFactors[$0] } ?? 0
            }
            var magnitude: UInt64
            if lastFactor > 0 {
                let (product, overflow) = t.value.magnitude.multipliedReportingOverflow(by: UInt64(lastFactor))
                guard !overflow else { bound = nil; break }
                magnitude = product
            } else {
                let ticks = (try? MediaTime.divide(t.value, times: Int64(l), by: Int64(t.timescale), rounding: .awayFromZero))
                guard let ticks else { bound = nil; break }
                magnitude = ticks.magnitude
            }
            let (next, overflow) = sum.addingReportingOverflow(magnitude)
            bound = overflow ? nil : next
        }
        var chosen = l
        if let bound {
            for d in stride(from: 9, through: 0, by: -1) {
                guard let candidate = TimeGrid.leastCommonMultiple([l, TimeGrid.powersOfTen[d]]) else { continue }
                let (ticks, overflow) = bound.multipliedReportingOverflow(by: UInt64(candidate / l))
                if !overflow, ticks <= UInt64(Int64.max) { chosen = candidate; break }
            }
        }
        timescale = chosen
        factors = scales.filter { chosen % $0 == 0 }.map { ($0, Int64(chosen / $0)) }
    }

    init(timescale: Int32) { self.timescale = timescale }

    static let powersOfTen: [Int32] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    /// `t` in ticks of the grid: exact when it is a whole number of ticks; otherwise rounded to the
    /// nearest, halfway away from zero, and reported in `diagnostics` against `item` and `field`.
    /// Throws when the ticks do not fit `Int64`.
    func place(
        _ t: MediaTime, item: String, field: String, diagnostics: inout [Composition.Diagnostic]
    ) throws(ScheduleError) -> MediaTime {
        if t.timescale == timescale { return t }
        var factor: Int64 = 0
        for entry in factors where entry.timescale == t.timescale { factor = entry.factor }
        if factor == 0, timescale % t.timescale == 0 { factor = Int64(timescale / t.timescale) }
        if factor > 0 {
            let (value, overflow) = t.value.multipliedReportingOverflow(by: factor)
            guard !overflow else { throw .timeOverflow(item: item, .overflow("\(field) \(t) in ticks of 1/\(timescale) s")) }
            return MediaTime(value: value, timescale: timescale)
        }
        let rounded: MediaTime
        do { rounded = try t.converted(to: timescale, rounding: .toNearestOrAwayFromZero) } catch {
            throw .timeOverflow(item: item, error)
        }
        if rounded != t { diagnostics.append(.timeRounded(item: item, field: field, requested: t, rounded: rounded)) }
        return rounded
    }

    /// `t` clamped to `[0, limit]` and then moved down to the grid: the tick at or before it (the
    /// instant on screen). `limit` is on the grid.
    @inline(__always)
    func floor(_ t: MediaTime, clampedTo limit: MediaTime) -> MediaTime {
        if t.timescale == timescale, limit.timescale == timescale {
            return t.value < 0 ? MediaTime(value: 0, timescale: timescale) : (t.value > limit.value ? limit : t)
        }
        return floorSlow(t, clampedTo: limit)
    }

    private func floorSlow(_ t: MediaTime, clampedTo limit: MediaTime) -> MediaTime {
        if t >= limit { return limit }
        guard t > .zero else { return MediaTime(value: 0, timescale: timescale) }
        // 0 < t < limit, and limit's ticks fit Int64, so t's do too.
        let ticks = (try? MediaTime.divide(t.value, times: Int64(timescale), by: Int64(t.timescale), rounding: .down)) ?? 0
        return MediaTime(value: ticks, timescale: timescale)
    }

    /// The least common multiple of `scales`, or `nil` past `Int32.max`.
    static func leastCommonMultiple(_ scales: [Int32]) -> Int32? {
        var common: Int64 = 1
        for scale in scales {
            common = common / Int64(gcd(UInt64(common), UInt64(scale))) * Int64(scale)
            guard common <= Int64(Int32.max) else { return nil }
        }
        return Int32(common)
    }

    /// The multiple built from the finest timescale down, skipping each that would pass `Int32.max`.
    static func greedyMultiple(_ scales: [Int32]) -> Int32 {
        var common: Int32 = 1
        for scale in scales.sorted(by: >) {
            if let next = leastCommonMultiple([common, scale]) { common = next }
        }
        return common
    }
}
