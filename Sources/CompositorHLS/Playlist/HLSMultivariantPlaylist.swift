import CompositorCore

/// A multivariant (master) playlist: the variant streams of one presentation and their renditions.
package struct HLSMultivariantPlaylist: Hashable, Sendable {
    /// The playlist's own URL: the base every relative URI in it was resolved against.
    package var url: String
    package var version: Int64?
    /// `EXT-X-INDEPENDENT-SEGMENTS`.
    package var hasIndependentSegments: Bool
    package var start: HLSStart?
    /// `EXT-X-MEDIA` tags, in order.
    package var renditions: [HLSRendition]
    /// `EXT-X-STREAM-INF` tags with their URIs, in order.
    package var variants: [HLSVariantStream]
    /// `EXT-X-I-FRAME-STREAM-INF` tags, in order.
    package var iFrameStreams: [HLSIFrameStream]
    /// Unknown tags and comments that do not lead a variant (session data, content steering, ...),
    /// kept verbatim. The writer puts them at the end, where they still belong to no variant.
    package var unknownLines: [String]

    package init(
        url: String, version: Int64? = nil, hasIndependentSegments: Bool = false, start: HLSStart? = nil,
        renditions: [HLSRendition] = [], variants: [HLSVariantStream] = [], iFrameStreams: [HLSIFrameStream] = [],
        unknownLines: [String] = []
    ) {
        self.url = url
        self.version = version
        self.hasIndependentSegments = hasIndependentSegments
        self.start = start
        self.renditions = renditions
        self.variants = variants
        self.iFrameStreams = iFrameStreams
        self.unknownLines = unknownLines
    }

    /// Parses a multivariant playlist; a media playlist is an error.
    package init(parsing bytes: [UInt8], url: String, limits: HLSParseLimits = .default) throws(HLSParseError) {
        self = try HLSPlaylistParser(limits: limits).parseMultivariantPlaylist(bytes, url: url)
    }

    /// The playlist as canonical text.
    package var text: String { HLSPlaylistWriter.write(self) }

    /// The variant a source names: the first whose URI, as written, or `STABLE-VARIANT-ID` is `name`.
    package func variant(named name: String) -> HLSVariantStream? {
        variants.first { $0.uri == name || $0.stableID == name }
    }

    /// The variant a source plays: the one `name` names (`variant(named:)`), or without a name the
    /// highest `BANDWIDTH`, the first of equals; `nil` when there is none such.
    package func variant(playing name: String?) -> HLSVariantStream? {
        if let name { return variant(named: name) }
        // The first of equals (a reversed `max(by:)` gave the last).
        guard let highest = variants.map(\.bandwidth).max() else { return nil }
        return variants.first { $0.bandwidth == highest }
    }

    /// What `variant(named:)` accepts, for a message naming the choices: each variant's URI.
    package var variantNames: String {
        variants.map { "\"\($0.uri)\"" }.joined(separator: ", ")
    }
}

/// `EXT-X-STREAM-INF` and the URI line after it: one variant stream.
package struct HLSVariantStream: Hashable, Sendable {
    package var attributes: HLSAttributeList
    /// The URI line as written.
    package var uri: String
    /// `uri` resolved against the multivariant playlist's URL.
    package var resolvedURI: String
    /// Unknown tags and comments just before the `EXT-X-STREAM-INF` or between it and its URI, kept
    /// verbatim (and written before the `EXT-X-STREAM-INF`).
    package var leadingLines: [String]

    package init(attributes: HLSAttributeList, uri: String, resolvedURI: String? = nil, leadingLines: [String] = []) {
        self.attributes = attributes
        self.uri = uri
        self.resolvedURI = resolvedURI ?? uri
        self.leadingLines = leadingLines
    }

    /// `BANDWIDTH`: peak bits per second (required).
    package var bandwidth: UInt64 { attributes.integer("BANDWIDTH") ?? 0 }
    package var averageBandwidth: UInt64? { attributes.integer("AVERAGE-BANDWIDTH") }
    /// `CODECS`, split at commas.
    package var codecs: [String] {
        attributes.quotedString("CODECS").map { $0.split(separator: ",").map { $0.trimmingSpaces } } ?? []
    }
    package var resolution: (width: UInt64, height: UInt64)? {
        if case .resolution(let w, let h)? = attributes["RESOLUTION"] { return (w, h) }
        return nil
    }
    /// `FRAME-RATE` as written (`"29.970"`).
    package var frameRate: String? { attributes["FRAME-RATE"]?.description }
    package var audioGroup: String? { attributes.quotedString("AUDIO") }
    /// `STABLE-VARIANT-ID`: a name for the variant that stays the same when the playlist is rewritten.
    package var stableID: String? { attributes.quotedString("STABLE-VARIANT-ID") }
    package var videoGroup: String? { attributes.quotedString("VIDEO") }
    package var subtitlesGroup: String? { attributes.quotedString("SUBTITLES") }
    /// Whether `CODECS` names audio codecs only (an audio-only variant, as packagers list an audio
    /// rendition again as a variant).
    package var isAudioOnly: Bool {
        let audio = ["mp4a", "ac-3", "ec-3", "opus", "flac", "fLaC", "alac", "mp3", "Opus"]
        return !codecs.isEmpty && codecs.allSatisfy { codec in audio.contains { codec.hasPrefix($0) } }
    }

    static let tag = "EXT-X-STREAM-INF"

    static let expected: [String: HLSAttributeList.Expected] = [
        "BANDWIDTH": .decimalInteger, "AVERAGE-BANDWIDTH": .decimalInteger, "SCORE": .decimalNumber,
        "CODECS": .quotedString, "SUPPLEMENTAL-CODECS": .quotedString, "RESOLUTION": .resolution,
        "FRAME-RATE": .decimalNumber, "HDCP-LEVEL": .enumerated(["TYPE-0", "TYPE-1", "NONE"]),
        "ALLOWED-CPC": .quotedString, "VIDEO-RANGE": .enumerated(["SDR", "HLG", "PQ"]),
        "REQ-VIDEO-LAYOUT": .quotedString, "STABLE-VARIANT-ID": .quotedString, "AUDIO": .quotedString,
        "VIDEO": .quotedString, "SUBTITLES": .quotedString, "PATHWAY-ID": .quotedString,
    ]

    static func validate(_ list: HLSAttributeList) throws(HLSParseError.Problem) {
        try list.validate(tag: tag, required: ["BANDWIDTH"], expected: expected)
        // CLOSED-CAPTIONS is a quoted group ID or the enumerated NONE.
        switch list["CLOSED-CAPTIONS"] {
        case nil, .quotedString?, .enumeratedString("NONE")?: break
        case let value?:
            throw .invalidAttributeValue(tag: tag, attribute: "CLOSED-CAPTIONS", reason: "expected a quoted string or NONE, found '\(value)'")
        }
    }
}

/// `EXT-X-MEDIA`: an alternative rendition (audio, video, subtitles or closed captions) of a group.
package struct HLSRendition: Hashable, Sendable {
    package var attributes: HLSAttributeList
    /// `URI` resolved against the multivariant playlist's URL; `nil` when the rendition has no URI.
    package var resolvedURI: String?

    package init(attributes: HLSAttributeList, resolvedURI: String?) {
        self.attributes = attributes
        self.resolvedURI = resolvedURI
    }

    /// `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
    package var type: String { attributes.enumerated("TYPE") ?? "" }
    package var groupID: String { attributes.quotedString("GROUP-ID") ?? "" }
    package var name: String { attributes.quotedString("NAME") ?? "" }
    package var uri: String? { attributes.quotedString("URI") }
    package var language: String? { attributes.quotedString("LANGUAGE") }
    package var isDefault: Bool { attributes.enumerated("DEFAULT") == "YES" }

    static let tag = "EXT-X-MEDIA"

    static func validate(_ list: HLSAttributeList) throws(HLSParseError.Problem) {
        try list.validate(tag: tag, required: ["TYPE", "GROUP-ID", "NAME"], expected: [
            "TYPE": .enumerated(["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"]), "URI": .quotedString,
            "GROUP-ID": .quotedString, "LANGUAGE": .quotedString, "ASSOC-LANGUAGE": .quotedString,
            "NAME": .quotedString, "STABLE-RENDITION-ID": .quotedString, "DEFAULT": .enumerated(["YES", "NO"]),
            "AUTOSELECT": .enumerated(["YES", "NO"]), "FORCED": .enumerated(["YES", "NO"]),
            "INSTREAM-ID": .quotedString, "BIT-DEPTH": .decimalInteger, "SAMPLE-RATE": .decimalInteger,
            "CHARACTERISTICS": .quotedString, "CHANNELS": .quotedString,
        ])
        let type = list.enumerated("TYPE")
        if type == "CLOSED-CAPTIONS" {
            if list["URI"] != nil { throw .invalidAttributeValue(tag: tag, attribute: "URI", reason: "not allowed for CLOSED-CAPTIONS") }
            if list["INSTREAM-ID"] == nil { throw .missingAttribute(tag: tag, attribute: "INSTREAM-ID") }
        } else if type == "SUBTITLES", list["URI"] == nil {
            throw .missingAttribute(tag: tag, attribute: "URI")
        }
    }
}

/// `EXT-X-I-FRAME-STREAM-INF`: a playlist of I-frames for trick play.
package struct HLSIFrameStream: Hashable, Sendable {
    package var attributes: HLSAttributeList
    /// `URI` resolved against the multivariant playlist's URL.
    package var resolvedURI: String

    package init(attributes: HLSAttributeList, resolvedURI: String) {
        self.attributes = attributes
        self.resolvedURI = resolvedURI
    }

    package var bandwidth: UInt64 { attributes.integer("BANDWIDTH") ?? 0 }
    package var uri: String { attributes.quotedString("URI") ?? resolvedURI }

    static let tag = "EXT-X-I-FRAME-STREAM-INF"

    static func validate(_ list: HLSAttributeList) throws(HLSParseError.Problem) {
        var expected = HLSVariantStream.expected
        expected["URI"] = .quotedString
        try list.validate(tag: tag, required: ["BANDWIDTH", "URI"], expected: expected)
    }
}

/// A parsed playlist of either kind. Which kind a text is follows from its tags: `EXT-X-STREAM-INF`
/// and friends make it multivariant, `EXTINF` and friends make it a media playlist.
package enum HLSPlaylist: Hashable, Sendable {
    case media(HLSMediaPlaylist)
    case multivariant(HLSMultivariantPlaylist)

    package var url: String {
        switch self {
        case .media(let p): return p.url
        case .multivariant(let p): return p.url
        }
    }

    package var text: String {
        switch self {
        case .media(let p): return p.text
        case .multivariant(let p): return p.text
        }
    }
}

fileprivate extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
