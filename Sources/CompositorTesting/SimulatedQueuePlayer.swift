import Compositor

/// A deterministic stand-in for `AVQueuePlayer`, driven by a virtual clock: the current item plays
/// from its start time to its forward end time, then the next item starts at once (no gap).
public final class SimulatedQueuePlayer: QueuePlayer {
    public final class Item {
        public let entry: QueuePlan.Item
        init(entry: QueuePlan.Item) { self.entry = entry }
    }

    /// A switch from one item to the next, at a virtual-clock instant.
    public struct Transition: Hashable, Sendable {
        /// Virtual time played since the player was made.
        public let clock: MediaTime
        public let endedSegment: Int
        public let startedSegment: Int?
    }

    private var queue: [Item] = []
    public private(set) var currentTime: MediaTime = .zero
    /// Virtual time played so far.
    public private(set) var clock: MediaTime = .zero
    public private(set) var transitions: [Transition] = []
    /// The most items ever queued at once (current included).
    public private(set) var mostItemsQueued = 0
    /// Called after the player moved on to its next item.
    public var onCurrentItemChange: (() -> Void)?

    public init() {}

    public func makeItem(for entry: QueuePlan.Item) -> Item { Item(entry: entry) }
    public func items() -> [Item] { queue }
    public var currentItem: Item? { queue.first }

    public func insert(_ item: Item, after afterItem: Item?) {
        let wasEmpty = queue.isEmpty
        if let afterItem, let index = queue.firstIndex(where: { $0 === afterItem }) {
            queue.insert(item, at: index + 1)
        } else {
            queue.append(item)
        }
        mostItemsQueued = max(mostItemsQueued, queue.count)
        if wasEmpty { currentTime = item.entry.startTime }
    }

    public func advanceToNextItem() {
        guard !queue.isEmpty else { return }
        queue.removeFirst()
        currentTime = queue.first?.entry.startTime ?? .zero
    }

    public func remove(_ item: Item) {
        guard let index = queue.firstIndex(where: { $0 === item }) else { return }
        queue.remove(at: index)
        if index == 0 { currentTime = queue.first?.entry.startTime ?? .zero }
    }

    public func removeAllItems() {
        queue.removeAll()
        currentTime = .zero
    }

    public func seek(to itemTime: MediaTime) {
        guard let item = currentItem else { return }
        currentTime = MediaTime.min(MediaTime.max(itemTime, item.entry.startTime), item.entry.forwardPlaybackEndTime)
    }

    /// Plays for `duration` of virtual time, moving through items as each reaches its end.
    ///
    /// - Parameter duration: How much virtual time passes.
    public func play(for duration: MediaTime) {
        var remaining = duration
        while remaining > .zero, let item = currentItem {
            let room = item.entry.forwardPlaybackEndTime - currentTime
            if remaining < room {
                currentTime += remaining
                clock += remaining
                return
            }
            currentTime = item.entry.forwardPlaybackEndTime
            clock += room
            remaining -= room
            advanceToNextItem()
            transitions.append(Transition(
                clock: clock, endedSegment: item.entry.segmentIndex, startedSegment: currentItem?.entry.segmentIndex))
            onCurrentItemChange?()
        }
    }
}

/// The queue backend for `PlaybackSimulation`: a `SimulatedQueuePlayer` run by a `QueueDriver`.
public struct QueueBackendPlayer: SimulatedPlayer {
    public let driver: QueueDriver<SimulatedQueuePlayer>

    /// A queue player of `composition`, started at its beginning.
    ///
    /// - Parameters:
    ///   - composition: The composition to play.
    ///   - lookahead: How many items to keep queued after the current one, at least 1 (2 by default).
    public init(composition: Composition, lookahead: Int = 2) {
        let player = SimulatedQueuePlayer()
        driver = QueueDriver(plan: QueuePlan(composition: composition), player: player, lookahead: lookahead)
        player.onCurrentItemChange = { [weak driver] in driver?.currentItemDidChange() }
        driver.start(at: .zero)
    }

    public var compositionTime: MediaTime { driver.compositionTime }
    public mutating func play(for duration: MediaTime) { driver.player.play(for: duration) }
    public mutating func apply(_ command: PlaybackSession.PlayerCommand) { driver.apply(command) }
}
