import CompositorCore

/// Reads HLS playlists (RFC 8216 and draft 8216bis) from bytes.
///
/// One pass over the bytes, no `String` per line: tags are recognised on the raw bytes, `EXTINF`
/// durations are read as exact decimals, and strings are made only for what the model keeps (URIs,
/// titles, attribute values). Relative URIs are resolved against `url`.
///
/// ```swift
/// let playlist = try HLSPlaylistParser().parse(Array(text.utf8), url: "https://cdn.example/main.m3u8")
/// ```
///
/// Errors are `HLSParseError`s that carry the line number and line text; their category separates
/// malformed input from valid input that is not supported and from input over the limits.
package struct HLSPlaylistParser: Sendable {
    package var limits: HLSParseLimits

    package init(limits: HLSParseLimits = .default) {
        self.limits = limits
    }

    /// Parses a playlist of either kind.
    package func parse(_ bytes: [UInt8], url: String) throws(HLSParseError) -> HLSPlaylist {
        try checkSize(bytes.count)
        let result: Result<HLSPlaylist, HLSParseError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(HLSParseError) { return .success(try parse(buffer: buffer, url: url)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses a playlist of either kind from borrowed memory.
    package func parse(_ bytes: UnsafeRawBufferPointer, url: String) throws(HLSParseError) -> HLSPlaylist {
        try checkSize(bytes.count)
        return try parse(buffer: bytes.bindMemory(to: UInt8.self), url: url)
    }

    /// Parses a playlist of either kind from text.
    package func parse(_ text: String, url: String) throws(HLSParseError) -> HLSPlaylist {
        try checkSize(text.utf8.count)
        var text = text
        let result: Result<HLSPlaylist, HLSParseError> = text.withUTF8 { buffer in
            do throws(HLSParseError) { return .success(try parse(buffer: buffer, url: url)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses a media playlist; a multivariant playlist throws `.wrongPlaylistKind`.
    package func parseMediaPlaylist(_ bytes: [UInt8], url: String) throws(HLSParseError) -> HLSMediaPlaylist {
        switch try parse(bytes, url: url) {
        case .media(let playlist): return playlist
        case .multivariant:
            throw HLSParseError(line: nil, lineText: nil, problem: .wrongPlaylistKind(expected: "media", found: "multivariant"))
        }
    }

    /// Parses a multivariant playlist; a media playlist throws `.wrongPlaylistKind`.
    package func parseMultivariantPlaylist(_ bytes: [UInt8], url: String) throws(HLSParseError) -> HLSMultivariantPlaylist {
        switch try parse(bytes, url: url) {
        case .multivariant(let playlist): return playlist
        case .media:
            throw HLSParseError(line: nil, lineText: nil, problem: .wrongPlaylistKind(expected: "multivariant", found: "media"))
        }
    }

    private func checkSize(_ count: Int) throws(HLSParseError) {
        guard count <= limits.maximumPlaylistBytes else {
            throw HLSParseError(line: nil, lineText: nil, problem: .playlistTooLarge(bytes: count, limit: limits.maximumPlaylistBytes))
        }
    }

    func parse(buffer: UnsafeBufferPointer<UInt8>, url: String) throws(HLSParseError) -> HLSPlaylist {
        try checkSize(buffer.count)
        let view = HLSByteView(buffer)
        var reader = HLSLineReader(view: view, maximumLineBytes: limits.maximumLineBytes)
        if view.hasPrefix("\u{FEFF}") {
            throw HLSParseError(line: 1, lineText: nil, problem: .byteOrderMark)
        }
        guard let first = try reader.next() else {
            throw HLSParseError(line: 1, lineText: "", problem: .missingHeader)
        }
        guard first.line.equals(first.line.start, first.line.end, "#EXTM3U") else {
            // A media file given where a playlist belongs: say what it is, not a kilobyte of escapes.
            if let kind = Self.binaryKind(of: buffer) { throw HLSParseError(line: nil, lineText: nil, problem: .notText(looksLike: kind)) }
            throw reader.error(.missingHeader, first)
        }
        let bodyReader = reader
        let resolver = HLSURIResolver(base: url)
        if try HLSPlaylistParser.isMultivariant(reader: bodyReader) {
            var parser = MultivariantPlaylistParser(reader: bodyReader, resolver: resolver)
            return .multivariant(try parser.parse())
        } else {
            var parser = MediaPlaylistParser(reader: bodyReader, resolver: resolver)
            return .media(try parser.parse())
        }
    }

    /// What binary input looks like, or `nil` when its first bytes could be text (no NUL or other
    /// control byte but tab, CR and LF).
    static func binaryKind(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let head = bytes.prefix(64)
        guard head.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return nil }
        let mp4Boxes: [[UInt8]] = ["ftyp", "styp", "moov", "moof", "mdat", "free", "skip", "sidx", "wide"].map { Array($0.utf8) }
        if bytes.count >= 8, mp4Boxes.contains(where: { $0.elementsEqual(bytes[4..<8]) }) { return "an MP4 file" }
        if bytes.count >= 189, bytes[0] == 0x47, bytes[188] == 0x47 { return "an MPEG-TS file" }
        return "binary data"
    }

    /// The first tag that belongs to one kind of playlist only decides the kind; a playlist with none
    /// (or with a URI line first) is a media playlist.
    private static func isMultivariant(reader: HLSLineReader) throws(HLSParseError) -> Bool {
        var reader = reader
        while let line = try reader.next() {
            let tag = HLSTag(line.line)
            if tag.isMultivariantOnly { return true }
            if tag.isMediaOnly || tag == .uri { return false }
        }
        return false
    }
}

// MARK: - Lines

/// One non-blank line, trimmed of surrounding whitespace, with its 1-based number.
struct HLSLine {
    var line: HLSByteView
    var number: Int
}

struct HLSLineReader {
    let view: HLSByteView
    let maximumLineBytes: Int
    var position: Int
    var lineNumber = 0

    init(view: HLSByteView, maximumLineBytes: Int) {
        self.view = view
        self.maximumLineBytes = maximumLineBytes
        position = view.start
    }

    /// The next non-blank line, or `nil` at the end.
    mutating func next() throws(HLSParseError) -> HLSLine? {
        while position < view.end {
            let start = position
            let end = view.firstNewline(from: start)
            position = end < view.end ? end + 1 : end
            lineNumber += 1
            guard end - start <= maximumLineBytes else {
                throw HLSParseError(
                    line: lineNumber, lineText: view.string(start, start + min(80, end - start)),
                    problem: .lineTooLong(bytes: end - start, limit: maximumLineBytes))
            }
            var s = start, e = end
            while e > s, view[e - 1] == 13 || view[e - 1] == 32 || view[e - 1] == 9 { e -= 1 }
            while s < e, view[s] == 32 || view[s] == 9 { s += 1 }
            if s < e { return HLSLine(line: view.slice(s, e), number: lineNumber) }
        }
        return nil
    }

    func error(_ problem: HLSParseError.Problem, _ line: HLSLine) -> HLSParseError {
        HLSParseError(line: line.number, lineText: line.line.string, problem: problem)
    }
}

// MARK: - Tags

/// The tags this parser knows, recognised on bytes.
enum HLSTag: Equatable {
    case extm3u, version, independentSegments, start, define
    // media playlist
    case extinf, targetDuration, mediaSequence, discontinuitySequence, discontinuity, map, byteRange, key
    case programDateTime, dateRange, endList, playlistType, gap, iFramesOnly, cueOut, cueOutCont, cueIn, skip
    /// Media-playlist tags kept verbatim (low-latency parts, bitrate hints, ...).
    case otherMediaTag
    // multivariant playlist
    case streamInf, media, iFrameStreamInf
    /// Multivariant-playlist tags kept verbatim (session data, session keys, content steering).
    case otherMultivariantTag
    /// A tag this parser does not know, or a comment: kept verbatim.
    case unknown
    /// A line that does not start with `#`.
    case uri

    init(_ line: HLSByteView) {
        self = HLSTag.classify(line).0
    }

    /// The line's tag, and its value (the bytes after the colon), or `nil` when it has none.
    static func classify(_ line: HLSByteView) -> (HLSTag, HLSByteView?) {
        guard line[line.start] == UInt8(ascii: "#") else { return (.uri, nil) }
        guard line.hasPrefix("#EXT") else { return (.unknown, nil) }
        // Half the lines of a media playlist.
        if line.hasPrefix("#EXTINF:") { return (.extinf, line.slice(line.start + 8, line.end)) }
        var colon = line.start
        while colon < line.end, line[colon] != UInt8(ascii: ":") { colon += 1 }
        let value: HLSByteView? = colon < line.end ? line.slice(colon + 1, line.end) : nil
        var tag = HLSTag.unknown
        for (name, candidate) in HLSTag.table where line.equals(line.start, colon, name) {
            tag = candidate
            break
        }
        return (tag, value)
    }

    /// Most frequent first: a media playlist is mostly `EXTINF` lines.
    static let table: [(StaticString, HLSTag)] = [
        ("#EXTINF", .extinf), ("#EXT-X-BYTERANGE", .byteRange), ("#EXT-X-PROGRAM-DATE-TIME", .programDateTime),
        ("#EXT-X-DISCONTINUITY", .discontinuity), ("#EXT-X-KEY", .key), ("#EXT-X-MAP", .map),
        ("#EXT-X-DATERANGE", .dateRange), ("#EXT-X-CUE-OUT", .cueOut), ("#EXT-X-CUE-OUT-CONT", .cueOutCont),
        ("#EXT-X-CUE-IN", .cueIn), ("#EXT-X-GAP", .gap), ("#EXT-X-STREAM-INF", .streamInf), ("#EXT-X-MEDIA", .media),
        ("#EXT-X-I-FRAME-STREAM-INF", .iFrameStreamInf), ("#EXTM3U", .extm3u), ("#EXT-X-VERSION", .version),
        ("#EXT-X-TARGETDURATION", .targetDuration), ("#EXT-X-MEDIA-SEQUENCE", .mediaSequence),
        ("#EXT-X-DISCONTINUITY-SEQUENCE", .discontinuitySequence), ("#EXT-X-ENDLIST", .endList),
        ("#EXT-X-PLAYLIST-TYPE", .playlistType), ("#EXT-X-I-FRAMES-ONLY", .iFramesOnly),
        ("#EXT-X-INDEPENDENT-SEGMENTS", .independentSegments), ("#EXT-X-START", .start), ("#EXT-X-DEFINE", .define),
        ("#EXT-X-SKIP", .skip), ("#EXT-X-PART", .otherMediaTag), ("#EXT-X-PART-INF", .otherMediaTag),
        ("#EXT-X-SERVER-CONTROL", .otherMediaTag), ("#EXT-X-PRELOAD-HINT", .otherMediaTag),
        ("#EXT-X-RENDITION-REPORT", .otherMediaTag), ("#EXT-X-BITRATE", .otherMediaTag),
        ("#EXT-X-SESSION-DATA", .otherMultivariantTag), ("#EXT-X-SESSION-KEY", .otherMultivariantTag),
        ("#EXT-X-CONTENT-STEERING", .otherMultivariantTag),
    ]

    var isMediaOnly: Bool {
        switch self {
        case .extinf, .targetDuration, .mediaSequence, .discontinuitySequence, .discontinuity, .map, .byteRange, .key,
             .programDateTime, .dateRange, .endList, .playlistType, .gap, .iFramesOnly, .cueOut, .cueOutCont, .cueIn,
             .skip, .otherMediaTag:
            return true
        default: return false
        }
    }

    var isMultivariantOnly: Bool {
        switch self {
        case .streamInf, .media, .iFrameStreamInf, .otherMultivariantTag: return true
        default: return false
        }
    }

    /// Tags about the whole media playlist, wherever they appear.
    var isMediaPlaylistHeader: Bool {
        switch self {
        case .extm3u, .version, .independentSegments, .start, .targetDuration, .mediaSequence, .discontinuitySequence,
             .endList, .playlistType, .iFramesOnly:
            return true
        default: return false
        }
    }

    /// The tag's name without `#`, for messages.
    static func name(of line: HLSByteView) -> String {
        var colon = line.start
        while colon < line.end, line[colon] != UInt8(ascii: ":") { colon += 1 }
        return line.string(line.start + 1, colon)
    }
}

// MARK: - Shared value readers

enum HLSTagValue {
    static let maximumKnownVersion: Int64 = 12

    static func integer(_ value: HLSByteView?) -> UInt64? {
        guard let value, !value.isEmpty, value.count <= 20 else { return nil }
        var n: UInt64 = 0
        for i in value.start..<value.end {
            let d = value[i] &- 48
            guard d < 10 else { return nil }
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { return nil }
            n = s
        }
        return n
    }

    static func version(_ value: HLSByteView?, tag: String) throws(HLSParseError.Problem) -> Int64 {
        guard let n = integer(value), n >= 1, n <= UInt64(Int64.max) else {
            throw .invalidTagValue(tag: tag, reason: "expected a protocol version number")
        }
        guard Int64(n) <= maximumKnownVersion else { throw .unsupportedVersion(Int64(n)) }
        return Int64(n)
    }

    static func attributes(_ value: HLSByteView?, tag: String) throws(HLSParseError.Problem) -> HLSAttributeList {
        guard let value else { throw .malformedAttributeList(tag: tag, reason: "missing attribute list") }
        return try HLSAttributeList.parse(value, tag: tag)
    }

    static func noValue(_ value: HLSByteView?, tag: String) throws(HLSParseError.Problem) {
        if let value, !value.isEmpty { throw .invalidTagValue(tag: tag, reason: "takes no value") }
    }
}
