/// Where a clip's media lives: a local file, or a remote URL that only a player can open.
///
/// Schedules name media by a path or a URL; `init(parsing:relativeTo:)` is the one place that text
/// becomes a location:
///
/// | text                          | location                                  |
/// |-------------------------------|-------------------------------------------|
/// | `ads/a.mp4` (with folder `/s`)| file `/s/ads/a.mp4`                       |
/// | `/media/a b.mp4`              | file `/media/a b.mp4` (a path, not decoded) |
/// | `file:///media/a%20b.mp4`     | file `/media/a b.mp4` (escapes decoded)   |
/// | `file://localhost/m.mp4`      | file `/m.mp4`                             |
/// | `file://nas/m.mp4`            | error: a file on another host             |
/// | `https://cdn.example/a.m3u8`  | remote                                    |
///
/// A string literal is a file path: `let ad: MediaLocation = "ad1.mp4"`.
///
/// A multivariant HLS playlist plays its highest-bandwidth variant unless the location names one:
/// `MediaLocation("content/master.m3u8").selectingVariant("720p/index.m3u8")`.
public struct MediaLocation: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A local file or a remote URL.
    public enum Kind: Hashable, Sendable {
        /// A file on this machine (a relative path is read against the working folder).
        case file(FilePath)
        /// A URL with a scheme other than `file:` (`https://…`), kept as written.
        case remote(url: String)
    }

    public let kind: Kind
    /// For a multivariant HLS playlist, the variant to play: its URI as the playlist writes it, or
    /// its `STABLE-VARIANT-ID`. `nil` plays the variant of the highest `BANDWIDTH`.
    public private(set) var variant: String?

    /// A local file.
    ///
    /// - Parameter path: The file's path.
    public init(_ path: FilePath) { kind = .file(path) }
    /// A local file, by its path (never parsed as a URL).
    public init(stringLiteral path: String) { kind = .file(FilePath(path)) }
    /// A local file, by its path (never parsed as a URL: `a%20b.mp4` names that file). For text
    /// that may be a URL, `init(parsing:relativeTo:)`.
    ///
    /// - Parameter path: An absolute path, or one relative to the working folder.
    public init(path: String) { kind = .file(FilePath(path)) }

    /// A remote URL (`https://…`). Use `init(parsing:)` for text that may be either.
    ///
    /// - Parameter remoteURL: The URL, kept as written.
    public init(remoteURL: String) { kind = .remote(url: remoteURL) }

    /// The same playlist, playing the variant `name` (see `variant`), or the default one for `nil`.
    ///
    /// - Parameter name: The variant's URI as the playlist writes it, or its `STABLE-VARIANT-ID`;
    ///   `nil` for the highest `BANDWIDTH`.
    /// - Returns: This location with `variant` set to `name`.
    public func selectingVariant(_ name: String?) -> MediaLocation {
        var location = self
        location.variant = name
        return location
    }

    /// Reads a schedule's `url`: a plain path (resolved against `folder` when relative), a `file:`
    /// URL (percent-escapes decoded, so any byte of a path can be named), or another URL (remote).
    ///
    /// - Parameters:
    ///   - text: The `url` as the schedule writes it.
    ///   - folder: The folder a relative path is read from (the schedule's); `nil` leaves it relative.
    /// - Throws: `MediaLocationError.empty` for empty text, `.remoteFileHost` for a `file:` URL of
    ///   another host, `.invalid` for a NUL character or a `file:` URL that names no local file.
    public init(parsing text: String, relativeTo folder: FilePath? = nil) throws(MediaLocationError) {
        guard !text.isEmpty else { throw .empty }
        guard !text.utf8.contains(0) else { throw .invalid(text, reason: "it contains a NUL character") }
        let reference = URIReference(parsing: text)
        // One-letter "schemes" are not URLs but relative paths such as `c:d` (RFC 3986 needs none).
        guard let scheme = reference.scheme?.lowercased(), scheme.utf8.count > 1 else {
            let path = FilePath(text)
            kind = .file(folder.map(path.resolved(against:)) ?? path)
            return
        }
        guard scheme == "file" else {
            kind = .remote(url: text)
            return
        }
        if let host = reference.authority, !host.isEmpty, host.lowercased() != "localhost" {
            throw .remoteFileHost(text, host: host)
        }
        guard reference.query == nil, reference.fragment == nil else {
            throw .invalid(text, reason: "a file: URL with a query or fragment names no file")
        }
        guard let bytes = percentDecoded(reference.path) else {
            throw .invalid(text, reason: "a '%' that is not followed by two hexadecimal digits")
        }
        guard bytes.first == UInt8(ascii: "/") else {
            throw .invalid(text, reason: "a file: URL needs an absolute path (file:///folder/name)")
        }
        guard !bytes.contains(0) else { throw .invalid(text, reason: "it decodes to a NUL byte") }
        kind = .file(FilePath(bytes: bytes))
    }

    /// Reads a URI a playlist wrote, resolved against the playlist's URL (RFC 3986): unlike a
    /// schedule's plain path, a reference without a scheme is a URI too, so its `%XX` escapes are
    /// decoded (`seg%203.ts` is `seg 3.ts`) and a query or fragment is no part of the file name
    /// (`seg.ts?token=1` is `seg.ts`). `file:` URLs likewise; other schemes are remote, as written.
    package init(resolvedURI text: String) throws(MediaLocationError) {
        guard !text.isEmpty else { throw .empty }
        var reference = URIReference(parsing: text)
        switch reference.scheme?.lowercased() {
        case nil:
            guard let bytes = percentDecoded(reference.path) else {
                throw .invalid(text, reason: "a '%' that is not followed by two hexadecimal digits")
            }
            guard !bytes.isEmpty, !bytes.contains(0) else {
                throw .invalid(text, reason: bytes.isEmpty ? "it names no file" : "it decodes to a NUL byte")
            }
            self.init(FilePath(bytes: bytes))
        case "file"?:
            (reference.query, reference.fragment) = (nil, nil)
            try self.init(parsing: reference.description)
        default:
            try self.init(parsing: text)
        }
    }

    /// The local file, if the location is one.
    public var filePath: FilePath? {
        if case .file(let path) = kind { return path }
        return nil
    }

    /// The location as a URL: `file:` with the path percent-encoded (every byte survives), or the
    /// remote URL as written. A relative file path stays a relative reference.
    public var url: String {
        switch kind {
        case .file(let path): return (path.isAbsolute ? "file://" : "") + percentEncodedPath(path.bytes)
        case .remote(let url): return url
        }
    }

    /// The path or URL for messages, with control characters escaped, and the variant named.
    public var description: String {
        let text: String
        switch kind {
        case .file(let path): text = path.description
        case .remote(let url): text = escapedForDisplay(url)
        }
        guard let variant else { return text }
        return "\(text) (variant \"\(escapedForDisplay(variant))\")"
    }
}

/// Why a schedule's `url` names no source.
public enum MediaLocationError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    /// `file://host/…` names a file on another machine, which this library cannot open.
    case remoteFileHost(String, host: String)
    case invalid(String, reason: String)

    public var description: String {
        switch self {
        case .empty: return "empty URL"
        case .remoteFileHost(let text, let host):
            return "\(escapedForDisplay(text)): a file on host '\(escapedForDisplay(host))'; only local files (file:///path or file://localhost/path) can be read"
        case .invalid(let text, let reason): return "\(escapedForDisplay(text)): \(reason)"
        }
    }
}

/// The bytes `%XX` escapes stand for; `nil` for a `%` without two hex digits after it.
package func percentDecoded(_ text: String) -> [UInt8]? {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
    while let c = utf8.popFirst() {
        guard c == UInt8(ascii: "%") else { bytes.append(c); continue }
        guard utf8.count >= 2, let high = hex(utf8[utf8.startIndex]), let low = hex(utf8[utf8.startIndex + 1]) else { return nil }
        bytes.append(high << 4 | low)
        utf8 = utf8.dropFirst(2)
    }
    return bytes
}

/// `bytes` with every byte outside RFC 3986's path characters (`pchar` and `/`) percent-encoded.
package func percentEncodedPath(_ bytes: [UInt8]) -> String {
    let hexDigits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for byte in bytes {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             _ where pathPunctuation.contains(byte):
            out.append(byte)
        default:
            out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]]
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// `text` with every byte but RFC 3986's unreserved characters percent-encoded (`%XX`): a query
/// value or a macro's value, whatever it holds.
package func percentEncodedUnreserved(_ text: String) -> String {
    let hexDigits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.append(byte)
        default:
            out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]]
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// The punctuation RFC 3986 allows unescaped in a path: unreserved, sub-delims, `:`, `@` and `/`.
private let pathPunctuation = Set("-._~!$&'()*+,;=:@/".utf8)
