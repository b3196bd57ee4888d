import CompositorCore

/// A sub-range of a resource: `length` bytes from `offset` (`EXT-X-BYTERANGE:<n>@<o>`).
package struct HLSByteRange: Hashable, Sendable, CustomStringConvertible {
    package var length: UInt64
    package var offset: UInt64

    package init(length: UInt64, offset: UInt64) {
        self.length = length
        self.offset = offset
    }

    /// The offset just past the range: where a following range without `@offset` starts.
    package var end: UInt64 { offset + length }

    /// `"<length>@<offset>"`.
    package var description: String { "\(length)@\(offset)" }

    /// Reads `n[@o]`; the offset is `nil` when absent.
    static func parse(_ bytes: HLSByteView) -> (length: UInt64, offset: UInt64?)? {
        func number(_ from: Int, _ to: Int) -> UInt64? {
            HLSTagValue.integer(HLSByteView(bytes.buffer, from, to))
        }
        var at = bytes.start
        while at < bytes.end, bytes[at] != UInt8(ascii: "@") { at += 1 }
        guard let length = number(bytes.start, at) else { return nil }
        if at == bytes.end { return (length, nil) }
        guard let offset = number(at + 1, bytes.end) else { return nil }
        guard offset.addingReportingOverflow(length).overflow == false else { return nil }
        return (length, offset)
    }
}

/// `EXT-X-KEY`: how the segments it applies to are encrypted. `METHOD=NONE` ends encryption.
///
/// A key applies to every following segment until the next `EXT-X-KEY` with the same `KEYFORMAT`;
/// segments therefore carry the list of keys in effect (see `HLSMediaSegment.keys`).
package struct HLSKey: Hashable, Sendable {
    /// The tag's attributes as written (the `URI` as written too).
    package var attributes: HLSAttributeList
    /// `URI` resolved against the playlist's URL; `nil` when the tag has no `URI`.
    package var resolvedURI: String?

    package init(attributes: HLSAttributeList, resolvedURI: String?) {
        self.attributes = attributes
        self.resolvedURI = resolvedURI
    }

    /// `NONE`, `AES-128`, `SAMPLE-AES` or `SAMPLE-AES-CTR`.
    package var method: String { attributes.enumerated("METHOD") ?? "NONE" }
    package var uri: String? { attributes.quotedString("URI") }
    /// `KEYFORMAT`, defaulting to `"identity"`.
    package var keyFormat: String { attributes.quotedString("KEYFORMAT") ?? "identity" }
    /// The `IV` hex digits, without `0x`.
    package var initializationVector: String? {
        if case .hexadecimal(let digits)? = attributes["IV"] { return digits }
        return nil
    }

    static let tag = "EXT-X-KEY"
    static let methods: Set<String> = ["NONE", "AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR"]

    static func validate(_ list: HLSAttributeList, tag: String = HLSKey.tag) throws(HLSParseError.Problem) {
        try list.validate(tag: tag, required: ["METHOD"], expected: [
            "METHOD": .enumerated(nil), "URI": .quotedString, "IV": .hexadecimal,
            "KEYFORMAT": .quotedString, "KEYFORMATVERSIONS": .quotedString,
        ])
        guard let method = list.enumerated("METHOD") else {
            throw .invalidAttributeValue(tag: tag, attribute: "METHOD", reason: "expected an enumerated string")
        }
        guard methods.contains(method) else {
            throw .unsupportedFeature(tag: tag, reason: "encryption method \(method)")
        }
        if method == "NONE" {
            for name in list.names where name != "METHOD" {
                throw .invalidAttributeValue(tag: tag, attribute: name, reason: "not allowed with METHOD=NONE")
            }
        } else if list["URI"] == nil {
            throw .missingAttribute(tag: tag, attribute: "URI")
        }
        if case .hexadecimal(let digits)? = list["IV"], digits.count != 32 {
            throw .invalidAttributeValue(tag: tag, attribute: "IV", reason: "must be 128 bits (32 hex digits)")
        }
    }
}

/// `EXT-X-MAP`: the Media Initialization Section (an fMP4 `ftyp`+`moov`, say) for the segments after
/// it, up to the next `EXT-X-MAP`.
package struct HLSMap: Hashable, Sendable {
    package var attributes: HLSAttributeList
    /// `URI` resolved against the playlist's URL.
    package var resolvedURI: String

    package init(attributes: HLSAttributeList, resolvedURI: String) {
        self.attributes = attributes
        self.resolvedURI = resolvedURI
    }

    /// The `URI` as written.
    package var uri: String { attributes.quotedString("URI") ?? resolvedURI }

    /// `BYTERANGE="n[@o]"`; a missing offset means the start of the resource.
    package var byteRange: HLSByteRange? {
        guard let text = attributes.quotedString("BYTERANGE") else { return nil }
        guard let parsed = text.withHLSByteView({ HLSByteRange.parse($0) }) else { return nil }
        return HLSByteRange(length: parsed.length, offset: parsed.offset ?? 0)
    }

    static let tag = "EXT-X-MAP"

    static func validate(_ list: HLSAttributeList) throws(HLSParseError.Problem) {
        try list.validate(tag: tag, required: ["URI"], expected: ["URI": .quotedString, "BYTERANGE": .quotedString])
        if let text = list.quotedString("BYTERANGE"), text.withHLSByteView({ HLSByteRange.parse($0) }) == nil {
            throw .invalidAttributeValue(tag: tag, attribute: "BYTERANGE", reason: "expected \"<length>[@<offset>]\"")
        }
    }
}

/// `EXT-X-DATERANGE`: a span of wall-clock time with attributes (an ad break, a chapter, an interstitial).
package struct HLSDateRange: Hashable, Sendable {
    package var attributes: HLSAttributeList

    package init(attributes: HLSAttributeList) {
        self.attributes = attributes
    }

    /// Builds a date range from its usual attributes; `clientAttributes` are `X-` attributes.
    package init(id: String, class className: String? = nil, startDate: HLSDateTime, duration: MediaTime? = nil,
                plannedDuration: MediaTime? = nil, clientAttributes: [HLSAttribute] = []) {
        var list = HLSAttributeList()
        list["ID"] = .quotedString(id)
        if let className { list["CLASS"] = .quotedString(className) }
        list["START-DATE"] = .quotedString(startDate.description)
        if let duration { list["DURATION"] = .decimal(duration) }
        if let plannedDuration { list["PLANNED-DURATION"] = .decimal(plannedDuration) }
        for attribute in clientAttributes { list[attribute.name] = attribute.value }
        attributes = list
    }

    package var id: String { attributes.quotedString("ID") ?? "" }
    package var className: String? { attributes.quotedString("CLASS") }
    package var startDate: HLSDateTime? { attributes.quotedString("START-DATE").flatMap { try? HLSDateTime(parsing: $0) } }
    package var endDate: HLSDateTime? { attributes.quotedString("END-DATE").flatMap { try? HLSDateTime(parsing: $0) } }
    /// `DURATION`, exact.
    package var duration: MediaTime? { attributes["DURATION"]?.exactTime }
    package var plannedDuration: MediaTime? { attributes["PLANNED-DURATION"]?.exactTime }

    static let tag = "EXT-X-DATERANGE"

    static func validate(_ list: HLSAttributeList) throws(HLSParseError.Problem) {
        try list.validate(tag: tag, required: ["ID"], expected: [
            "ID": .quotedString, "CLASS": .quotedString, "START-DATE": .quotedString, "END-DATE": .quotedString,
            "CUE": .quotedString, "DURATION": .decimalNumber, "PLANNED-DURATION": .decimalNumber,
            "SCTE35-CMD": .hexadecimal, "SCTE35-OUT": .hexadecimal, "SCTE35-IN": .hexadecimal,
            "END-ON-NEXT": .enumerated(["YES"]),
        ])
        for name in ["START-DATE", "END-DATE"] {
            if let text = list.quotedString(name) {
                do { _ = try HLSDateTime(parsing: text) } catch {
                    throw .invalidAttributeValue(tag: tag, attribute: name, reason: error.reason)
                }
            }
        }
        if list["END-ON-NEXT"] != nil {
            if list["CLASS"] == nil { throw .missingAttribute(tag: tag, attribute: "CLASS") }
            for name in ["DURATION", "END-DATE"] where list[name] != nil {
                throw .invalidAttributeValue(tag: tag, attribute: name, reason: "not allowed with END-ON-NEXT")
            }
        }
    }
}

/// `EXT-X-START`: where playback should begin.
package struct HLSStart: Hashable, Sendable {
    package var attributes: HLSAttributeList

    package init(attributes: HLSAttributeList) {
        self.attributes = attributes
    }

    /// `TIME-OFFSET`, exact; negative offsets count from the end of the playlist.
    package var timeOffset: MediaTime { attributes["TIME-OFFSET"]?.exactTime ?? .zero }
    package var isPrecise: Bool { attributes.enumerated("PRECISE") == "YES" }

    static let tag = "EXT-X-START"

    static func validate(_ list: HLSAttributeList) throws(HLSParseError.Problem) {
        try list.validate(tag: tag, required: ["TIME-OFFSET"], expected: [
            "TIME-OFFSET": .signedDecimalNumber, "PRECISE": .enumerated(["YES", "NO"]),
        ])
        if list["TIME-OFFSET"]?.exactTime == nil {
            throw .invalidAttributeValue(tag: tag, attribute: "TIME-OFFSET", reason: "not representable exactly")
        }
    }
}

/// The de facto SCTE-35 cue tags (`EXT-X-CUE-OUT`, `EXT-X-CUE-OUT-CONT`, `EXT-X-CUE-IN`), kept as
/// their text: their syntax varies between packagers, so the duration is read on demand from the
/// common spellings, and a value no spelling explains is still kept and written back.
package struct HLSCueTag: Hashable, Sendable {
    /// The text after the colon, or `nil` when the tag has none.
    package var value: String?

    package init(value: String?) {
        self.value = value
    }

    /// `30` in `EXT-X-CUE-OUT:30`, `EXT-X-CUE-OUT:DURATION=30`, `EXT-X-CUE-OUT-CONT:10/30` and
    /// `EXT-X-CUE-OUT-CONT:ElapsedTime=10,Duration=30`.
    package var duration: MediaTime? {
        guard let value else { return nil }
        if let slash = value.firstIndex(of: "/") { return try? MediaTime(parsing: value[value.index(after: slash)...]) }
        if let plain = try? MediaTime(parsing: value) { return plain }
        return field(named: "duration")
    }

    /// `10` in `EXT-X-CUE-OUT-CONT:10/30` and `EXT-X-CUE-OUT-CONT:ElapsedTime=10,Duration=30`.
    package var elapsed: MediaTime? {
        guard let value else { return nil }
        if let slash = value.firstIndex(of: "/") { return try? MediaTime(parsing: value[..<slash]) }
        return field(named: "elapsedtime")
    }

    private func field(named name: String) -> MediaTime? {
        for pair in (value ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name { return try? MediaTime(parsing: parts[1]) }
        }
        return nil
    }
}

/// `EXT-X-PLAYLIST-TYPE`.
package enum HLSPlaylistType: String, Hashable, Sendable {
    /// Segments are only appended; the playlist may still be growing.
    case event = "EVENT"
    /// The playlist never changes: video on demand.
    case vod = "VOD"
}
