/// One ad of a pod: `[start, end)` of its source. `end == nil` means the source's natural duration;
/// an `end` past it is clamped when the composition is built, with a `Composition.Diagnostic`.
public struct Ad: Hashable, Sendable {
    public let id: String
    public let source: MediaLocation
    public let start: MediaTime
    public let end: MediaTime?

    /// Creates an ad; the schedule checks it when it is added.
    ///
    /// - Parameters:
    ///   - id: Its ID, unique in the schedule.
    ///   - source: Its media.
    ///   - start: Where in the source it starts (0 by default).
    ///   - end: Where in the source it ends; `nil` (the default) for the source's natural duration.
    public init(id: String, source: MediaLocation, start: MediaTime = .zero, end: MediaTime? = nil) {
        self.id = id
        self.source = source
        self.start = start
        self.end = end
    }
}
