/// A range of main content, `[start, end)` in its source's own time. Clips play back to back and
/// make one continuous content timeline ("rough-cut editing").
///
/// `end == nil` means the source's natural duration (its longest track, as `AVAsset.duration`).
public struct ContentClip: Hashable, Sendable {
    public let id: String
    public let source: MediaLocation
    public let start: MediaTime
    public let end: MediaTime?

    /// Creates a clip; the schedule checks it when it is added.
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
