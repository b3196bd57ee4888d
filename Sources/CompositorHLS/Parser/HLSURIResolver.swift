import CompositorCore

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
