/// An exact instant or span of media time: `value / timescale` seconds.
///
/// The model is `CMTime` without its invalid and infinite states: a `MediaTime` is always a finite,
/// exact rational, and absence is spelled `Optional`. Values with different timescales compare and
/// combine exactly: `MediaTime(value: 1, timescale: 2) == MediaTime(value: 500, timescale: 1000)`.
///
/// Arithmetic never wraps. The throwing forms (`adding(_:)`, `subtracting(_:)`, `multiplied(by:)`)
/// report overflow as `MediaTimeError.overflow`; the operators trap on it, as `Int` does.
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
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be > 0, got \(timescale)")
        self.value = value
        self.timescale = timescale
    }

    /// Creates a whole number of seconds.
    public init(seconds: Int64) {
        self.init(value: seconds, timescale: 1)
    }

    /// Creates `value / timescale` seconds, or throws `.invalidTimescale` when `timescale <= 0`.
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
    public func adding(_ other: MediaTime) throws(MediaTimeError) -> MediaTime {
        let (a, b) = try MediaTime.commonTimescale(self, other)
        let (sum, overflow) = a.value.addingReportingOverflow(b.value)
        guard !overflow else { throw .overflow("\(self) + \(other)") }
        return MediaTime(value: sum, timescale: a.timescale)
    }

    /// `self - other`, exactly, in the least common timescale of the two.
    public func subtracting(_ other: MediaTime) throws(MediaTimeError) -> MediaTime {
        let (a, b) = try MediaTime.commonTimescale(self, other)
        let (difference, overflow) = a.value.subtractingReportingOverflow(b.value)
        guard !overflow else { throw .overflow("\(self) - \(other)") }
        return MediaTime(value: difference, timescale: a.timescale)
    }

    /// `self * factor`, exactly.
    public func multiplied(by factor: Int64) throws(MediaTimeError) -> MediaTime {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .overflow("\(self) * \(factor)") }
        return MediaTime(value: product, timescale: timescale)
    }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        do { return try lhs.adding(rhs) } catch { preconditionFailure(error.description) }
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        do { return try lhs.subtracting(rhs) } catch { preconditionFailure(error.description) }
    }

    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    public static prefix func - (time: MediaTime) -> MediaTime {
        MediaTime.zero - time
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

    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }
}

// MARK: - Conversion

extension MediaTime {
    /// The time in `newTimescale` ticks, rounded by `rule` when it is not a whole number of ticks.
    ///
    /// `MediaTime(value: 1001, timescale: 30000).converted(to: 1000, rounding: .down)` is `33/1000`.
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
    public func wholeSeconds(rounding rule: FloatingPointRoundingRule = .towardZero) -> Int64 {
        // Cannot overflow: dividing by a timescale >= 1 only shrinks the magnitude.
        (try? MediaTime.divide(value, times: 1, by: Int64(timescale), rounding: rule)) ?? 0
    }
}

@inline(__always)
package func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
}
