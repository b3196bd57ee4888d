/// Non-decreasing times, searchable in O(log n) with exact answers.
///
/// When every time is a whole number of ticks of one common timescale (the usual case: the lcm of
/// 30000, 48000 and 1000 is 240000), the keys are stored as plain `Int64` ticks: half the memory of
/// `MediaTime` keys and one integer comparison per step, which keeps large timelines in cache.
/// Queries stay exact: for an integer key `k`, `k > t` exactly when `k > floor(t)`, and `k >= t`
/// exactly when `k > ceil(t) - 1` (`t` in ticks). Otherwise the exact `MediaTime` keys are searched.
///
/// Boundaries on a timeline are spread fairly evenly, so a tick search starts where interpolation
/// puts the answer and gallops out from there: one or two cache lines touched instead of a path
/// down the whole array; clustered keys still cost O(log n).
struct SortedTimes: Hashable, Sendable {
    private enum Keys: Hashable, Sendable {
        case ticks([Int64], timescale: Int32)
        case exact([MediaTime])
    }

    private let keys: Keys

    init(_ times: [MediaTime]) {
        keys = SortedTimes.ticks(times).map { .ticks($0.ticks, timescale: $0.timescale) } ?? .exact(times)
    }

    /// The index of the first time `> t`, or the count when none is.
    func firstIndex(after t: MediaTime) -> Int {
        switch keys {
        case .ticks(let ticks, let timescale):
            guard let bound = SortedTimes.ticks(of: t, in: timescale, rounding: .down) else { return t.isNegative ? 0 : ticks.count }
            return SortedTimes.firstIndex(in: ticks, above: bound)
        case .exact(let times):
            return SortedTimes.firstIndex(in: times) { $0 > t }
        }
    }

    /// The index of the first time `>= t`, or the count when none is.
    func firstIndex(atOrAfter t: MediaTime) -> Int {
        switch keys {
        case .ticks(let ticks, let timescale):
            guard let bound = SortedTimes.ticks(of: t, in: timescale, rounding: .up) else { return t.isNegative ? 0 : ticks.count }
            guard bound > Int64.min else { return 0 }
            return SortedTimes.firstIndex(in: ticks, above: bound - 1)
        case .exact(let times):
            return SortedTimes.firstIndex(in: times) { $0 >= t }
        }
    }

    /// `t` in whole ticks of `timescale`, rounded; `nil` when it does not fit 64 bits.
    @inline(__always)
    private static func ticks(of t: MediaTime, in timescale: Int32, rounding: FloatingPointRoundingRule) -> Int64? {
        if t.timescale == timescale { return t.value }
        return try? MediaTime.divide(t.value, times: Int64(timescale), by: Int64(t.timescale), rounding: rounding)
    }

    /// All times as exact ticks of their least common timescale, when it fits `Int32` and every value fits.
    private static func ticks(_ times: [MediaTime]) -> (ticks: [Int64], timescale: Int32)? {
        var common: Int64 = 1
        for scale in Set(times.map(\.timescale)) {
            common = common / Int64(gcd(UInt64(common), UInt64(scale))) * Int64(scale)
            guard common <= Int64(Int32.max) else { return nil }
        }
        var ticks: [Int64] = []
        ticks.reserveCapacity(times.count)
        for t in times {
            let (value, overflow) = t.value.multipliedReportingOverflow(by: common / Int64(t.timescale))
            guard !overflow else { return nil }
            ticks.append(value)
        }
        return (ticks, Int32(common))
    }

    /// The first index whose key is `> bound`: interpolate a guess, gallop to bracket the answer,
    /// then halve inside the bracket.
    @inline(__always)
    private static func firstIndex(in keys: [Int64], above bound: Int64) -> Int {
        let count = keys.count
        guard count > 1 else { return count == 1 && keys[0] <= bound ? 1 : 0 }
        let low = keys[0], high = keys[count - 1]
        guard bound >= low else { return 0 }
        guard bound < high else { return count }
        // bound - low < high - low, so the guess is in 0..<count-1; both differences are positive.
        let span = UInt64(bitPattern: high &- low), offset = UInt64(bitPattern: bound &- low)
        let guess = Int(span.dividingFullWidth(offset.multipliedFullWidth(by: UInt64(count - 1))).quotient)
        // Bracket: keys[lower] <= bound < keys[upper].
        var lower = guess, upper = guess + 1, step = 1
        if keys[guess] > bound {
            upper = guess
            lower = guess - 1
            while lower > 0, keys[lower] > bound { upper = lower; step *= 2; lower = max(0, upper - step) }
        } else {
            while upper < count - 1, keys[upper] <= bound { lower = upper; step *= 2; upper = min(count - 1, lower + step) }
        }
        // keys[0] <= bound < keys[count - 1] makes both ends hold even after clamping.
        return lower + 1 + firstIndex(in: keys[(lower + 1)..<upper]) { $0 > bound }
    }

    /// The first index whose element satisfies `predicate`, which must be false then true along the
    /// array (`array.count` when none does). Branch-free halving: the loop's only branch is its
    /// count, so lookups do not pay for mispredicted comparisons.
    @inline(__always)
    private static func firstIndex<C: RandomAccessCollection>(in array: C, where predicate: (C.Element) -> Bool) -> Int
    where C.Index == Int {
        var base = array.startIndex, length = array.count
        guard length > 0 else { return 0 }
        while length > 1 {
            let half = length / 2
            base = predicate(array[base + half]) ? base : base + half
            length -= half
        }
        return (predicate(array[base]) ? base : base + 1) - array.startIndex
    }
}
