/// A range of main content, `[start, end)` in its source's own time. Clips play back to back and
/// make one continuous content timeline ("rough-cut editing").
///
/// `end == nil` means the source's natural duration (its longest track, as `AVAsset.duration`).
public struct ContentClip: Hashable, Sendable {
    public let id: String
    public let source: MediaLocation
    public let start: MediaTime
    public let end: MediaTime?

    public init(id: String, source: MediaLocation, start: MediaTime = .zero, end: MediaTime? = nil) {
        self.id = id
        self.source = source
        self.start = start
        self.end = end
    }
}
