/// Why a VAST or VMAP document, or a chain of them, gave no playable ad: the VAST error code reported
/// to the ad server, where (the document's URL or path and line) and why.
public struct VASTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The code sent as `[ERRORCODE]`.
    public var code: VASTErrorCode
    /// The document: its URL (secrets removed) or path.
    public var document: String?
    /// The line in the document, where one is to blame.
    public var line: Int?
    public var reason: String

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - code: The code sent as `[ERRORCODE]`.
    ///   - document: The document: its URL (secrets removed) or path.
    ///   - line: The line in the document, where one is to blame.
    ///   - reason: Why, in words.
    public init(code: VASTErrorCode, document: String? = nil, line: Int? = nil, reason: String) {
        self.code = code
        self.document = document
        self.line = line
        self.reason = reason
    }

    public var description: String {
        let place = [document, line.map { "line \($0)" }].compactMap { $0 }.joined(separator: ": ")
        return (place.isEmpty ? "" : place + ": ") + reason + " (VAST error \(code))"
    }
}
