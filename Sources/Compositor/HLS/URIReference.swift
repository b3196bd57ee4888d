/// A URI reference split into its five components (RFC 3986 section 3), with reference resolution
/// (section 5.2) and its inverse, a relative reference from a base to a target.
///
/// Playlists name segments, keys and variants by URI references resolved against the playlist's own
/// URL. This is the small, exact subset of RFC 3986 that needs: no percent-decoding, no scheme-
/// specific normalization. A plain file path works as a base too (`/media/a.m3u8`).
///
/// ```swift
/// URIReference.resolve("../ads/1.ts", against: "https://cdn.example/v/main.m3u8")
/// // "https://cdn.example/ads/1.ts"
/// ```
public struct URIReference: Hashable, Sendable, CustomStringConvertible {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    public init(scheme: String? = nil, authority: String? = nil, path: String, query: String? = nil, fragment: String? = nil) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Splits `text` as the regular expression of RFC 3986 appendix B does; every string parses.
    public init(parsing text: String) {
        let bytes = Array(text.utf8)
        func sub(_ a: Int, _ b: Int) -> String { String(decoding: bytes[a..<b], as: UTF8.self) }
        var i = 0
        scheme = nil
        authority = nil
        query = nil
        fragment = nil
        // scheme: up to the first ':' when no '/', '?' or '#' comes before it.
        var j = 0
        while j < bytes.count, bytes[j] != UInt8(ascii: ":"), bytes[j] != UInt8(ascii: "/"),
              bytes[j] != UInt8(ascii: "?"), bytes[j] != UInt8(ascii: "#") { j += 1 }
        if j < bytes.count, j > 0, bytes[j] == UInt8(ascii: ":") {
            scheme = sub(0, j)
            i = j + 1
        }
        if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "/"), bytes[i + 1] == UInt8(ascii: "/") {
            var k = i + 2
            while k < bytes.count, bytes[k] != UInt8(ascii: "/"), bytes[k] != UInt8(ascii: "?"),
                  bytes[k] != UInt8(ascii: "#") { k += 1 }
            authority = sub(i + 2, k)
            i = k
        }
        var k = i
        while k < bytes.count, bytes[k] != UInt8(ascii: "?"), bytes[k] != UInt8(ascii: "#") { k += 1 }
        path = sub(i, k)
        i = k
        if i < bytes.count, bytes[i] == UInt8(ascii: "?") {
            var m = i + 1
            while m < bytes.count, bytes[m] != UInt8(ascii: "#") { m += 1 }
            query = sub(i + 1, m)
            i = m
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "#") {
            fragment = sub(i + 1, bytes.count)
        }
    }

    /// Recomposition (RFC 3986 section 5.3).
    public var description: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// This reference resolved against `base` by the strict algorithm of RFC 3986 section 5.2.2.
    public func resolved(against base: URIReference) -> URIReference {
        var target = URIReference(path: "")
        if let scheme {
            target.scheme = scheme
            target.authority = authority
            target.path = URIReference.removingDotSegments(path)
            target.query = query
        } else {
            if let authority {
                target.authority = authority
                target.path = URIReference.removingDotSegments(path)
                target.query = query
            } else {
                if path.isEmpty {
                    target.path = base.path
                    target.query = query ?? base.query
                } else {
                    if path.hasPrefix("/") {
                        target.path = URIReference.removingDotSegments(path)
                    } else {
                        target.path = URIReference.removingDotSegments(URIReference.merge(base: base, path))
                    }
                    target.query = query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        target.fragment = fragment
        return target
    }

    /// `reference` resolved against `base`, as text.
    public static func resolve(_ reference: String, against base: String) -> String {
        URIReference(parsing: reference).resolved(against: URIReference(parsing: base)).description
    }

    /// The shortest reference that resolves against `base` to this URI (`"seg/1.ts"`, `"../ad/1.ts"`),
    /// or `nil` when none exists without repeating the scheme and authority (another host, another
    /// scheme, a relative path). The answer is checked by resolving it back.
    public func relativeReference(from base: URIReference) -> URIReference? {
        guard scheme?.lowercased() == base.scheme?.lowercased(), authority == base.authority,
              path.hasPrefix("/"), base.path.hasPrefix("/") else { return nil }
        var baseDirectories = base.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        baseDirectories.removeLast()  // the base's own name
        let targetSegments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var common = 0
        while common < baseDirectories.count, common < targetSegments.count - 1,
              baseDirectories[common] == targetSegments[common] { common += 1 }
        var parts = Array(repeating: "..", count: baseDirectories.count - common)
        parts += targetSegments[common...]
        var relativePath = parts.joined(separator: "/")
        if relativePath.isEmpty {
            relativePath = "./"
        } else if let first = parts.first, first.contains(":") || first.isEmpty {
            relativePath = "./" + relativePath
        }
        let candidate = URIReference(path: relativePath, query: query, fragment: fragment)
        let check = candidate.resolved(against: base)
        guard check.path == path, check.query == query, check.fragment == fragment else { return nil }
        return candidate
    }

    /// `target` written relative to `base` when possible, otherwise as it is.
    public static func relativize(_ target: String, from base: String) -> String {
        let t = URIReference(parsing: target)
        return t.relativeReference(from: URIReference(parsing: base))?.description ?? target
    }

    /// RFC 3986 section 5.2.3.
    static func merge(base: URIReference, _ path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// RFC 3986 section 5.2.4, on whole segments.
    public static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var input = Substring(path)
        var output: [Substring] = []  // each element starts with "/" unless it is the first, relative segment
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // Move the first segment (with its leading "/", if any) to the output.
                let searchStart = input.first == "/" ? input.index(after: input.startIndex) : input.startIndex
                let segmentEnd = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<segmentEnd])
                input = input[segmentEnd...]
            }
        }
        return output.joined()
    }
}

/// Resolves many references against one base quickly: a relative path without dot segments
/// (`seg_001.ts`, `video/1080p/seg.m4s?t=1`) is appended to the base's directory; anything else
/// takes the full RFC 3986 algorithm.
struct HLSURIResolver: Sendable {
    let base: URIReference
    let baseText: String
    /// The resolved form of a reference with an empty last segment: `https://h/dir/`.
    let directory: String

    init(base text: String) {
        baseText = text
        base = URIReference(parsing: text)
        let probe = URIReference(path: "_").resolved(against: base).description
        directory = String(probe.dropLast())
    }

    func resolve(_ reference: String) -> String {
        var reference = reference
        let simple = reference.withUTF8 { HLSURIResolver.isPlainRelativePath($0) }
        if simple { return directory + reference }
        return URIReference(parsing: reference).resolved(against: base).description
    }

    /// Whether merging with the base directory is all resolution does: the reference has no scheme,
    /// no authority, is not absolute, not empty, starts with no query or fragment, and has no `.`
    /// or `..` segment.
    static func isPlainRelativePath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "?"),
              first != UInt8(ascii: "#") else { return false }
        var segmentStart = 0
        var sawSlash = false
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c == UInt8(ascii: "?") || c == UInt8(ascii: "#") { break }
            if c == UInt8(ascii: ":"), !sawSlash { return false }
            if c == UInt8(ascii: "/") {
                if isDotSegment(bytes, segmentStart, i) { return false }
                sawSlash = true
                segmentStart = i + 1
            }
            i += 1
        }
        return !isDotSegment(bytes, segmentStart, i)
    }

    @inline(__always)
    private static func isDotSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        (to - from == 1 && bytes[from] == UInt8(ascii: "."))
            || (to - from == 2 && bytes[from] == UInt8(ascii: ".") && bytes[from + 1] == UInt8(ascii: "."))
    }
}
