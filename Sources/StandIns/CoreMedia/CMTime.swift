// Stand-in for CoreMedia's CMTime (CoreMedia/CMTime.h), for platforms without Apple's frameworks:
// the AVFoundation adapters compile and run against it on Linux. Only the surface the adapters
// and their tests use, with the semantics the header documents.
#if !canImport(CoreMedia)

/// `CMTimeValue` (CMTime.h): a signed 64-bit count of `timescale` units.
public typealias CMTimeValue = Int64
/// `CMTimeScale` (CMTime.h): units per second, a positive 32-bit integer.
public typealias CMTimeScale = Int32
/// `CMTimeEpoch` (CMTime.h).
public typealias CMTimeEpoch = Int64
/// `CMPersistentTrackID` (CMBase.h / CMFormatDescription.h).
public typealias CMPersistentTrackID = Int32
/// `kCMPersistentTrackID_Invalid`: 0 (CMFormatDescription.h).
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0
/// `kCMTimeMaxTimescale`: 1,000,000,000 (CMTime.h): arithmetic on times of different timescales
/// uses a common one no larger than this, rounding when it must.
public let kCMTimeMaxTimescale: Int32 = 1_000_000_000

/// `CMTimeFlags` (CMTime.h).
public struct CMTimeFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let valid = CMTimeFlags(rawValue: 1 << 0)
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)
}

/// `CMTime` (CMTime.h): a rational time, `value / timescale` seconds, or one of the special
/// values (invalid, ±infinity, indefinite). Comparison is exact across timescales
/// (`CMTimeCompare`); `+` and `-` use the least common timescale up to `kCMTimeMaxTimescale` and
/// round beyond it, setting `.hasBeenRounded` (`CMTimeAdd`, `CMTimeSubtract`).
public struct CMTime: Sendable, Comparable, CustomStringConvertible {
    public var value: CMTimeValue
    public var timescale: CMTimeScale
    public var flags: CMTimeFlags
    public var epoch: CMTimeEpoch

    public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// `CMTimeMake`: invalid when `timescale` is not positive, as the header says.
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self.init(value: value, timescale: timescale, flags: timescale > 0 ? .valid : [], epoch: 0)
    }

    /// `CMTimeMakeWithSeconds`: `seconds` rounded to the nearest unit of `preferredTimescale`.
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        guard seconds.isFinite, preferredTimescale > 0 else {
            self = seconds.isNaN || preferredTimescale <= 0 ? .invalid : (seconds > 0 ? .positiveInfinity : .negativeInfinity)
            return
        }
        let units = (seconds * Double(preferredTimescale)).rounded()
        guard let value = CMTimeValue(exactly: units) else {
            self = seconds > 0 ? .positiveInfinity : .negativeInfinity
            return
        }
        self.init(value: value, timescale: preferredTimescale)
    }

    public static let zero = CMTime(value: 0, timescale: 1)
    public static let invalid = CMTime(value: 0, timescale: 0, flags: [], epoch: 0)
    public static let positiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    public static let negativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)
    public static let indefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)

    public var isValid: Bool { flags.contains(.valid) }
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// `CMTIME_IS_NUMERIC`: valid, and not infinite or indefinite.
    public var isNumeric: Bool {
        isValid && flags.isDisjoint(with: [.positiveInfinity, .negativeInfinity, .indefinite])
    }
    public var seconds: Double {
        isNumeric ? Double(value) / Double(timescale) : (isPositiveInfinity ? .infinity : isNegativeInfinity ? -.infinity : .nan)
    }

    public var description: String {
        isNumeric ? "\(value)/\(timescale)" : isPositiveInfinity ? "+inf" : isNegativeInfinity ? "-inf" : isIndefinite ? "indefinite" : "invalid"
    }

    /// The order of `CMTimeCompare` as far as the adapters rely on it: numeric times exactly,
    /// the infinities at either end.
    private var rank: Int { !isValid ? 0 : isNegativeInfinity ? 1 : isNumeric ? 2 : isPositiveInfinity ? 3 : 4 }

    public static func < (a: CMTime, b: CMTime) -> Bool {
        guard a.rank == 2, b.rank == 2 else { return a.rank < b.rank }
        // a.value / a.timescale < b.value / b.timescale, exactly (128-bit cross products).
        let left = a.value.multipliedFullWidth(by: CMTimeValue(b.timescale))
        let right = b.value.multipliedFullWidth(by: CMTimeValue(a.timescale))
        return (left.high, left.low) < (right.high, right.low)
    }

    public static func == (a: CMTime, b: CMTime) -> Bool { !(a < b) && !(b < a) }

    public static func + (a: CMTime, b: CMTime) -> CMTime { sum(a, b) }
    public static func - (a: CMTime, b: CMTime) -> CMTime { sum(a, -b) }
    public static prefix func - (a: CMTime) -> CMTime {
        guard a.isNumeric else { return a.isPositiveInfinity ? .negativeInfinity : a.isNegativeInfinity ? .positiveInfinity : a }
        guard a.value != .min else { return .positiveInfinity }
        return CMTime(value: -a.value, timescale: a.timescale, flags: a.flags, epoch: a.epoch)
    }

    /// `CMTimeConvertScale`: the same time in `newTimescale` units, rounded by `method`; an
    /// infinity when the value no longer fits 64 bits.
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
        guard isNumeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        let scaled = Int128(value) * Int128(newTimescale)
        var (quotient, remainder) = scaled.quotientAndRemainder(dividingBy: Int128(timescale))
        if remainder != 0, method == .roundHalfAwayFromZero, remainder.magnitude * 2 >= UInt128(timescale) {
            quotient += scaled < 0 ? -1 : 1
        }
        guard let converted = CMTimeValue(exactly: quotient) else { return quotient > 0 ? .positiveInfinity : .negativeInfinity }
        return CMTime(value: converted, timescale: newTimescale,
                      flags: remainder == 0 ? flags : flags.union(.hasBeenRounded), epoch: epoch)
    }

    private static func sum(_ a: CMTime, _ b: CMTime) -> CMTime {
        guard a.isNumeric, b.isNumeric else {
            if !a.isValid || !b.isValid { return .invalid }
            if a.isIndefinite || b.isIndefinite { return .indefinite }
            if (a.isPositiveInfinity && b.isNegativeInfinity) || (a.isNegativeInfinity && b.isPositiveInfinity) { return .invalid }
            return a.isNumeric ? b : a
        }
        let common = commonTimescale(a.timescale, b.timescale)
        let x = a.convertScale(common, method: .roundHalfAwayFromZero)
        let y = b.convertScale(common, method: .roundHalfAwayFromZero)
        guard x.isNumeric, y.isNumeric else { return x.isNumeric ? y : x }
        let (total, overflow) = x.value.addingReportingOverflow(y.value)
        guard !overflow else { return x.value > 0 ? .positiveInfinity : .negativeInfinity }
        return CMTime(value: total, timescale: common, flags: x.flags.union(y.flags), epoch: a.epoch)
    }

    /// The least common multiple of two timescales, or `kCMTimeMaxTimescale` when it is larger.
    private static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b { return a }
        var (x, y) = (Int64(a), Int64(b))
        while y != 0 { (x, y) = (y, x % y) }
        let lcm = Int64(a) / x * Int64(b)
        return lcm <= Int64(kCMTimeMaxTimescale) ? Int32(lcm) : kCMTimeMaxTimescale
    }
}

/// `CMTimeRoundingMethod` (CMTime.h), the one the stand-in uses.
public enum CMTimeRoundingMethod: Sendable {
    case roundHalfAwayFromZero
    case roundTowardZero
}
#endif
