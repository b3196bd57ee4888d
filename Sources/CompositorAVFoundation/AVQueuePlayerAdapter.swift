import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation

/// `QueuePlayer` on an `AVQueuePlayer`: each item gets its `forwardPlaybackEndTime`, and starts by
/// a zero-tolerance seek to its start time when it becomes current. Everything else is forwarded.
public final class AVQueuePlayerAdapter: QueuePlayer {
    public let player: AVQueuePlayer
    private var startTimes: [ObjectIdentifier: CMTime] = [:]

    public init(player: AVQueuePlayer = AVQueuePlayer()) {
        self.player = player
    }

    public func makeItem(for entry: QueuePlan.Item) -> AVPlayerItem {
        let item = AVPlayerItem(url: entry.source.foundationURL)
        item.forwardPlaybackEndTime = entry.forwardPlaybackEndTime.cmTime
        startTimes[ObjectIdentifier(item)] = entry.startTime.cmTime
        return item
    }

    public func items() -> [AVPlayerItem] { player.items() }
    public var currentItem: AVPlayerItem? { player.currentItem }
    public func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) { player.insert(item, after: afterItem) }
    public func advanceToNextItem() { player.advanceToNextItem() }
    public func remove(_ item: AVPlayerItem) { player.remove(item); startTimes[ObjectIdentifier(item)] = nil }
    public func removeAllItems() { player.removeAllItems(); startTimes.removeAll() }

    public func seek(to itemTime: MediaTime) {
        player.seek(to: itemTime.cmTime, toleranceBefore: .zero, toleranceAfter: .zero)
    }

    public var currentTime: MediaTime { MediaTime(player.currentTime()) ?? .zero }

    /// Call when `currentItem` changes (observe it with KVO), before `QueueDriver.currentItemDidChange()`:
    /// starts the new current item at its start time.
    public func startCurrentItem() {
        guard let item = player.currentItem, let start = startTimes[ObjectIdentifier(item)], start != .zero else { return }
        player.seek(to: start, toleranceBefore: .zero, toleranceAfter: .zero)
    }
}
#endif
