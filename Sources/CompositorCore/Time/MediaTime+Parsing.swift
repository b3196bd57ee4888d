extension MediaTime {
    /// Parses a time exactly, without passing through `Double`.
    ///
    /// Accepts a decimal number of seconds as JSON writes it (`"10.010"` equals `10010/1000`, `"-2"`,
    /// `"1.5e-3"`), kept in lowest terms over a timescale of 2^a * 5^b, or a rational
    /// `"value/timescale"` (`"1001/30000"`), kept as written. A decimal that needs a timescale past
    /// `Int32.max` throws `.tooPrecise`; anything else that is not such a number throws `.malformed`.
    ///
    /// - Parameter text: A decimal number of seconds, or `"value/timescale"`.
    /// - Throws: `MediaTimeError.tooPrecise` or `MediaTimeError.malformed`, as above.
    public init(parsing text: some StringProtocol) throws(MediaTimeError) {
        let utf8 = Array(text.utf8)
        if let slash = utf8.firstIndex(of: UInt8(ascii: "/")) {
            let value = try MediaTime.parseInteger(utf8[..<slash], in: text)
            let timescale = try MediaTime.parseInteger(utf8[(slash + 1)...], in: text)
            guard timescale > 0, timescale <= Int64(Int32.max) else {
                throw .malformed(text: String(text), reason: "timescale must be 1...\(Int32.max)")
            }
            self.init(value: value, timescale: Int32(timescale))
        } else {
            self = try MediaTime.parseDecimal(utf8, text: String(text))
        }
    }

    private static func parseInteger(_ bytes: ArraySlice<UInt8>, in text: some StringProtocol) throws(MediaTimeError) -> Int64 {
        var index = bytes.startIndex
        let negative = index < bytes.endIndex && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.endIndex else { throw .malformed(text: String(text), reason: "missing digits") }
        var magnitude: UInt64 = 0
        while index < bytes.endIndex {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw .malformed(text: String(text), reason: "unexpected character") }
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2, s <= UInt64(Int64.max) else { throw .overflow("'\(text)' does not fit 64 bits") }
            magnitude = s
            index += 1
        }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }

    /// JSON's number grammar: `-? digits (. digits)? ([eE] [+-]? digits)?`.
    private static func parseDecimal(_ bytes: [UInt8], text: String) throws(MediaTimeError) -> MediaTime {
        var index = 0
        func malformed(_ reason: String) -> MediaTimeError { .malformed(text: text, reason: reason) }
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }

        // Significant digits, with the count of those after the point.
        var digits: [UInt8] = []
        var fractionDigits = 0
        var sawIntegerDigit = false
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            digits.append(bytes[index] - UInt8(ascii: "0")); sawIntegerDigit = true; index += 1
        }
        guard sawIntegerDigit else { throw malformed(bytes.isEmpty ? "empty" : "expected a digit") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                digits.append(bytes[index] - UInt8(ascii: "0")); fractionDigits += 1; index += 1
            }
            guard index > start else { throw malformed("expected a digit after '.'") }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-"); index += 1
            }
            let start = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                exponent = Swift.min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 100_000)
                index += 1
            }
            guard index > start else { throw malformed("expected a digit in the exponent") }
            if exponentNegative { exponent = -exponent }
        }
        guard index == bytes.count else { throw malformed("unexpected character") }

        // value = digits * 10^(exponent - fractionDigits); drop leading and trailing zeros first.
        var power = exponent - fractionDigits
        while let last = digits.last, last == 0, digits.count > 1 { digits.removeLast(); power += 1 }
        if let first = digits.firstIndex(where: { $0 != 0 }) { digits.removeFirst(first) } else { return .zero }
        guard digits.count <= 18 else {
            throw power < 0 ? .tooPrecise(text: text) : .overflow("'\(text)' does not fit 64 bits")
        }
        var magnitude: Int64 = digits.reduce(0) { $0 * 10 + Int64($1) }
        var timescale: Int64 = 1
        if power >= 0 {
            for _ in 0..<power {
                let (m, o) = magnitude.multipliedReportingOverflow(by: 10)
                guard !o else { throw .overflow("'\(text)' does not fit 64 bits") }
                magnitude = m
            }
        } else {
            // Strip common factors of 2 and 5 so 0.5000000000 still fits; 10^-power must fit Int32.
            var twos = -power, fives = -power
            while twos > 0, magnitude % 2 == 0 { magnitude /= 2; twos -= 1 }
            while fives > 0, magnitude % 5 == 0 { magnitude /= 5; fives -= 1 }
            for _ in 0..<twos { timescale *= 2; guard timescale <= Int64(Int32.max) else { throw .tooPrecise(text: text) } }
            for _ in 0..<fives { timescale *= 5; guard timescale <= Int64(Int32.max) else { throw .tooPrecise(text: text) } }
        }
        return MediaTime(value: negative ? -magnitude : magnitude, timescale: Int32(timescale))
    }
}
