import CompositorCore

/// One attribute value, typed by its spelling as RFC 8216 section 4.2 defines it.
///
/// The type is read from the text itself (`"x"` is a quoted string, `0x1F` hexadecimal, `1280x720` a
/// resolution, `30` a decimal integer, `-1.5` a signed float, anything else an enumerated string);
/// the tag models then check that each known attribute has the type its tag requires.
package enum HLSAttributeValue: Hashable, Sendable, CustomStringConvertible {
    /// `"text"`, stored without the quotes.
    case quotedString(String)
    /// `0x...`, stored as the digits after the prefix, as written.
    case hexadecimal(String)
    /// Digits only: `0` to `2^64 - 1`.
    case decimalInteger(UInt64)
    /// A (signed) decimal floating-point number, kept as its exact text (`"-1.500"`).
    case decimalFloat(String)
    /// An unquoted token such as `YES` or `AES-128`.
    case enumeratedString(String)
    /// `<width>x<height>`.
    case resolution(width: UInt64, height: UInt64)

    /// The value as it is written in an attribute list.
    package var description: String {
        switch self {
        case .quotedString(let s): return "\"\(s)\""
        case .hexadecimal(let digits): return "0x" + digits
        case .decimalInteger(let n): return String(n)
        case .decimalFloat(let text): return text
        case .enumeratedString(let s): return s
        case .resolution(let w, let h): return "\(w)x\(h)"
        }
    }

    /// `time` as a decimal attribute value spelled the way the parser reads it back: a decimal
    /// integer when it is whole and not negative, a decimal float otherwise (`30`, `30.03`, `-1.5`).
    package static func decimal(_ time: MediaTime) -> HLSAttributeValue {
        if !time.isNegative, time.reduced.timescale == 1 { return .decimalInteger(UInt64(time.reduced.value)) }
        return .decimalFloat(time.hlsDecimalString)
    }

    /// An exact time from a decimal integer or float (`DURATION=30.5`), never through `Double`.
    package var exactTime: MediaTime? {
        switch self {
        case .decimalInteger(let n): return n <= UInt64(Int64.max) ? MediaTime(seconds: Int64(n)) : nil
        case .decimalFloat(let text): return try? MediaTime(parsing: text)
        default: return nil
        }
    }
}

/// One `NAME=value` pair of an attribute list.
package struct HLSAttribute: Hashable, Sendable {
    package var name: String
    package var value: HLSAttributeValue

    package init(_ name: String, _ value: HLSAttributeValue) {
        self.name = name
        self.value = value
    }
}

/// An ordered attribute list (`BANDWIDTH=1280000,CODECS="avc1.4d401f"`), as RFC 8216 section 4.2
/// defines it. Order is kept so a tag is written back as it was read; names are unique.
package struct HLSAttributeList: Hashable, Sendable, CustomStringConvertible {
    package private(set) var attributes: [HLSAttribute]

    package init() { attributes = [] }

    /// Builds a list; a name given twice keeps its last value, in the first one's place.
    package init(_ attributes: [HLSAttribute]) {
        self.attributes = []
        for attribute in attributes { self[attribute.name] = attribute.value }
    }

    /// Parses the text after a tag's colon. `tag` names the tag in errors.
    ///
    /// `try HLSAttributeList(parsing: "TYPE=AUDIO,GROUP-ID=\"aac\"")["GROUP-ID"]` is `.quotedString("aac")`.
    package init(parsing text: String, tag: String = "attribute list") throws(HLSParseError.Problem) {
        var copy = text
        let result: Result<HLSAttributeList, HLSParseError.Problem> = copy.withUTF8 { buffer in
            do throws(HLSParseError.Problem) {
                return .success(try HLSAttributeList.parse(HLSByteView(buffer), tag: tag))
            } catch { return .failure(error) }
        }
        self = try result.get()
    }

    package subscript(name: String) -> HLSAttributeValue? {
        get { attributes.first(where: { $0.name == name })?.value }
        set {
            if let index = attributes.firstIndex(where: { $0.name == name }) {
                if let newValue { attributes[index].value = newValue } else { attributes.remove(at: index) }
            } else if let newValue {
                attributes.append(HLSAttribute(name, newValue))
            }
        }
    }

    package var isEmpty: Bool { attributes.isEmpty }
    package var names: [String] { attributes.map(\.name) }

    /// The list as it is written after a tag's colon.
    package var description: String {
        var text = ""
        for (index, attribute) in attributes.enumerated() {
            if index > 0 { text += "," }
            text += attribute.name
            text += "="
            text += attribute.value.description
        }
        return text
    }

    // MARK: Typed reads, for the tag models

    func quotedString(_ name: String) -> String? {
        if case .quotedString(let s)? = self[name] { return s }
        return nil
    }

    func enumerated(_ name: String) -> String? {
        if case .enumeratedString(let s)? = self[name] { return s }
        return nil
    }

    func integer(_ name: String) -> UInt64? {
        if case .decimalInteger(let n)? = self[name] { return n }
        return nil
    }
}

// MARK: - Validation helpers used by the tag models

extension HLSAttributeList {
    /// Expected shapes of known attributes, checked once at parse time so accessors can stay simple.
    enum Expected {
        case quotedString, hexadecimal, decimalInteger, decimalNumber, signedDecimalNumber, resolution
        case enumerated(Set<String>?)
    }

    func validate(tag: String, required: [String], expected: [String: Expected]) throws(HLSParseError.Problem) {
        for name in required where self[name] == nil {
            throw .missingAttribute(tag: tag, attribute: name)
        }
        for attribute in attributes {
            guard let shape = expected[attribute.name] else { continue }
            let ok: Bool
            var reason = ""
            switch (shape, attribute.value) {
            case (.quotedString, .quotedString), (.hexadecimal, .hexadecimal),
                (.decimalInteger, .decimalInteger), (.resolution, .resolution),
                (.decimalNumber, .decimalInteger), (.signedDecimalNumber, .decimalInteger),
                (.signedDecimalNumber, .decimalFloat):
                ok = true
            case (.decimalNumber, .decimalFloat(let text)):
                ok = !text.hasPrefix("-")
                reason = "must not be negative"
            case (.enumerated(let allowed), .enumeratedString(let value)):
                ok = allowed?.contains(value) ?? true
                reason = "'\(value)' is not one of \(allowed.map { $0.sorted().joined(separator: ", ") } ?? "")"
            default:
                ok = false
            }
            guard ok else {
                if reason.isEmpty { reason = "expected \(shape.name), found '\(attribute.value)'" }
                throw .invalidAttributeValue(tag: tag, attribute: attribute.name, reason: reason)
            }
        }
    }
}

extension HLSAttributeList.Expected {
    var name: String {
        switch self {
        case .quotedString: return "a quoted string"
        case .hexadecimal: return "a hexadecimal sequence"
        case .decimalInteger: return "a decimal integer"
        case .decimalNumber: return "a decimal number"
        case .signedDecimalNumber: return "a signed decimal number"
        case .resolution: return "a resolution"
        case .enumerated: return "an enumerated string"
        }
    }
}

// MARK: - Parsing

extension HLSAttributeList {
    /// `AttributeName=AttributeValue[,AttributeName=AttributeValue]*`, names `[A-Z0-9-]+`.
    /// Spaces after a comma are tolerated (hand-written playlists have them); nothing else is.
    static func parse(_ bytes: HLSByteView, tag: String) throws(HLSParseError.Problem) -> HLSAttributeList {
        var list = HLSAttributeList()
        var i = bytes.start
        let end = bytes.end
        func malformed(_ reason: String) -> HLSParseError.Problem { .malformedAttributeList(tag: tag, reason: reason) }
        guard i < end else { throw malformed("empty attribute list") }
        while true {
            let nameStart = i
            while i < end, bytes[i] != UInt8(ascii: "=") {
                let c = bytes[i]
                guard (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 45 else {
                    throw malformed("unexpected '\(Character(Unicode.Scalar(c)))' in an attribute name at column \(i - bytes.start + 1)")
                }
                i += 1
            }
            guard i > nameStart else { throw malformed("missing attribute name at column \(i - bytes.start + 1)") }
            guard i < end else { throw malformed("attribute '\(bytes.string(nameStart, i))' has no '='") }
            let name = bytes.string(nameStart, i)
            i += 1  // '='
            let value: HLSAttributeValue
            if i < end, bytes[i] == UInt8(ascii: "\"") {
                let contentStart = i + 1
                var j = contentStart
                while j < end, bytes[j] != UInt8(ascii: "\"") { j += 1 }
                guard j < end else { throw malformed("unterminated quoted string for \(name)") }
                guard let text = bytes.validatedString(contentStart, j) else { throw .invalidUTF8 }
                value = .quotedString(text)
                i = j + 1
            } else {
                let valueStart = i
                while i < end, bytes[i] != UInt8(ascii: ",") {
                    let c = bytes[i]
                    guard c != UInt8(ascii: "\""), c != 32, c != 9 else {
                        throw malformed("unexpected character in the value of \(name)")
                    }
                    i += 1
                }
                guard i > valueStart else { throw malformed("attribute \(name) has an empty value") }
                value = try lexUnquoted(bytes, valueStart, i, name: name, tag: tag)
            }
            if list.attributes.contains(where: { $0.name == name }) {
                throw .duplicateAttribute(tag: tag, attribute: name)
            }
            list.attributes.append(HLSAttribute(name, value))
            if i == end { break }
            guard bytes[i] == UInt8(ascii: ",") else {
                throw malformed("expected ',' after the value of \(name)")
            }
            i += 1
            while i < end, bytes[i] == 32 { i += 1 }
            guard i < end else { throw malformed("trailing ','") }
        }
        return list
    }

    private static func lexUnquoted(
        _ bytes: HLSByteView, _ start: Int, _ end: Int, name: String, tag: String
    ) throws(HLSParseError.Problem) -> HLSAttributeValue {
        func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }
        func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- 97 < 6 }
        let text = bytes.string(start, end)
        // Hexadecimal: 0x or 0X then hex digits.
        if end - start > 2, bytes[start] == 48, bytes[start + 1] | 0x20 == UInt8(ascii: "x"),
           (start + 2..<end).allSatisfy({ isHex(bytes[$0]) }) {
            return .hexadecimal(bytes.string(start + 2, end))
        }
        var i = start
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        let digitsStart = i
        while i < end, isDigit(bytes[i]) { i += 1 }
        let integerDigits = i - digitsStart
        if integerDigits > 0 {
            if i == end {
                if negative { return .decimalFloat(text) }
                var n: UInt64 = 0
                for k in digitsStart..<end {
                    let (m, o1) = n.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(UInt64(bytes[k] - 48))
                    guard !o1, !o2 else {
                        throw .invalidAttributeValue(tag: tag, attribute: name, reason: "\(text) does not fit 64 bits")
                    }
                    n = s
                }
                return .decimalInteger(n)
            }
            if bytes[i] == UInt8(ascii: "."), i + 1 < end {
                var j = i + 1
                while j < end, isDigit(bytes[j]) { j += 1 }
                if j == end, j > i + 1 { return .decimalFloat(text) }
            }
            if !negative, bytes[i] | 0x20 == UInt8(ascii: "x"), i + 1 < end {
                var j = i + 1
                while j < end, isDigit(bytes[j]) { j += 1 }
                if j == end, let width = UInt64(bytes.string(digitsStart, i)), let height = UInt64(bytes.string(i + 1, end)) {
                    return .resolution(width: width, height: height)
                }
            }
        }
        return .enumeratedString(text)
    }
}
