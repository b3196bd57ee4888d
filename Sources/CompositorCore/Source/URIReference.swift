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
package struct URIReference: Hashable, Sendable, CustomStringConvertible {
    package var scheme: String?
    package var authority: String?
    package var path: String
    package var query: String?
    package var fragment: String?

    package init(scheme: String? = nil, authority: String? = nil, path: String, query: String? = nil, fragment: String? = nil) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Splits `text` as the regular expression of RFC 3986 appendix B does; every string parses.
    package init(parsing text: String) {
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
    package var description: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// This reference resolved against `base` by the strict algorithm of RFC 3986 section 5.2.2.
    ///
    /// The RFC defines resolution against an absolute base only. A relative base (a path such as
    /// `../splice/master.m3u8`, no scheme, no authority, no leading `/`) resolves the same way except
    /// that `..` segments that climb above the base's start are kept, not dropped: `a.m3u8` against
    /// `../splice/master.m3u8` is `../splice/a.m3u8`, the same file as read from the same folder.
    package func resolved(against base: URIReference) -> URIReference {
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
                    } else if base.isRelativePath {
                        target.path = URIReference.removingDotSegments(relativePath: URIReference.merge(base: base, path))
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
    package static func resolve(_ reference: String, against base: String) -> String {
        URIReference(parsing: reference).resolved(against: URIReference(parsing: base)).description
    }

    /// The shortest reference that resolves against `base` to this URI (`"seg/1.ts"`, `"../ad/1.ts"`),
    /// or `nil` when none exists without repeating the scheme and authority (another host, another
    /// scheme, a relative path). The answer is checked by resolving it back.
    package func relativeReference(from base: URIReference) -> URIReference? {
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
    package static func relativize(_ target: String, from base: String) -> String {
        let t = URIReference(parsing: target)
        return t.relativeReference(from: URIReference(parsing: base))?.description ?? target
    }

    /// RFC 3986 section 5.2.3.
    static func merge(base: URIReference, _ path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// No scheme, no authority, and a path that does not start at the root: a reference read from
    /// wherever its reader is (a file path relative to the working folder, say).
    var isRelativePath: Bool { scheme == nil && authority == nil && !path.hasPrefix("/") }

    /// RFC 3986 section 5.2.4 for a relative path: `.` segments go, `name/..` pairs cancel, and a
    /// `..` with nothing before it to cancel stays (`a/../../b` is `../b`), so the path still names
    /// what it named from the same starting folder. A path that cancels to nothing is `./`; a first
    /// segment that is empty or has a `:` gets `./` in front (RFC 3986 section 4.2), so it cannot
    /// read as the root, an authority or a scheme.
    static func removingDotSegments(relativePath path: String) -> String {
        guard path.contains(".") else { return path }
        let input = path.split(separator: "/", omittingEmptySubsequences: false)
        var output: [Substring] = []
        for segment in input {
            switch segment {
            case ".": continue
            case "..":
                if let last = output.last, last != ".." { output.removeLast() } else { output.append("..") }
            default: output.append(segment)
            }
        }
        // A final `.` or `..` names a folder: the result ends with `/`.
        if let last = input.last, last == "." || last == "..", output.last != "" { output.append("") }
        let result = output.joined(separator: "/")
        if result.isEmpty { return "./" }
        // An empty first segment would read as the root, or as an authority.
        if let first = output.first, first.isEmpty || first.contains(":") { return "./" + result }
        return result
    }

    /// RFC 3986 section 5.2.4, on whole segments.
    package static func removingDotSegments(_ path: String) -> String {
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
