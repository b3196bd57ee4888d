import CompositorCore

/// Resolves many references against one base quickly: a relative path without dot segments
/// (`seg_001.ts`, `video/1080p/seg.m4s?t=1`) is appended to the base's directory; anything else
/// takes the full RFC 3986 algorithm.
struct HLSURIResolver: Sendable {
    let base: URIReference
    let baseText: String
    /// The resolved form of a reference with an empty last segment, `https://h/dir/`, as UTF-8.
    let directory: [UInt8]

    init(base text: String) {
        baseText = text
        base = URIReference(parsing: text)
        let probe = URIReference(path: "_").resolved(against: base).description
        directory = Array(probe.utf8.dropLast())
    }

    func resolve(_ reference: String) -> String {
        var bytes = reference
        return bytes.withUTF8 { resolve($0, text: reference) }
    }

    /// `reference`'s UTF-8 resolved; `text` is the same reference as a string.
    func resolve(_ reference: UnsafeBufferPointer<UInt8>, text: String) -> String {
        guard HLSURIResolver.isPlainRelativePath(reference) else {
            return URIReference(parsing: text).resolved(against: base).description
        }
        // One allocation of the exact size: this runs once per segment.
        return String(unsafeUninitializedCapacity: directory.count + reference.count) { out in
            let tail = UnsafeMutableBufferPointer(rebasing: out[directory.count...])
            _ = UnsafeMutableBufferPointer(rebasing: out[..<directory.count]).initialize(from: directory)
            _ = tail.initialize(from: reference)
            return out.count
        }
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
            // Most bytes are none of `#./:?` (all below 64): one test lets them through.
            if c >= 64 || (HLSURIResolver.delimiters >> c) & 1 == 0 {
                i += 1
                continue
            }
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

    /// Bit `c` is set for each byte `c` of `#`, `.`, `/`, `:`, `?`.
    private static var delimiters: UInt64 { 1 << 0x23 | 1 << 0x2E | 1 << 0x2F | 1 << 0x3A | 1 << 0x3F }

    @inline(__always)
    private static func isDotSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        (to - from == 1 && bytes[from] == UInt8(ascii: "."))
            || (to - from == 2 && bytes[from] == UInt8(ascii: ".") && bytes[from + 1] == UInt8(ascii: "."))
    }
}
