import CompositorCore

extension MediaTime {
    /// Reads an HLS `decimal-floating-point` from bytes: digits and at most one `.`, at least one
    /// digit (`10`, `10.010`, `.5`, `5.`), never negative, no exponent. Returns `nil` when the text
    /// is not such a number, and throws `.overflow` when its whole seconds do not fit 64 bits.
    ///
    /// The value is exact whenever a timescale up to `Int32.max` holds it: `"10.010"` is
    /// `10010/1000`, and so is any number of decimals that reduces that far (`"0.0000000005"` is
    /// `1/2000000000`). Otherwise (`"2.002002002002002"`) it is rounded to the nearest nanosecond,
    /// halves up. `keepsText` says when the time cannot be written back as it reads: rounded, or
    /// exact with more decimals than `hlsDecimalString` writes (over 18, `"0.00000095367431640625"`);
    /// the caller then keeps the text. `roundedSeconds` is the number rounded to whole seconds,
    /// halves up, from its digits (how RFC 8216 compares an `EXTINF` with the target duration):
    /// `"4.4999999999999"` is 4, though its time, to the nanosecond, is 4.5.
    ///
    /// The fast path (at most 9 fractional digits, the case of almost every playlist) allocates nothing.
    static func parseHLSDecimal(
        _ bytes: HLSByteView, _ from: Int, _ to: Int
    ) throws(MediaTimeError) -> (time: MediaTime, keepsText: Bool, roundedSeconds: Int64)? {
        var i = from
        var value: Int64 = 0
        func append(_ digit: UInt8) throws(MediaTimeError) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { throw .overflow("'\(bytes.string(from, to))' does not fit 64 bits") }
            value = s
        }
        while i < to, bytes[i] &- 48 < 10 {
            try append(bytes[i] - 48)
            i += 1
        }
        let integerDigits = i - from
        if i == to {
            guard integerDigits > 0 else { return nil }
            return (MediaTime(value: value, timescale: 1), false, value)
        }
        guard bytes[i] == UInt8(ascii: ".") else { return nil }
        let fractionStart = i + 1
        i = fractionStart
        while i < to, bytes[i] &- 48 < 10 { i += 1 }
        guard i == to, integerDigits > 0 || i > fractionStart else { return nil }
        // Halves up, from the digits (exact where the time below is rounded to the nanosecond).
        let (roundedSeconds, roundingOverflow) = value.addingReportingOverflow(
            fractionStart < to && bytes[fractionStart] >= UInt8(ascii: "5") ? 1 : 0)
        guard !roundingOverflow else { throw .overflow("'\(bytes.string(from, to))' does not fit 64 bits") }
        // Trailing zeros say nothing: `2.002000` is `2.002`.
        var fractionEnd = to
        while fractionEnd > fractionStart, bytes[fractionEnd - 1] == UInt8(ascii: "0") { fractionEnd -= 1 }
        let nanosecondEnd = Swift.min(fractionEnd, fractionStart + 9)
        var timescale: Int64 = 1
        for k in fractionStart..<nanosecondEnd {
            try append(bytes[k] - 48)
            timescale *= 10
        }
        if fractionEnd == nanosecondEnd { return (MediaTime(value: value, timescale: Int32(timescale)), false, roundedSeconds) }
        // Past nine digits: exact if the value reduces to a timescale within `Int32`.
        do {
            let exact = try MediaTime(parsing: "0" + bytes.string(from, fractionEnd))
            return (exact, exact.exactDecimalString == nil, roundedSeconds)
        } catch {
            guard case .tooPrecise = error else { throw error }
        }
        if bytes[nanosecondEnd] >= UInt8(ascii: "5") {
            let (s, o) = value.addingReportingOverflow(1)
            guard !o else { throw .overflow("'\(bytes.string(from, to))' does not fit 64 bits") }
            value = s
        }
        return (MediaTime(value: value, timescale: 1_000_000_000), true, roundedSeconds)
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
    var roundedToNearestSecond: Int64 {
        guard value >= 0 else { return wholeSeconds(rounding: .toNearestOrAwayFromZero) }
        // Every `EXTINF` is here: non-negative, so halves up is a comparison of the remainder.
        let (whole, remainder) = value.quotientAndRemainder(dividingBy: Int64(timescale))
        return remainder >= Int64(timescale) - remainder ? whole + 1 : whole
    }
}
