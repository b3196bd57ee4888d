import CompositorCore

/// The multivariant-playlist half of `HLSPlaylistParser`.
///
/// Unknown lines directly before an `EXT-X-STREAM-INF` lead that variant; all others belong to the
/// playlist. Between an `EXT-X-STREAM-INF` and its URI line only comments and unknown tags may come
/// (as after `EXTINF`); they join the variant's leading lines, and any other tag there is an error.
struct MultivariantPlaylistParser {
    var reader: HLSLineReader
    let resolver: HLSURIResolver

    private var version: Int64?
    private var hasIndependentSegments = false
    private var start: HLSStart?
    private var renditions: [HLSRendition] = []
    private var variants: [HLSVariantStream] = []
    private var iFrameStreams: [HLSIFrameStream] = []
    private var unknownLines: [String] = []

    private var pendingUnknown: [String] = []
    private var pendingVariant: (attributes: HLSAttributeList, line: HLSLine, leadingLines: [String])?

    init(reader: HLSLineReader, resolver: HLSURIResolver) {
        self.reader = reader
        self.resolver = resolver
    }

    mutating func parse() throws(HLSParseError) -> HLSMultivariantPlaylist {
        while let line = try reader.next() {
            do throws(HLSParseError.Problem) {
                try handle(line)
            } catch {
                throw relocatedError ?? reader.error(error, line)
            }
        }
        if let pendingVariant { throw reader.error(.streamInfWithoutURI, pendingVariant.line) }
        unknownLines += pendingUnknown
        return HLSMultivariantPlaylist(
            url: resolver.baseText, version: version, hasIndependentSegments: hasIndependentSegments, start: start,
            renditions: renditions, variants: variants, iFrameStreams: iFrameStreams, unknownLines: unknownLines)
    }

    private mutating func handle(_ line: HLSLine) throws(HLSParseError.Problem) {
        let (tag, value) = HLSTag.classify(line.line)
        if var pending = pendingVariant {
            if tag == .unknown {
                guard let text = line.line.validatedString(line.line.start, line.line.end) else { throw .invalidUTF8 }
                pending.leadingLines.append(text)
                pendingVariant = pending
                return
            }
            guard tag == .uri else {
                relocatedError = reader.error(.streamInfWithoutURI, pending.line)
                throw .streamInfWithoutURI
            }
            guard let uri = line.line.validatedString(line.line.start, line.line.end) else { throw .invalidUTF8 }
            variants.append(HLSVariantStream(
                attributes: pending.attributes, uri: uri, resolvedURI: try resolver.resolve(uri), leadingLines: pending.leadingLines))
            pendingVariant = nil
            return
        }
        switch tag {
        case .streamInf:
            let list = try HLSTagValue.attributes(value, tag: HLSVariantStream.tag)
            try HLSVariantStream.validate(list)
            pendingVariant = (list, line, pendingUnknown)
            pendingUnknown = []
            return
        case .unknown:
            guard let text = line.line.validatedString(line.line.start, line.line.end) else { throw .invalidUTF8 }
            pendingUnknown.append(text)
            return
        default:
            break
        }
        // Any other line ends a run of unknown lines that, then, leads no variant.
        unknownLines += pendingUnknown
        pendingUnknown = []
        switch tag {
        case .uri:
            throw .uriWithoutStreamInf
        case .media:
            let list = try HLSTagValue.attributes(value, tag: HLSRendition.tag)
            try HLSRendition.validate(list)
            renditions.append(HLSRendition(attributes: list, resolvedURI: try list.quotedString("URI").map { (uri) throws(HLSParseError.Problem) in try resolver.resolve(uri) }))
        case .iFrameStreamInf:
            let list = try HLSTagValue.attributes(value, tag: HLSIFrameStream.tag)
            try HLSIFrameStream.validate(list)
            iFrameStreams.append(HLSIFrameStream(attributes: list, resolvedURI: try resolver.resolve(list.quotedString("URI") ?? "")))
        case .otherMultivariantTag:
            guard let text = line.line.validatedString(line.line.start, line.line.end) else { throw .invalidUTF8 }
            unknownLines.append(text)
        case .version:
            guard version == nil else { throw .duplicateTag(tag: "EXT-X-VERSION") }
            version = try HLSTagValue.version(value, tag: "EXT-X-VERSION")
        case .independentSegments:
            guard !hasIndependentSegments else { throw .duplicateTag(tag: "EXT-X-INDEPENDENT-SEGMENTS") }
            try HLSTagValue.noValue(value, tag: "EXT-X-INDEPENDENT-SEGMENTS")
            hasIndependentSegments = true
        case .start:
            guard start == nil else { throw .duplicateTag(tag: HLSStart.tag) }
            let list = try HLSTagValue.attributes(value, tag: HLSStart.tag)
            try HLSStart.validate(list)
            start = HLSStart(attributes: list)
        case .extm3u:
            throw .duplicateTag(tag: "EXTM3U")
        case .define:
            throw .unsupportedFeature(tag: "EXT-X-DEFINE", reason: "variable substitution is not implemented")
        default:
            throw .mediaTagInMultivariantPlaylist(tag: HLSTag.name(of: line.line))
        }
    }

    /// Set when a problem belongs to an earlier line than the one being read.
    private var relocatedError: HLSParseError?
}
