/// A composition as a queue of per-segment player items, the way `AVQueuePlayer` plays HLS sources:
/// each item starts by a seek to its `startTime` and ends at its `forwardPlaybackEndTime`, so cuts
/// are exact (not snapped to segment boundaries).
///
/// ```
/// composition  0       10     15              25
///              |C 0-10 |  ad  |C 10-20        |
/// items        [C.m3u8 0..10] [ad.m3u8 0..5] [C.m3u8 10..20]
/// ```
public struct QueuePlan: Hashable, Sendable {
    public let items: [QueuePlan.Item]
    public let duration: MediaTime
    private let starts: SortedTimes

    /// Makes one item for each segment of `composition`.
    ///
    /// - Parameter composition: The composition to play.
    public init(composition: Composition) {
        items = composition.segments.enumerated().map { index, segment in
            QueuePlan.Item(
                segmentIndex: index, source: segment.source, role: segment.role,
                startTime: segment.sourceRange.start, forwardPlaybackEndTime: segment.sourceRange.end,
                compositionRange: segment.compositionRange)
        }
        duration = composition.duration
        starts = SortedTimes(items.map(\.compositionRange.start))
    }

    /// The index of the item playing at `compositionTime`, or `nil` outside `[0, duration)`. O(log n).
    ///
    /// - Parameter compositionTime: A composition time.
    /// - Returns: An index into `items`, or `nil`.
    public func itemIndex(at compositionTime: MediaTime) -> Int? {
        guard compositionTime >= .zero, compositionTime < duration else { return nil }
        return starts.firstIndex(after: compositionTime) - 1
    }
}

extension QueuePlan {
    /// One item of a `QueuePlan`.
    public struct Item: Hashable, Sendable {
        /// The composition segment this item plays.
        public let segmentIndex: Int
        public let source: MediaLocation
        public let role: Segment.Role
        /// Source time the item starts at (a zero-tolerance seek before it plays).
        public let startTime: MediaTime
        /// Source time the item ends at, as `AVPlayerItem.forwardPlaybackEndTime`.
        public let forwardPlaybackEndTime: MediaTime
        public let compositionRange: MediaTimeRange

        /// The composition time of the item's source time `itemTime`, clamped to the item's range
        /// (an item may report a time outside it before its first seek). The player's clock and the
        /// item's times may share no timescale within `Int32` (a 10^9 clock against 29.97 fps cuts):
        /// the offset then rounds as `MediaTime.-` says, never trapping.
        ///
        /// - Parameter itemTime: The item's own (source) time, as its player reports it.
        /// - Returns: The composition time, within the item's range.
        public func compositionTime(forItemTime itemTime: MediaTime) -> MediaTime {
            let offset = MediaTime.min(MediaTime.max(itemTime - startTime, .zero), compositionRange.duration)
            return MediaTime.min(compositionRange.start + offset, compositionRange.end)
        }
    }
}

/// The calls a queue player needs, shaped like `AVQueuePlayer`; `AVQueuePlayer` itself conforms
/// through the AVFoundation adapter, `SimulatedQueuePlayer` in tests.
public protocol QueuePlayer: AnyObject {
    associatedtype Item: AnyObject

    /// Makes an item for `entry`: its source, ending at `forwardPlaybackEndTime`, started by a
    /// zero-tolerance seek to `startTime` when it becomes current.
    ///
    /// - Parameter entry: The plan's item.
    /// - Returns: The player's item.
    func makeItem(for entry: QueuePlan.Item) -> Item
    /// The queued items, the current one first (`AVQueuePlayer.items()`).
    ///
    /// - Returns: The items in queue order.
    func items() -> [Item]
    var currentItem: Item? { get }
    /// `insert(_:after:)`; `nil` appends at the end.
    ///
    /// - Parameters:
    ///   - item: The item to queue.
    ///   - afterItem: The queued item it follows; `nil` to append it.
    func insert(_ item: Item, after afterItem: Item?)
    func advanceToNextItem()
    /// Removes `item` from the queue.
    ///
    /// - Parameter item: A queued item.
    func remove(_ item: Item)
    func removeAllItems()
    /// Seeks the current item to `itemTime` (its own time), zero tolerance.
    ///
    /// - Parameter itemTime: The time in the current item's source.
    func seek(to itemTime: MediaTime)
    /// The current item's time.
    var currentTime: MediaTime { get }
}
