import CompositorCore

/// Why a playlist could not be read, and where.
///
/// Every problem is one of three categories, so callers can tell a broken playlist from one this
/// parser chooses not to handle: `.malformed` (the text breaks RFC 8216), `.unsupported` (valid, but
/// uses a feature this project does not implement, such as variable substitution) and
/// `.limitExceeded` (refused before parsing to protect against hostile input).
///
/// ```
/// line 7: EXTINF without a URI: '#EXTINF:10,'
/// ```
package struct HLSParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line the problem was found on; `nil` when it concerns the whole input.
    package let line: Int?
    /// That line's text (cut to 200 characters), or `nil` with `line`.
    package let lineText: String?
    package let problem: Problem

    package init(line: Int?, lineText: String?, problem: Problem) {
        self.line = line
        self.lineText = lineText.map(Self.quotable)
        self.problem = problem
    }

    /// A line as an error quotes it: cut to 200 characters, so a huge line does not flood a message.
    static func quotable(_ line: String) -> String { line.count > 200 ? String(line.prefix(200)) + "…" : line }

    package enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        // Limits
        /// The input is longer than `HLSParseLimits.maximumPlaylistBytes`.
        case playlistTooLarge(bytes: Int, limit: Int)
        /// A line is longer than `HLSParseLimits.maximumLineBytes`.
        case lineTooLong(bytes: Int, limit: Int)

        // Malformed
        /// The first line is not `#EXTM3U` (an empty input included).
        case missingHeader
        /// Binary data, not text: what it looks like ("an MP4 file", "an MPEG-TS file", "binary data").
        case notText(looksLike: String)
        /// A UTF-8 byte order mark, which RFC 8216 forbids.
        case byteOrderMark
        /// A line that is not valid UTF-8.
        case invalidUTF8
        /// The attribute list does not follow the grammar (`reason` says where).
        case malformedAttributeList(tag: String, reason: String)
        /// The same attribute twice in one tag.
        case duplicateAttribute(tag: String, attribute: String)
        /// A required attribute is absent.
        case missingAttribute(tag: String, attribute: String)
        /// An attribute has a value of the wrong type or outside its allowed set.
        case invalidAttributeValue(tag: String, attribute: String, reason: String)
        /// A tag's value (outside attribute lists) is not what the tag's grammar allows.
        case invalidTagValue(tag: String, reason: String)
        /// A tag that may appear at most once appears again.
        case duplicateTag(tag: String)
        /// A media-playlist tag in a multivariant playlist.
        case mediaTagInMultivariantPlaylist(tag: String)
        /// A multivariant-playlist tag in a media playlist.
        case multivariantTagInMediaPlaylist(tag: String)
        /// An `EXTINF` with no URI line after it.
        case extinfWithoutURI
        /// A URI line in a media playlist with no `EXTINF` before it.
        case uriWithoutEXTINF
        /// An `EXT-X-STREAM-INF` with no URI line right after it.
        case streamInfWithoutURI
        /// A URI line in a multivariant playlist that does not follow an `EXT-X-STREAM-INF`.
        case uriWithoutStreamInf
        /// A media playlist was asked for and the text is a multivariant playlist, or the reverse.
        case wrongPlaylistKind(expected: String, found: String)
        /// `EXT-X-BYTERANGE` without `@offset`, and the previous segment is not a sub-range of the same resource.
        case byteRangeWithoutPreviousRange
        /// A media playlist without `EXT-X-TARGETDURATION`.
        case missingTargetDuration
        /// An `EXTINF` duration that, rounded to the nearest integer, exceeds `EXT-X-TARGETDURATION`.
        case segmentExceedsTargetDuration(duration: MediaTime, targetDuration: Int64)

        // Unsupported
        /// Valid HLS that this parser does not implement (`EXT-X-DEFINE`, delta updates, ...).
        case unsupportedFeature(tag: String, reason: String)
        /// A protocol version newer than this parser knows.
        case unsupportedVersion(Int64)
        /// A URI the reference policy does not follow from this playlist (`ReferencePolicy`): a
        /// `file:` URL or a path in a playlist read over http(s), say. `uri` as the playlist wrote it.
        case referenceRefused(uri: String, reason: String)

        package var category: WireFailure.Kind {
            switch self {
            case .playlistTooLarge, .lineTooLong: return .limitExceeded
            case .unsupportedFeature, .unsupportedVersion, .referenceRefused: return .unsupported
            default: return .malformed
            }
        }

        package var description: String {
            switch self {
            case .playlistTooLarge(let bytes, let limit): return "playlist is \(bytes) bytes, more than the limit of \(limit)"
            case .lineTooLong(let bytes, let limit): return "line is \(bytes) bytes, more than the limit of \(limit)"
            case .missingHeader: return "a playlist must start with #EXTM3U"
            case .notText(let kind): return "not a playlist but \(kind) (a playlist is text starting with #EXTM3U)"
            case .byteOrderMark: return "playlists must not start with a byte order mark"
            case .invalidUTF8: return "line is not valid UTF-8"
            case .malformedAttributeList(let tag, let reason): return "malformed attribute list in \(tag): \(reason)"
            case .duplicateAttribute(let tag, let name): return "\(tag) has the attribute \(name) twice"
            case .missingAttribute(let tag, let name): return "\(tag) requires the attribute \(name)"
            case .invalidAttributeValue(let tag, let name, let reason): return "\(tag) attribute \(name): \(reason)"
            case .invalidTagValue(let tag, let reason): return "\(tag): \(reason)"
            case .duplicateTag(let tag): return "\(tag) may appear only once"
            case .mediaTagInMultivariantPlaylist(let tag): return "\(tag) is a media-playlist tag, but this is a multivariant playlist"
            case .multivariantTagInMediaPlaylist(let tag): return "\(tag) is a multivariant-playlist tag, but this is a media playlist"
            case .extinfWithoutURI: return "EXTINF without a URI"
            case .uriWithoutEXTINF: return "segment URI without EXTINF"
            case .streamInfWithoutURI: return "EXT-X-STREAM-INF without a URI on the next line"
            case .uriWithoutStreamInf: return "URI line without EXT-X-STREAM-INF"
            case .wrongPlaylistKind(let expected, let found): return "expected a \(expected) playlist, found a \(found) playlist"
            case .byteRangeWithoutPreviousRange:
                return "EXT-X-BYTERANGE has no offset and the previous segment is not a sub-range of the same resource"
            case .missingTargetDuration: return "media playlist without EXT-X-TARGETDURATION"
            case .segmentExceedsTargetDuration(let duration, let target):
                return "segment duration \(duration) rounds to more than EXT-X-TARGETDURATION \(target)"
            case .unsupportedFeature(let tag, let reason): return "unsupported \(tag): \(reason)"
            case .unsupportedVersion(let version): return "unsupported EXT-X-VERSION \(version)"
            case .referenceRefused(let uri, let reason): return "'\(HLSParseError.quotable(uri))' not followed: \(reason)"
            }
        }
    }

    package var category: WireFailure.Kind { problem.category }

    package var description: String {
        switch (line, lineText) {
        case let (line?, text?): return "line \(line): \(problem): \(quoted(text))"
        case let (line?, nil): return "line \(line): \(problem)"
        default: return problem.description
        }
    }
}

/// Bounds checked before anything is allocated for the input, against hostile or broken playlists.
package struct HLSParseLimits: Sendable, Equatable {
    /// Largest accepted playlist, in bytes. The default, 64 MiB, holds over a million segments.
    package var maximumPlaylistBytes: Int
    /// Longest accepted line, in bytes (line break excluded).
    package var maximumLineBytes: Int

    package init(maximumPlaylistBytes: Int = 64 << 20, maximumLineBytes: Int = 64 << 10) {
        self.maximumPlaylistBytes = maximumPlaylistBytes
        self.maximumLineBytes = maximumLineBytes
    }

    package static let `default` = HLSParseLimits()
}
