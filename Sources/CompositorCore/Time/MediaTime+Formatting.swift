extension MediaTime: CustomStringConvertible {
    /// Seconds as an exact decimal when one exists (`"8.5"`, `"-0.04"`), otherwise the rational in
    /// lowest terms (`"1001/30000"`). Always exact, so a message never rounds a time into
    /// something untrue (`1/2147483647` is not `"0"`). Meant for messages and logs.
    public var description: String {
        if let decimal = exactDecimalString { return decimal }
        let r = reduced
        return "\(r.value)/\(r.timescale)"
    }

    /// Seconds as an exact decimal, or `nil` when the timescale has prime factors other than 2 and 5
    /// (or needs more than 18 fractional digits).
    public var exactDecimalString: String? {
        var text: String?
        withExactDecimal { text = String(decoding: $0, as: UTF8.self) }
        return text
    }

    /// Calls `body` with `exactDecimalString`'s ASCII bytes, written on the stack (a timeline
    /// prints hundreds of thousands of times: none needs a string); returns false, without calling
    /// it, when there is no exact decimal.
    @discardableResult
    package func withExactDecimal(_ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        // Over a timescale of 2s and 5s only (milliseconds, say) the digits come out without
        // reducing first: trailing zeros are dropped instead, which gives the reduced form's digits.
        if MediaTime.writeDecimal(value, over: timescale, body) { return true }
        let r = reduced
        return r.timescale != timescale && MediaTime.writeDecimal(r.value, over: r.timescale, body)
    }

    /// `value / timescale` in decimal without trailing zeros, when the timescale has no prime
    /// factor but 2 and 5, the decimal needs at most 18 fractional digits and its ticks fit 64 bits.
    private static func writeDecimal(
        _ value: Int64, over timescale: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) -> Bool {
        // In 32 bits, as the timescale is: this runs for every time a timeline prints.
        let twos = timescale.trailingZeroBitCount
        var scale = UInt32(timescale) >> twos
        var fives = 0
        while scale % 5 == 0 { scale /= 5; fives += 1 }
        var fractionDigits = Swift.max(twos, fives)
        guard scale == 1, fractionDigits <= 18 else { return false }
        var unit: Int64 = 1
        for _ in 0..<fractionDigits { unit *= 10 }
        // Exact: timescale divides unit. Only the value's magnitude can overflow.
        let (ticks, overflow) = value.multipliedReportingOverflow(by: unit / Int64(timescale))
        guard !overflow else { return false }
        let whole = ticks.magnitude / UInt64(unit)
        var fraction = ticks.magnitude % UInt64(unit)
        while fractionDigits > 0, fraction % 10 == 0 { fraction /= 10; fractionDigits -= 1 }
        var wholeDigits = 1
        var rest = whole / 10
        while rest > 0 { wholeDigits += 1; rest /= 10 }
        let sign = ticks < 0 ? 1 : 0
        let length = sign + wholeDigits + (fractionDigits > 0 ? 1 + fractionDigits : 0)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { bytes in
            var end = length
            for _ in 0..<fractionDigits {
                end -= 1
                bytes[end] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            if fractionDigits > 0 { end -= 1; bytes[end] = UInt8(ascii: ".") }
            var digits = whole
            repeat {
                end -= 1
                bytes[end] = UInt8(ascii: "0") + UInt8(digits % 10)
                digits /= 10
            } while digits > 0
            if sign == 1 { bytes[0] = UInt8(ascii: "-") }
            body(UnsafeBufferPointer(bytes))
            return true
        }
    }

    /// How a clock reading is written.
    public enum ClockStyle: Sendable {
        /// Whole seconds, rounded down: `"00:23"`, `"1:02:03"`.
        case seconds
        /// Milliseconds, rounded down: `"00:23.040"`, `"1:02:03.500"`.
        case milliseconds
    }

    /// A clock reading: `"MM:SS"` under an hour, `"H:MM:SS"` from an hour on (or always, with
    /// `alwaysShowHours`), and `".mmm"` with `.milliseconds`. Negative times get a leading `-`.
    ///
    /// `MediaTime(seconds: 3723).formatted()` is `"1:02:03"`; `MediaTime(seconds: 23).formatted()` is `"00:23"`.
    ///
    /// - Parameters:
    ///   - style: Whole seconds (the default) or milliseconds, both rounded down.
    ///   - alwaysShowHours: Whether to write the hours under an hour too (`"0:00:23"`).
    /// - Returns: The clock reading.
    public func formatted(_ style: ClockStyle = .seconds, alwaysShowHours: Bool = false) -> String {
        // Whole seconds and the remainder's milliseconds separately, so no product can overflow.
        let negative = value < 0
        let total = value.magnitude / UInt64(timescale)
        let millis = value.magnitude % UInt64(timescale) * 1000 / UInt64(timescale)
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        func twoDigits(_ n: UInt64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = negative && (total > 0 || millis > 0 && style == .milliseconds) ? "-" : ""
        if hours > 0 || alwaysShowHours {
            text += "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))"
        } else {
            text += "\(twoDigits(minutes)):\(twoDigits(secs))"
        }
        if style == .milliseconds {
            text += "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + String(millis)
        }
        return text
    }
}
