import CompositorCore

/// An ISO 8601 date-time as HLS writes them (`EXT-X-PROGRAM-DATE-TIME`, `START-DATE`):
/// `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm|±hhmm|±hh]`, held as an exact instant plus the zone
/// offset it was written in, so it is written back in the same zone.
///
/// RFC 8216 says a date-time SHOULD have a zone, not MUST: one without (`2024-05-01T12:00:00`) is
/// read as UTC, and written back without a zone, so the playlist still says what it said.
///
/// ```swift
/// let anchor = try HLSDateTime(parsing: "2024-05-01T12:00:00Z")
/// try anchor.adding(MediaTime(parsing: "90.5")).description   // "2024-05-01T12:01:30.500Z"
/// ```
package struct HLSDateTime: Hashable, Sendable, CustomStringConvertible {
    /// The instant: seconds since 1970-01-01T00:00:00Z, exact.
    package let secondsSinceEpoch: MediaTime
    /// The zone offset it is written in, in minutes east of UTC; `nil` when it was written without a
    /// zone (and is then read as UTC).
    package let utcOffsetMinutes: Int?

    package init(secondsSinceEpoch: MediaTime, utcOffsetMinutes: Int? = 0) {
        self.secondsSinceEpoch = secondsSinceEpoch
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// Why a date-time could not be read.
    package struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        package let text: String
        package let reason: String
        package var description: String { "invalid date-time '\(text)': \(reason)" }
    }

    package init(parsing text: String) throws(ParseError) {
        let bytes = Array(text.utf8)
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        var i = 0
        func number(_ digits: Int) throws(ParseError) -> Int64 {
            guard i + digits <= bytes.count else { throw fail("too short") }
            var n: Int64 = 0
            for k in i..<i + digits {
                let d = bytes[k] &- 48
                guard d < 10 else { throw fail("expected a digit at column \(k + 1)") }
                n = n * 10 + Int64(d)
            }
            i += digits
            return n
        }
        func expect(_ c: Unicode.Scalar, or lowercase: Unicode.Scalar? = nil) throws(ParseError) {
            guard i < bytes.count, UInt32(bytes[i]) == c.value || UInt32(bytes[i]) == lowercase?.value else {
                throw fail("expected '\(c)' at column \(i + 1)")
            }
            i += 1
        }
        let year = try number(4); try expect("-")
        let month = try number(2); try expect("-")
        let day = try number(2); try expect("T", or: "t")
        let hour = try number(2); try expect(":")
        let minute = try number(2); try expect(":")
        let second = try number(2)
        guard (1...12).contains(month), day >= 1, day <= HLSDateTime.daysIn(month: month, year: year),
              hour < 24, minute < 60, second <= 60 else { throw fail("field out of range") }
        var fraction = MediaTime.zero
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            let start = i
            i += 1
            while i < bytes.count, bytes[i] &- 48 < 10 { i += 1 }
            let digits = i - start - 1
            guard digits > 0 else { throw fail("expected digits after '.'") }
            if digits <= 9 {
                var ticks: Int64 = 0, timescale: Int32 = 1
                for k in start + 1..<i {
                    ticks = ticks * 10 + Int64(bytes[k] - 48)
                    timescale *= 10
                }
                fraction = MediaTime(value: ticks, timescale: timescale)
            } else {
                // Trailing zeros may still make it exact in nanoseconds.
                do {
                    fraction = try MediaTime(parsing: "0" + String(decoding: bytes[start..<i], as: UTF8.self))
                } catch { throw fail("fraction more precise than nanoseconds") }
            }
        }
        var offsetMinutes: Int64 = 0
        // Without a zone (RFC 8216 4.3.2.6: SHOULD have one) the time is read as UTC.
        let hasZone = i < bytes.count
        if !hasZone || bytes[i] == UInt8(ascii: "Z") || bytes[i] == UInt8(ascii: "z") {
            i += hasZone ? 1 : 0
        } else if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            let hours = try number(2)
            var minutes: Int64 = 0
            if i < bytes.count {
                if bytes[i] == UInt8(ascii: ":") { i += 1 }
                minutes = try number(2)
            }
            guard hours < 24, minutes < 60 else { throw fail("zone offset out of range") }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            throw fail("expected a time zone at column \(i + 1)")
        }
        guard i == bytes.count else { throw fail("unexpected text at column \(i + 1)") }
        let days = HLSDateTime.daysFromCivil(year: year, month: month, day: day)
        let local = days * 86_400 + hour * 3600 + minute * 60 + second
        // Nanoseconds since 1970 leave 64 bits after the year 2262: a later date with a fine
        // fraction is refused, not trapped on (and so is one whose local time, which
        // `description` computes, would not fit).
        do {
            secondsSinceEpoch = try MediaTime(seconds: local - offsetMinutes * 60).adding(fraction)
            _ = try secondsSinceEpoch.adding(MediaTime(seconds: offsetMinutes * 60))
        } catch {
            throw fail("the date with its fraction of a second is too far from 1970 to be exact in 64 bits")
        }
        utcOffsetMinutes = hasZone ? Int(offsetMinutes) : nil
    }

    /// The instant `offset` later, in the same zone.
    package func adding(_ offset: MediaTime) throws(MediaTimeError) -> HLSDateTime {
        HLSDateTime(secondsSinceEpoch: try secondsSinceEpoch.adding(offset), utcOffsetMinutes: utcOffsetMinutes)
    }

    /// `YYYY-MM-DDThh:mm:ss.fffZ` (or `±hh:mm`, or no zone when it was read without one): at least
    /// milliseconds, more digits when the instant needs them (up to nanoseconds; an instant between
    /// nanoseconds is rounded to the microsecond).
    package var description: String {
        var local = secondsSinceEpoch + MediaTime(seconds: Int64(utcOffsetMinutes ?? 0) * 60)
        if let text = millisecondText(local) { return text }
        if let text = local.exactDecimalString, let dot = text.firstIndex(of: "."),
           text.distance(from: dot, to: text.endIndex) - 1 > 9 {
            local = (try? local.converted(to: 1_000_000, rounding: .toNearestOrAwayFromZero)) ?? local
        } else if local.exactDecimalString == nil {
            local = (try? local.converted(to: 1_000_000, rounding: .toNearestOrAwayFromZero)) ?? local
        }
        let whole = local.wholeSeconds(rounding: .down)
        let fraction = local - MediaTime(seconds: whole)
        var fractionDigits = String(fraction.exactDecimalString?.drop(while: { $0 != "." }).dropFirst() ?? "")
        while fractionDigits.count < 3 { fractionDigits += "0" }
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = HLSDateTime.civilFromDays(days)
        func pad(_ n: Int64, _ width: Int) -> String {
            let s = String(n.magnitude)
            return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        text += "." + fractionDigits
        if let offset = utcOffsetMinutes {
            if offset == 0 {
                text += "Z"
            } else {
                let m = Int64(offset.magnitude)
                text += (offset < 0 ? "-" : "+") + pad(m / 60, 2) + ":" + pad(m % 60, 2)
            }
        }
        return text
    }

    /// `description` for the common case, an instant in whole milliseconds of the years 0 to 9999,
    /// written digit by digit into 29 bytes at most (a live playlist writes one per segment).
    private func millisecondText(_ local: MediaTime) -> String? {
        let (scaled, overflow) = local.value.multipliedReportingOverflow(by: 1000)
        guard !overflow, scaled % Int64(local.timescale) == 0 else { return nil }
        let milliseconds = scaled / Int64(local.timescale)
        let whole = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - whole * 1000
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = HLSDateTime.civilFromDays(days)
        guard (0...9999).contains(year) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        func digits(_ n: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(n / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4); bytes.append(UInt8(ascii: "-")); digits(month, 2); bytes.append(UInt8(ascii: "-")); digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2); bytes.append(UInt8(ascii: ":")); digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":")); digits(secondOfDay % 60, 2); bytes.append(UInt8(ascii: ".")); digits(fraction, 3)
        if let offset = utcOffsetMinutes {
            if offset == 0 {
                bytes.append(UInt8(ascii: "Z"))
            } else {
                bytes.append(UInt8(ascii: offset < 0 ? "-" : "+"))
                digits(Int64(offset.magnitude) / 60, 2); bytes.append(UInt8(ascii: ":")); digits(Int64(offset.magnitude) % 60, 2)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isLeapYear(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar. Counting years from March puts the
    /// leap day last, so each 400-year era has the same shape.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysFromCivil`.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
