import CompositorCore

/// A point in an ad given as VAST gives `skipoffset` and `progress` offsets: a time (`HH:MM:SS.mmm`)
/// or a percentage of the ad's duration (`25%`), both exact.
public enum VASTOffset: Hashable, Sendable {
    /// A time from the ad's start.
    case time(MediaTime)
    /// A fraction of the ad's duration, in hundredths of a percent (`12.5%` is 1250; 10,000 is the whole).
    case fraction(basisPoints: Int)

    /// Reads `HH:MM:SS`, `HH:MM:SS.mmm` or `n%` (up to two decimals, 0 to 100), or nil when `text`
    /// is neither form.
    ///
    /// - Parameter text: The attribute's value.
    public init?(parsing text: String) {
        if text.hasSuffix("%") {
            guard let basisPoints = VASTOffset.basisPoints(text.dropLast()), basisPoints <= 10_000 else { return nil }
            self = .fraction(basisPoints: basisPoints)
        } else if let time = VASTTime.parse(text) {
            self = .time(time)
        } else {
            return nil
        }
    }

    /// The time from the ad's start this offset names in an ad of `duration`: exact where the
    /// timescale allows (a quarter of 10.010 s is 10010/4000 s), else rounded up to the next tick of
    /// `duration`'s timescale (the first instant the ad has played that much).
    ///
    /// - Parameter duration: The ad's duration.
    /// - Returns: The time into the ad.
    public func time(inAdOf duration: MediaTime) -> MediaTime {
        switch self {
        case .time(let time): return time
        case .fraction(let basisPoints):
            let divisor = Int64(gcd(UInt64(basisPoints), 10_000))
            let (numerator, denominator) = (Int64(basisPoints) / divisor, 10_000 / divisor)
            let (timescale, overflow) = Int64(duration.timescale).multipliedReportingOverflow(by: denominator)
            let (value, valueOverflow) = duration.value.multipliedReportingOverflow(by: numerator)
            if !overflow, !valueOverflow, timescale <= Int64(Int32.max) {
                return MediaTime(value: value, timescale: Int32(timescale)).reduced
            }
            let ticks = (try? MediaTime.divide(duration.value, times: numerator, by: denominator, rounding: .up)) ?? duration.value
            return MediaTime(value: ticks, timescale: duration.timescale)
        }
    }

    /// `"12.5"` as 1250 hundredths; nil for anything else or more than two decimals.
    private static func basisPoints(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 3, whole.allSatisfy(\.isASCIIDigit),
              let wholeValue = Int(whole) else { return nil }
        var fraction = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 2, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits) else { return nil }
            fraction = digits.count == 1 ? value * 10 : value
        }
        return wholeValue * 100 + fraction
    }
}

extension VASTOffset: CustomStringConvertible {
    public var description: String {
        switch self {
        case .time(let time): return VASTTime.format(time)
        case .fraction(let basisPoints):
            return basisPoints % 100 == 0 ? "\(basisPoints / 100)%" : "\(basisPoints / 100).\(twoDigits(basisPoints % 100))%"
        }
    }
}

/// `n` with at least two digits.
func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// VAST's clock times: `HH:MM:SS` or `HH:MM:SS.mmm` (any number of decimals), exact.
enum VASTTime {
    /// The time `text` names, or nil.
    static func parse(_ text: String) -> MediaTime? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        let secondsParts = fields[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard (1...4).contains(fields[0].count), fields[0].allSatisfy(\.isASCIIDigit),
              fields[1].count == 2, fields[1].allSatisfy(\.isASCIIDigit),
              secondsParts[0].count == 2, secondsParts[0].allSatisfy(\.isASCIIDigit),
              let hours = Int64(fields[0]), let minutes = Int64(fields[1]), let seconds = Int64(secondsParts[0]),
              minutes < 60, seconds < 60 else { return nil }
        var decimal = "\(hours * 3600 + minutes * 60 + seconds)"
        if secondsParts.count == 2 {
            let fraction = secondsParts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            decimal += "." + fraction
        }
        return try? MediaTime(parsing: decimal)
    }

    /// `HH:MM:SS.mmm`, milliseconds rounded down.
    static func format(_ time: MediaTime) -> String {
        let millis = (try? time.converted(to: 1000, rounding: .down).value) ?? 0
        let seconds = millis / 1000
        return "\(twoDigits(Int(seconds / 3600))):\(twoDigits(Int(seconds / 60 % 60))):\(twoDigits(Int(seconds % 60)))"
            + ".\(String(millis % 1000 + 1000).dropFirst())"
    }
}
