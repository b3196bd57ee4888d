import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// `QueuePlayer` on an `AVQueuePlayer`. Each item ends at its `forwardPlaybackEndTime` and is
/// positioned at its start time when it is made, before it is queued: an item that becomes current
/// unpositioned plays from zero, showing frames before the cut. The positioning seek has no
/// completion handler, because AVFoundation refuses one on an item that is not ready to play yet.
/// `AVQueuePlayer` is main-actor isolated, and so is this (a `@preconcurrency` conformance: the
/// portable `QueueDriver` calls it from the main actor).
@MainActor
public final class AVQueuePlayerAdapter: @preconcurrency QueuePlayer {
    public let player: AVQueuePlayer
    /// Seeks asked for and not yet landed (their time is not to be trusted until then).
    private(set) var seeksInFlight = 0

    /// Wraps `player`.
    ///
    /// - Parameter player: The queue player to drive (a new `AVQueuePlayer` by default).
    public init(player: AVQueuePlayer = AVQueuePlayer()) {
        self.player = player
    }

    public func makeItem(for entry: QueuePlan.Item) -> AVPlayerItem {
        let asset = AVURLAsset(url: entry.source.foundationURL, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        let item = AVPlayerItem(asset: asset)
        item.forwardPlaybackEndTime = entry.forwardPlaybackEndTime.cmTime
        if entry.startTime > .zero {
            item.seek(to: entry.startTime.cmTime, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
        }
        return item
    }

    public func items() -> [AVPlayerItem] { player.items() }
    public var currentItem: AVPlayerItem? { player.currentItem }
    public func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) { player.insert(item, after: afterItem) }
    public func advanceToNextItem() { player.advanceToNextItem() }
    public func remove(_ item: AVPlayerItem) { player.remove(item) }
    /// Empties the queue; this stops playback (AVQueuePlayer.h), so whoever refills it plays again.
    public func removeAllItems() { player.removeAllItems() }

    public func seek(to itemTime: MediaTime) {
        seeksInFlight += 1
        player.seek(to: itemTime.cmTime, toleranceBefore: .zero, toleranceAfter: .zero) { [weak self] _ in
            Task { @MainActor in self?.seeksInFlight -= 1 }
        }
    }

    public var currentTime: MediaTime { MediaTime(player.currentTime()) ?? .zero }
}
