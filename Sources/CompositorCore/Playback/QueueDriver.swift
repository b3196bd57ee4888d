/// Plays a `QueuePlan` on a `QueuePlayer`: keeps the current item and at most `lookahead` items
/// queued (Apple advises enqueuing only what is needed soon), reports the playhead in composition
/// time, and carries out a `PlaybackSession`'s commands. Every decision lives here, so the
/// AVFoundation adapter only forwards calls.
public final class QueueDriver<Player: QueuePlayer> {
    public private(set) var plan: QueuePlan
    public let player: Player
    /// Items queued after the current one.
    public let lookahead: Int
    private var entries: [ObjectIdentifier: Int] = [:]
    /// The plan index of the last item queued.
    private var lastQueued: Int?

    /// Creates a driver; nothing is queued until `start(at:)`.
    ///
    /// - Parameters:
    ///   - plan: The items to play.
    ///   - player: The queue player to drive.
    ///   - lookahead: How many items to keep queued after the current one, at least 1 (2 by default).
    public init(plan: QueuePlan, player: Player, lookahead: Int = 2) {
        precondition(lookahead >= 1, "a gapless queue needs at least the next item queued")
        self.plan = plan
        self.player = player
        self.lookahead = lookahead
    }

    /// The playhead in composition time: the current item's time mapped through its plan entry;
    /// the plan's end once the queue has run out.
    public var compositionTime: MediaTime {
        guard let item = player.currentItem, let index = entries[ObjectIdentifier(item)] else { return plan.duration }
        return plan.items[index].compositionTime(forItemTime: player.currentTime)
    }

    /// The plan index of the current item.
    public var currentIndex: Int? {
        player.currentItem.flatMap { entries[ObjectIdentifier($0)] }
    }

    /// Fills the queue from the item at `compositionTime` and seeks into it.
    ///
    /// - Parameter compositionTime: Where to start; outside the plan, the queue is left empty.
    public func start(at compositionTime: MediaTime) {
        player.removeAllItems()
        entries.removeAll()
        lastQueued = nil
        guard let index = plan.itemIndex(at: compositionTime) else { return }
        enqueue(from: index)
        let entry = plan.items[index]
        let offset = compositionTime - entry.compositionRange.start
        if offset > .zero { player.seek(to: entry.startTime + offset) }
    }

    /// Call when the player moved to its next item (`AVPlayerItemDidPlayToEndTime`, or a change of
    /// `currentItem`): tops the queue up again.
    public func currentItemDidChange() {
        // Forget items the player let go of, then queue up to `lookahead` after the current one.
        let live = Set(player.items().map(ObjectIdentifier.init))
        entries = entries.filter { live.contains($0.key) }
        guard let current = currentIndex, let last = lastQueued else { return }
        let end = min(plan.items.count, current + 1 + lookahead)
        if last + 1 < end { for index in (last + 1)..<end { append(index) } }
    }

    /// Seeks to `compositionTime`: within the current item by a seek, elsewhere by refilling the queue.
    ///
    /// - Parameter compositionTime: Where to go.
    public func seek(to compositionTime: MediaTime) {
        if let current = currentIndex, plan.items[current].compositionRange.contains(compositionTime) {
            let entry = plan.items[current]
            player.seek(to: entry.startTime + (compositionTime - entry.compositionRange.start))
        } else {
            start(at: compositionTime)
        }
    }

    /// Replaces the plan (the composition changed) and continues at `compositionTime`.
    ///
    /// - Parameters:
    ///   - newPlan: The new composition's plan.
    ///   - compositionTime: Where to continue in it.
    public func load(_ newPlan: QueuePlan, at compositionTime: MediaTime) {
        plan = newPlan
        start(at: compositionTime)
    }

    /// Carries out a `PlaybackSession` command.
    ///
    /// - Parameter command: A seek, or a new composition to load.
    public func apply(_ command: PlaybackSession.PlayerCommand) {
        switch command {
        case .seek(let time): seek(to: time)
        case .load(let composition, let time): load(QueuePlan(composition: composition), at: time)
        }
    }

    private func enqueue(from index: Int) {
        for i in index..<min(plan.items.count, index + 1 + lookahead) { append(i) }
    }

    private func append(_ index: Int) {
        let item = player.makeItem(for: plan.items[index])
        player.insert(item, after: nil)
        entries[ObjectIdentifier(item)] = index
        lastQueued = index
    }
}
