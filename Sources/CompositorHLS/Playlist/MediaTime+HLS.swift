import CompositorCore

extension MediaTime {
    /// Reads an HLS `decimal-floating-point` (`digits[.digits]`, never negative, no exponent) from
    /// bytes, exactly: `"10.010"` is `10010/1000`. Returns `nil` when the text is not such a number;
    /// throws when it is one that needs a timescale finer than `Int32` allows.
    ///
    /// The fast path (at most 9 fractional digits, the case of every real playlist) allocates nothing.
    static func parseHLSDecimal(_ bytes: HLSByteView, _ from: Int, _ to: Int) throws(MediaTimeError) -> MediaTime? {
        var i = from
        var value: Int64 = 0
        var integerDigits = 0
        while i < to, bytes[i] &- 48 < 10 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(bytes[i] - 48))
            guard !o1, !o2 else { throw .overflow("'\(bytes.string(from, to))' does not fit 64 bits") }
            value = s
            integerDigits += 1
            i += 1
        }
        guard integerDigits > 0 else { return nil }
        if i == to { return MediaTime(value: value, timescale: 1) }
        guard bytes[i] == UInt8(ascii: ".") else { return nil }
        i += 1
        let fractionStart = i
        var timescale: Int64 = 1
        while i < to, bytes[i] &- 48 < 10 {
            guard i - fractionStart < 9 else {
                // Past nine digits: the general parser strips trailing zeros and reduces exactly.
                var j = i
                while j < to, bytes[j] &- 48 < 10 { j += 1 }
                guard j == to else { return nil }
                return try MediaTime(parsing: bytes.string(from, to))
            }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(bytes[i] - 48))
            guard !o1, !o2 else { throw .overflow("'\(bytes.string(from, to))' does not fit 64 bits") }
            value = s
            timescale *= 10
            i += 1
        }
        guard i == to, i > fractionStart else { return nil }
        return MediaTime(value: value, timescale: Int32(timescale))
    }

    /// The time as an HLS decimal: exact when it has a finite decimal expansion (`"10.01"`, `"2"`),
    /// otherwise rounded to the nearest microsecond (`1001/30000` is `"0.033367"`), which is what a
    /// playlist can carry.
    var hlsDecimalString: String {
        if let exact = exactDecimalString { return exact }
        let micros = (try? converted(to: 1_000_000, rounding: .toNearestOrAwayFromZero)) ?? self
        return micros.exactDecimalString ?? String(seconds)
    }

    /// Whole seconds rounded to the nearest integer, halves up: how RFC 8216 compares an `EXTINF`
    /// with `EXT-X-TARGETDURATION`.
    var roundedToNearestSecond: Int64 { wholeSeconds(rounding: .toNearestOrAwayFromZero) }
}
