import CompositorCore

/// Resolves many references against one base quickly: a relative path without dot segments
/// (`seg_001.ts`, `video/1080p/seg.m4s?t=1`) is appended to the base's directory; anything else
/// takes the full RFC 3986 algorithm.
struct HLSURIResolver: Sendable {
    let base: URIReference
    let baseText: String
    /// The resolved form of a reference with an empty last segment, `https://h/dir/`, as UTF-8.
    let directory: [UInt8]

    /// What the playlist may reference, by where it was read from.
    let policy: ReferencePolicy

    init(base text: String) {
        baseText = text
        base = URIReference(parsing: text)
        policy = ReferencePolicy(document: text)
        let probe = URIReference(path: "_").resolved(against: base).description
        directory = Array(probe.utf8.dropLast())
    }

    /// `reference` resolved against the playlist's URL.
    ///
    /// - Throws: `.referenceRefused` when the policy refuses where it leads (a `file:` URL in a
    ///   playlist read over http(s)).
    func resolve(_ reference: String) throws(HLSParseError.Problem) -> String {
        var bytes = reference
        // `withUTF8` rethrows untyped errors: the typed one goes through a Result.
        return try bytes.withUTF8 { buffer in
            Result { () throws(HLSParseError.Problem) in try resolve(buffer, text: reference) }
        }.get()
    }

    /// An `EXT-X-KEY` URI resolved: a DRM system's key (`KEYFORMAT` other than `identity`) may
    /// keep its system's scheme (`skd:`), which Compositor never reads.
    func resolveKey(_ reference: String, keyFormat: String?) throws(HLSParseError.Problem) -> String {
        guard let keyFormat, keyFormat != "identity" else { return try resolve(reference) }
        let resolved = URIReference(parsing: reference).resolved(against: base).description
        if let reason = policy.refusal(ofKeySystemURI: resolved) { throw .referenceRefused(uri: reference, reason: reason) }
        return resolved
    }

    /// `reference`'s UTF-8 resolved; `text` is the same reference as a string.
    func resolve(_ reference: UnsafeBufferPointer<UInt8>, text: String) throws(HLSParseError.Problem) -> String {
        guard HLSURIResolver.isPlainRelativePath(reference) else {
            let resolved = URIReference(parsing: text).resolved(against: base).description
            if let reason = policy.refusal(of: resolved) { throw .referenceRefused(uri: text, reason: reason) }
            return resolved
        }
        // A plain relative path stays on the playlist's own scheme and host: nothing to check.
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
