/// An exact instant or span of media time: `value / timescale` seconds.
///
/// The model is `CMTime` without its invalid and infinite states: a `MediaTime` is always a finite,
/// exact rational, and absence is spelled `Optional`. Values with different timescales compare and
/// combine exactly: `MediaTime(value: 1, timescale: 2) == MediaTime(value: 500, timescale: 1000)`.
///
/// Arithmetic never wraps and never traps. The throwing forms (`adding(_:)`, `subtracting(_:)`,
/// `multiplied(by:)`) are exact or throw `MediaTimeError.overflow`. The operators `+` and `-` are
/// exact whenever the result fits (the usual case), and otherwise round as documented on `+`:
/// to the nearest tick of the finer timescale when the two share no timescale within `Int32`,
/// and they saturate at ±`Int64.max` seconds.
///
/// ```swift
/// let frame = MediaTime(value: 1001, timescale: 30000)   // one 29.97 fps frame
/// let t = try MediaTime(parsing: "10.010")                // 10010/1000, exactly
/// (t + frame).formatted(.milliseconds)                    // "00:10.043"
/// ```
public struct MediaTime: Sendable {
    /// The numerator: a count of `1/timescale` second ticks.
    public let value: Int64
    /// Ticks per second; always greater than zero.
    public let timescale: Int32

    /// Creates `value / timescale` seconds. `timescale` must be greater than zero.
    ///
    /// - Parameters:
    ///   - value: The number of ticks.
    ///   - timescale: Ticks per second, greater than zero.
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be > 0, got \(timescale)")
        self.value = value
        self.timescale = timescale
    }

    /// Creates a whole number of seconds.
    ///
    /// - Parameter seconds: The number of seconds.
    public init(seconds: Int64) {
        self.init(value: seconds, timescale: 1)
    }

    /// Creates `value / timescale` seconds, or throws `.invalidTimescale` when `timescale <= 0`.
    ///
    /// - Parameters:
    ///   - value: The number of ticks.
    ///   - timescale: Ticks per second, in `1...Int32.max`.
    /// - Returns: `value / timescale` seconds.
    /// - Throws: `MediaTimeError.invalidTimescale` when `timescale` is outside `1...Int32.max`.
    public static func checked(value: Int64, timescale: Int64) throws(MediaTimeError) -> MediaTime {
        guard timescale > 0, timescale <= Int64(Int32.max) else { throw .invalidTimescale(timescale) }
        return MediaTime(value: value, timescale: Int32(timescale))
    }

    public static let zero = MediaTime(value: 0, timescale: 1)

    public var isNegative: Bool { value < 0 }
    public var isZero: Bool { value == 0 }

    /// The same time in lowest terms (`500/1000` -> `1/2`).
    public var reduced: MediaTime {
        let divisor = gcd(value.magnitude, UInt64(timescale))
        guard divisor > 1 else { return self }
        return MediaTime(value: value / Int64(divisor), timescale: timescale / Int32(divisor))
    }

    /// The time in seconds as a `Double`: for display and logs only, never for placing a frame.
    public var seconds: Double { Double(value) / Double(timescale) }
}

/// Why a time could not be made or computed.
public enum MediaTimeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The exact result does not fit an `Int64` value over an `Int32` timescale.
    case overflow(String)
    /// A timescale must be in `1...Int32.max`.
    case invalidTimescale(Int64)
    /// The text is not a decimal number or a `value/timescale` rational.
    case malformed(text: String, reason: String)
    /// The text is a valid number that needs a finer timescale than `Int32` can hold.
    case tooPrecise(text: String)

    public var description: String {
        switch self {
        case .overflow(let what): return "time overflow: \(what)"
        case .invalidTimescale(let t): return "invalid timescale \(t) (must be 1...\(Int32.max))"
        case .malformed(let text, let reason): return "malformed time '\(text)': \(reason)"
        case .tooPrecise(let text):
            return "time '\(text)' is more precise than a 32-bit timescale can hold (at most 9 decimal places)"
        }
    }
}

// MARK: - Comparison

extension MediaTime: Comparable, Hashable {
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.timescale == rhs.timescale { return lhs.value == rhs.value }
        return crossCompare(lhs, rhs) == 0
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.timescale == rhs.timescale { return lhs.value < rhs.value }
        return crossCompare(lhs, rhs) < 0
    }

    public func hash(into hasher: inout Hasher) {
        let r = reduced
        hasher.combine(r.value)
        hasher.combine(r.timescale)
    }

    /// Compares `a.value * b.timescale` with `b.value * a.timescale` in 128 bits: exact, no overflow.
    @inline(__always)
    private static func crossCompare(_ a: MediaTime, _ b: MediaTime) -> Int {
        let l = a.value.multipliedFullWidth(by: Int64(b.timescale))
        let r = b.value.multipliedFullWidth(by: Int64(a.timescale))
        if l.high != r.high { return l.high < r.high ? -1 : 1 }
        if l.low != r.low { return l.low < r.low ? -1 : 1 }
        return 0
    }
}

// MARK: - Arithmetic

extension MediaTime {
    /// `self + other`, exactly, in the least common timescale of the two.
    ///
    /// - Parameter other: The time to add.
    /// - Returns: The exact sum.
    /// - Throws: `MediaTimeError.overflow` when the common timescale or the sum does not fit.
    public func adding(_ other: MediaTime) throws(MediaTimeError) -> MediaTime {
        let (a, b) = try MediaTime.commonTimescale(self, other)
        let (sum, overflow) = a.value.addingReportingOverflow(b.value)
        guard !overflow else { throw .overflow("\(self) + \(other)") }
        return MediaTime(value: sum, timescale: a.timescale)
    }

    /// `self - other`, exactly, in the least common timescale of the two.
    ///
    /// - Parameter other: The time to subtract.
    /// - Returns: The exact difference.
    /// - Throws: `MediaTimeError.overflow` when the common timescale or the difference does not fit.
    public func subtracting(_ other: MediaTime) throws(MediaTimeError) -> MediaTime {
        let (a, b) = try MediaTime.commonTimescale(self, other)
        let (difference, overflow) = a.value.subtractingReportingOverflow(b.value)
        guard !overflow else { throw .overflow("\(self) - \(other)") }
        return MediaTime(value: difference, timescale: a.timescale)
    }

    /// `self * factor`, exactly.
    ///
    /// - Parameter factor: The multiplier.
    /// - Returns: The exact product, in this time's timescale.
    /// - Throws: `MediaTimeError.overflow` when the product does not fit an `Int64` value.
    public func multiplied(by factor: Int64) throws(MediaTimeError) -> MediaTime {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .overflow("\(self) * \(factor)") }
        return MediaTime(value: product, timescale: timescale)
    }

    /// `lhs + rhs`; never traps.
    ///
    /// - Exact, in the least common timescale of the two (of their lowest terms if need be), when
    ///   that timescale fits `Int32` and the value `Int64`: `1001/30000 + 1/10` is `4001/30000`.
    /// - Otherwise the exact sum rounded to the nearest tick of the finer (larger) of the two
    ///   timescales, halfway cases away from zero (CMTime's default rounding):
    ///   `1/1000000000 + 1001/30000` is `33366668/1000000000` (the exact sum is 33366667.67 ns).
    /// - When that value does not fit `Int64`, the nearest tick of the coarser timescale, then of
    ///   whole seconds; past ±`Int64.max` seconds (about 2.9 × 10^11 years) the result saturates at
    ///   `MediaTime(value: .max, timescale: 1)` or `MediaTime(value: .min, timescale: 1)`.
    ///
    /// Use `adding(_:)` to get exactness or an error instead.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if lhs.timescale == rhs.timescale {
            let (sum, overflow) = lhs.value.addingReportingOverflow(rhs.value)
            if !overflow { return MediaTime(value: sum, timescale: lhs.timescale) }
        } else if let exact = try? lhs.adding(rhs) {
            return exact
        }
        return roundedSum(lhs, rhs, subtracting: false)
    }

    /// `lhs - rhs`; never traps. Exact when the result fits, else rounded as `+` says:
    /// `MediaTime(value: 301301, timescale: 30000) - MediaTime(value: 12345678901, timescale: 1000000000)`
    /// is `-2302312234/1000000000`, the nearest nanosecond (the timescales 30000 and 10^9 have no
    /// common multiple within `Int32`).
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if lhs.timescale == rhs.timescale {
            let (difference, overflow) = lhs.value.subtractingReportingOverflow(rhs.value)
            if !overflow { return MediaTime(value: difference, timescale: lhs.timescale) }
        } else if let exact = try? lhs.subtracting(rhs) {
            return exact
        }
        return roundedSum(lhs, rhs, subtracting: true)
    }

    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// The negated time, in the same timescale; `-MediaTime(value: .min, timescale: t)` (whose
    /// magnitude no `Int64` holds) rounds as `-` does.
    public static prefix func - (time: MediaTime) -> MediaTime {
        MediaTime.zero - time
    }

    /// `a ± b` when no exact result fits: the exact sum `N / (a.timescale * b.timescale)`, with `N`
    /// in 128 bits, rounded to the finer timescale, the coarser, then whole seconds; else saturated.
    private static func roundedSum(_ a: MediaTime, _ b: MediaTime, subtracting: Bool) -> MediaTime {
        let ta = UInt64(a.timescale), tb = UInt64(b.timescale)
        var right = WideInt(b.value, times: Int64(a.timescale))
        if subtracting { right = right.negated }
        let numerator = WideInt(a.value, times: Int64(b.timescale)) + right
        // In timescale T the value is N * T / (ta * tb); each candidate makes that one division.
        let finer = Swift.max(a.timescale, b.timescale), coarser = Swift.min(a.timescale, b.timescale)
        for (scale, divisor) in [(finer, finer == a.timescale ? tb : ta), (coarser, coarser == a.timescale ? tb : ta), (1, ta * tb)] {
            if let ticks = numerator.divided(by: divisor) { return MediaTime(value: ticks, timescale: scale) }
        }
        return MediaTime(value: numerator.isNegative ? .min : .max, timescale: 1)
    }

    /// The sign of `t - (a + b) / 2`, exactly (in 128 bits): negative when `t` is nearer `a` than
    /// `b`, zero halfway, positive when nearer `b` (for `a <= t <= b`). For a nearest-boundary
    /// search whose differences `t - a` and `b - t` may have no common timescale within `Int32`.
    package static func signOfOffset(_ t: MediaTime, fromMidpointOf a: MediaTime, and b: MediaTime) -> Int {
        // 2t - (a + b) over the common denominator t.ts * a.ts * b.ts: compare 2 * t.v * a.ts * b.ts
        // with (a.v * b.ts + b.v * a.ts) * t.ts; both magnitudes are below 2^126.
        let twiceT = WideInt(t.value, times: 2 * Int64(a.timescale) * Int64(b.timescale))
        let sum = (WideInt(a.value, times: Int64(b.timescale)) + WideInt(b.value, times: Int64(a.timescale)))
            .multiplied(by: UInt64(t.timescale))
        return twiceT == sum ? 0 : (twiceT < sum ? -1 : 1)
    }

    /// Both times over their least common timescale; when that timescale would not fit an `Int32`,
    /// tries lowest terms first, then reports overflow.
    static func commonTimescale(_ a: MediaTime, _ b: MediaTime) throws(MediaTimeError) -> (MediaTime, MediaTime) {
        if a.timescale == b.timescale { return (a, b) }
        if let pair = try? rescaledToLCM(a, b) { return pair }
        let (ra, rb) = (a.reduced, b.reduced)
        if ra.timescale == rb.timescale { return (ra, rb) }
        do { return try rescaledToLCM(ra, rb) } catch { throw .overflow("no common timescale for \(a) and \(b)") }
    }

    private static func rescaledToLCM(_ a: MediaTime, _ b: MediaTime) throws(MediaTimeError) -> (MediaTime, MediaTime) {
        let divisor = gcd(UInt64(a.timescale), UInt64(b.timescale))
        let lcm = UInt64(a.timescale) / divisor * UInt64(b.timescale)
        guard lcm <= UInt64(Int32.max) else { throw .overflow("lcm of \(a.timescale) and \(b.timescale)") }
        let scale = Int32(lcm)
        let (va, oa) = a.value.multipliedReportingOverflow(by: Int64(scale / a.timescale))
        let (vb, ob) = b.value.multipliedReportingOverflow(by: Int64(scale / b.timescale))
        guard !oa, !ob else { throw .overflow("rescaling \(a) and \(b) to timescale \(scale)") }
        return (MediaTime(value: va, timescale: scale), MediaTime(value: vb, timescale: scale))
    }

    /// The earlier of two times.
    ///
    /// - Parameters:
    ///   - a: A time.
    ///   - b: Another time.
    /// - Returns: `a` or `b`, whichever is earlier (`a` when they are equal).
    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }
    /// The later of two times.
    ///
    /// - Parameters:
    ///   - a: A time.
    ///   - b: Another time.
    /// - Returns: `a` or `b`, whichever is later (`a` when they are equal).
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }
}

// MARK: - Conversion

extension MediaTime {
    /// The time in `newTimescale` ticks, rounded by `rule` when it is not a whole number of ticks.
    ///
    /// `MediaTime(value: 1001, timescale: 30000).converted(to: 1000, rounding: .down)` is `33/1000`.
    ///
    /// - Parameters:
    ///   - newTimescale: Ticks per second of the result, greater than zero.
    ///   - rule: How a time between two ticks is rounded.
    /// - Returns: The time in `newTimescale` ticks.
    /// - Throws: `MediaTimeError.invalidTimescale` when `newTimescale` is not positive,
    ///   `MediaTimeError.overflow` when the result does not fit an `Int64` value.
    public func converted(
        to newTimescale: Int32, rounding rule: FloatingPointRoundingRule
    ) throws(MediaTimeError) -> MediaTime {
        guard newTimescale > 0 else { throw .invalidTimescale(Int64(newTimescale)) }
        if newTimescale == timescale { return self }
        let ticks = try MediaTime.divide(
            value, times: Int64(newTimescale), by: Int64(timescale), rounding: rule)
        return MediaTime(value: ticks, timescale: newTimescale)
    }

    /// `value * numerator / denominator` rounded by `rule`, exact in 128 bits; `denominator > 0`.
    package static func divide(
        _ value: Int64, times numerator: Int64, by denominator: Int64, rounding rule: FloatingPointRoundingRule
    ) throws(MediaTimeError) -> Int64 {
        precondition(numerator >= 0 && denominator > 0)
        let negative = value < 0
        let product = value.magnitude.multipliedFullWidth(by: numerator.magnitude)
        let d = denominator.magnitude
        guard product.high < d else { throw .overflow("\(value) * \(numerator) / \(denominator)") }
        var (quotient, remainder) = d.dividingFullWidth(product)
        if remainder != 0 {
            let roundsAway: Bool
            switch rule {
            case .towardZero: roundsAway = false
            case .awayFromZero: roundsAway = true
            case .down: roundsAway = negative
            case .up: roundsAway = !negative
            case .toNearestOrAwayFromZero: roundsAway = remainder >= d - remainder
            case .toNearestOrEven:
                roundsAway = remainder > d - remainder || (remainder == d - remainder && quotient & 1 == 1)
            @unknown default: roundsAway = remainder >= d - remainder
            }
            if roundsAway {
                let (q, o) = quotient.addingReportingOverflow(1)
                guard !o else { throw .overflow("\(value) * \(numerator) / \(denominator)") }
                quotient = q
            }
        }
        if negative {
            guard quotient <= UInt64(Int64.max) + 1 else { throw .overflow("\(value) * \(numerator) / \(denominator)") }
            return quotient == UInt64(Int64.max) + 1 ? Int64.min : -Int64(quotient)
        }
        guard quotient <= UInt64(Int64.max) else { throw .overflow("\(value) * \(numerator) / \(denominator)") }
        return Int64(quotient)
    }

    /// Whole seconds, rounded by `rule`.
    ///
    /// - Parameter rule: How a time between two seconds is rounded (toward zero by default).
    /// - Returns: The number of whole seconds.
    public func wholeSeconds(rounding rule: FloatingPointRoundingRule = .towardZero) -> Int64 {
        // Cannot overflow: dividing by a timescale >= 1 only shrinks the magnitude.
        (try? MediaTime.divide(value, times: 1, by: Int64(timescale), rounding: rule)) ?? 0
    }
}

/// A signed 128-bit integer in two's complement, for the few exact computations whose products
/// outgrow 64 bits. (The standard library's `Int128` needs macOS 15 and iOS 18; this package
/// supports older systems.)
struct WideInt: Equatable, Comparable {
    var high: Int64
    var low: UInt64

    /// `a * b`, exactly.
    init(_ a: Int64, times b: Int64) {
        (high, low) = a.multipliedFullWidth(by: b)
    }

    private init(high: Int64, low: UInt64) {
        self.high = high
        self.low = low
    }

    var isNegative: Bool { high < 0 }

    /// Wraps past 2^127; callers keep their magnitudes far below (sums of 96-bit products).
    static func + (a: WideInt, b: WideInt) -> WideInt {
        let (low, carry) = a.low.addingReportingOverflow(b.low)
        return WideInt(high: a.high &+ b.high &+ (carry ? 1 : 0), low: low)
    }

    var negated: WideInt {
        WideInt(high: ~high &+ (low == 0 ? 1 : 0), low: ~low &+ 1)
    }

    /// The magnitude as two 64-bit halves (2^127 fits: the high half is unsigned).
    private var magnitude: (high: UInt64, low: UInt64) {
        let positive = isNegative ? negated : self
        return (UInt64(bitPattern: positive.high), positive.low)
    }

    /// `self * m`; wraps past 2^127, so callers keep the product below it.
    func multiplied(by m: UInt64) -> WideInt {
        let (high, low) = magnitude
        let lowProduct = low.multipliedFullWidth(by: m)
        let highProduct = high &* m
        let product = WideInt(high: Int64(bitPattern: highProduct &+ lowProduct.high), low: lowProduct.low)
        return isNegative ? product.negated : product
    }

    /// `self / divisor` rounded to the nearest integer, halfway away from zero; `nil` when that
    /// does not fit `Int64`. `divisor` must be positive.
    func divided(by divisor: UInt64) -> Int64? {
        let (high, low) = magnitude
        guard divisor > 0, high < divisor else { return nil }
        var (quotient, remainder) = divisor.dividingFullWidth((high, low))
        if remainder >= divisor - remainder {
            let (rounded, overflow) = quotient.addingReportingOverflow(1)
            guard !overflow else { return nil }
            quotient = rounded
        }
        if isNegative {
            guard quotient <= UInt64(Int64.max) + 1 else { return nil }
            return quotient == UInt64(Int64.max) + 1 ? .min : -Int64(quotient)
        }
        return quotient <= UInt64(Int64.max) ? Int64(quotient) : nil
    }

    static func < (a: WideInt, b: WideInt) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}

@inline(__always)
package func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    // Binary (Stein's): shifts and subtractions instead of divisions; every time printed is reduced.
    guard a != 0 else { return b }
    guard b != 0 else { return a }
    let shift = (a | b).trailingZeroBitCount
    var a = a >> a.trailingZeroBitCount
    var b = b
    repeat {
        b >>= b.trailingZeroBitCount
        if a > b { swap(&a, &b) }
        b -= a
    } while b != 0
    return a << shift
}
