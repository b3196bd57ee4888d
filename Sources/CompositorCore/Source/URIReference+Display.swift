extension URIReference {
    /// `url` as it may be printed: without its userinfo (`user:password@`), with its query replaced
    /// by `…` and without its fragment, so a password or a signed token never reaches a message,
    /// and escaped as `escapedForDisplay` does, so a URL from a document (`…%0D%0A` decoded by an XML
    /// parser into a line break) never starts a line of its own.
    ///
    /// ```swift
    /// URIReference.redactedForDisplay("https://me:pw@cdn.example/a.m3u8?token=s3cret")
    /// // "https://cdn.example/a.m3u8?…"
    /// ```
    ///
    /// - Parameter url: Any URL or URI reference.
    /// - Returns: The same reference without its secrets.
    package static func redactedForDisplay(_ url: String) -> String {
        var reference = URIReference(parsing: url)
        if let authority = reference.authority, let at = authority.lastIndex(of: "@") {
            reference.authority = String(authority[authority.index(after: at)...])
        }
        if reference.query != nil { reference.query = "…" }
        reference.fragment = nil
        return escapedForDisplay(reference.description)
    }
}

extension MediaLocation {
    /// The location as it may be printed: a remote URL without its userinfo, query or fragment
    /// (`URIReference.redactedForDisplay`), a file as `description` says it.
    package var displayDescription: String {
        guard case .remote(let url) = kind else { return description }
        let text = URIReference.redactedForDisplay(url)
        guard let variant else { return text }
        return "\(text) (variant \"\(escapedForDisplay(variant))\")"
    }
}
