/// How the resolver gets an ad server's document: a URL (or path) in, its bytes out, within `timeout`.
/// `referrer` is the document that named it (nil for the one the app named), so a fetch can refuse
/// what a remote document must not reach (a local file).
///
/// The library's transport provides one (`VASTResolver(transport:)` in `Compositor`); tests give their
/// own. A fetch never follows anything but HTTP redirects: the resolver decides which URL is next.
public typealias AdDocumentFetch = @Sendable (_ url: String, _ referrer: String?, _ timeout: Duration) async throws(AdDocumentFetchError) -> [UInt8]

/// Why a document could not be fetched.
public struct AdDocumentFetchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL or path, without secrets.
    public var url: String
    /// Whether the time allowed ran out (VAST error 301 for a wrapper) rather than the fetch failing.
    public var timedOut: Bool
    public var reason: String

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - url: The URL or path, without secrets.
    ///   - timedOut: Whether the time allowed ran out (VAST error 301 for a wrapper) rather than the fetch failing.
    ///   - reason: Why, in words.
    public init(url: String, timedOut: Bool, reason: String) {
        self.url = url
        self.timedOut = timedOut
        self.reason = reason
    }

    public var description: String { "\(url): \(reason)" }
}
