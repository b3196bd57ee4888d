/// What a document may reference, decided by where the document was read from: the one rule every
/// reference a playlist or an ad response makes goes through (segments, maps, keys, variants,
/// renditions, VAST media files).
///
/// - A document read over http(s) may reference only http(s): nothing a server writes reaches this
///   machine's files (`file:`, a path) or any other scheme.
/// - A document read from disk (a path or a `file:` URL) may reference files and http(s).
/// - A document an app's own loader reads by another scheme (`mem://`) may reference that scheme
///   and http(s), not files.
///
/// ```swift
/// let policy = ReferencePolicy(document: "https://127.0.0.1/v/main.m3u8")
/// policy.refusal(of: "https://127.0.0.1/v/seg0.ts")  // nil: followed
/// policy.refusal(of: "file:///etc/hostname")           // "a document read over http(s) …"
/// ```
package struct ReferencePolicy: Sendable {
    /// Where a document or a reference lives.
    package enum Origin: Hashable, Sendable {
        /// This machine's files: a path (no scheme, or a one-letter one such as `c:`) or `file:`.
        case local
        /// `http:` or `https:`.
        case web
        /// Any other scheme, lowercased.
        case other(String)

        /// The origin of a URL or path as written.
        package init(of text: String) {
            switch URIReference(parsing: text).scheme?.lowercased() {
            case nil, "file"?: self = .local
            case "http"?, "https"?: self = .web
            case let scheme? where scheme.utf8.count == 1: self = .local
            case let scheme?: self = .other(scheme)
            }
        }
    }

    /// Where the document was read from.
    package let document: Origin

    /// The policy for a document read from `url` (a path, a `file:` URL or a remote URL).
    package init(document url: String) { document = Origin(of: url) }

    /// Why `reference` (already resolved against the document's URL) may not be followed, or `nil`
    /// when it may.
    ///
    /// - Parameter reference: The resolved URL.
    /// - Returns: The reason, in the user's terms, or `nil`.
    package func refusal(of reference: String) -> String? {
        let target = Origin(of: reference)
        switch (document, target) {
        case (_, .web), (.local, .local): return nil
        case (.other(let own), .other(let scheme)) where own == scheme: return nil
        case (.web, _): return "a document read over http(s) may reference only http(s) URLs"
        case (.local, _): return "a document read from disk may reference only files and http(s) URLs"
        case (.other(let own), _): return "a document read by \(own): may reference only \(own): and http(s) URLs"
        }
    }

    /// Why a DRM system's key URI (an `EXT-X-KEY` whose `KEYFORMAT` is not `identity`, such as
    /// FairPlay's `skd:`) may not be written, or `nil`. Compositor never reads such a key and its
    /// scheme is the key system's own, so only a local file named by a document from elsewhere is
    /// refused.
    package func refusal(ofKeySystemURI reference: String) -> String? {
        guard Origin(of: reference) == .local, document != .local else { return nil }
        return refusal(of: reference)
    }
}
