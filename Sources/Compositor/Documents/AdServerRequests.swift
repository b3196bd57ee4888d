import CompositorCore

/// What a schedule file asks of ad servers, read but not yet fetched: its `vmap`, and the breaks
/// whose ads a `vast` gives (each break as read, its ads still to come; a break at `markers` is
/// one per marked span).
package struct AdServerRequests: Hashable, Sendable {
    package struct Document: Hashable, Sendable {
        package var location: MediaLocation
        /// Where the schedule names it (`vmap`, `breaks[2].vast`).
        package var path: String
    }

    package struct Breaks: Hashable, Sendable {
        package var templates: [AdBreak]
        package var vast: Document
        /// The break's `adBudget`, if it has its own.
        package var budget: MediaTime?
    }

    package var vmap: Document?
    package var breaks: [Breaks] = []
    /// The file's `adBudget`: how long each ad decision may take (the resolver's `totalTimeout` when nil).
    package var budget: MediaTime?

    /// Where the schedule first names an ad server, if it does.
    package var firstPath: String? { vmap?.path ?? breaks.first?.vast.path }
}
