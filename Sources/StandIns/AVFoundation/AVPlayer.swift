// Stand-ins for AVPlayer and AVQueuePlayer (AVFoundation/AVPlayer.h), `@MainActor` as the SDK
// declares them, with their documented timing behaviour:
// - `currentTime()` at timescale 10^9, the clock players report.
// - Seeks complete later (`standInCompleteSeek()`); "the completion handler for any prior seek
//   request that is still in process will be invoked immediately with the finished parameter set
//   to false". Until a seek completes the player reports the time it had.
// - Periodic observers are invoked at each multiple of their interval during playback, and
//   "whenever time jumps or playback starts or stops"; boundary observers when a time is
//   "traversed during normal playback" (not by a seek). `addBoundaryTimeObserver` with no times
//   raises an exception. Each observer must be removed with `removeTimeObserver(_:)`.
// - Callbacks run on the main queue, after the call that caused them (`StandInWorld.drainMainQueue`).
// - `AVQueuePlayer.removeAllItems()` "removes all currently enqueued player items and stops
//   playback"; an item becoming current plays from zero unless it was positioned before.
#if !canImport(AVFoundation)
import Foundation

@preconcurrency @MainActor
open class AVPlayer {
    /// `AVPlayer.ActionAtItemEnd`.
    public enum ActionAtItemEnd: Int, Sendable {
        case advance, pause, none
    }

    public internal(set) var currentItem: AVPlayerItem?
    public var rate: Float = 0
    public var actionAtItemEnd: ActionAtItemEnd = .pause

    private final class Observer: @unchecked Sendable {
        let interval: CMTime?
        let times: [CMTime]
        let periodic: (@Sendable (CMTime) -> Void)?
        let boundary: (@Sendable () -> Void)?
        init(interval: CMTime?, times: [CMTime], periodic: (@Sendable (CMTime) -> Void)?, boundary: (@Sendable () -> Void)?) {
            (self.interval, self.times, self.periodic, self.boundary) = (interval, times, periodic, boundary)
        }
    }

    private var observers: [Observer] = []
    private var pendingSeek: (target: CMTime, completion: @Sendable (Bool) -> Void)?

    public init() {}

    public init(playerItem item: AVPlayerItem?) {
        if let item { install(item) }
    }

    public func replaceCurrentItem(with item: AVPlayerItem?) {
        cancelPendingSeek()
        currentItem?.player = nil
        currentItem = nil
        if let item { install(item) }
        timeJumped()
    }

    func install(_ item: AVPlayerItem) {
        currentItem = item
        item.becameCurrent(in: self)
    }

    public func play() {
        rate = 1
        timeJumped()
    }

    public func pause() {
        rate = 0
        timeJumped()
    }

    /// The current item's time at timescale 10^9, or zero without an item.
    public func currentTime() -> CMTime { currentItem?.time ?? CMTime(value: 0, timescale: kCMTimeMaxTimescale) }

    public nonisolated func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
                                 completionHandler: @escaping @Sendable (Bool) -> Void) {
        MainActor.assumeIsolated {
            cancelPendingSeek()
            guard currentItem != nil, time.isNumeric else {
                StandInWorld.enqueue { completionHandler(false) }
                return
            }
            pendingSeek = (time, completionHandler)
        }
    }

    public nonisolated func addPeriodicTimeObserver(forInterval interval: CMTime, queue: DispatchQueue?,
                                                    using block: @escaping @Sendable (CMTime) -> Void) -> Any {
        let observer = Observer(interval: interval, times: [], periodic: block, boundary: nil)
        MainActor.assumeIsolated { observers.append(observer) }
        return observer
    }

    public nonisolated func addBoundaryTimeObserver(forTimes times: [NSValue], queue: DispatchQueue?,
                                                    using block: @escaping @Sendable () -> Void) -> Any {
        if times.isEmpty {
            StandInWorld.broke("addBoundaryTimeObserver(forTimes:) with no times: \"the system raises an exception if you pass an empty array\"")
        }
        let observer = Observer(interval: nil, times: times.map(\.timeValue), periodic: nil, boundary: block)
        MainActor.assumeIsolated { observers.append(observer) }
        return observer
    }

    public nonisolated func removeTimeObserver(_ observer: Any) {
        let token = observer as? Observer
        MainActor.assumeIsolated {
            guard let observer = token, observers.contains(where: { $0 === observer }) else {
                StandInWorld.broke("removeTimeObserver(_:) of an observer this player did not add")
                return
            }
            observers.removeAll { $0 === observer }
        }
    }

    // MARK: Stand-in control (tests only)

    /// Time observers added and not removed.
    package var standInObserverCount: Int { observers.count }

    /// The times the boundary observers watch, in order.
    package var standInBoundaryTimes: [CMTime] { observers.flatMap(\.times).sorted() }

    /// Whether a seek is in process.
    package var standInSeekPending: Bool { pendingSeek != nil }

    /// Completes the seek in process: the time jumps there (clamped to the item), its completion
    /// handler and the periodic observers are queued.
    package func standInCompleteSeek() {
        guard let (target, completion) = pendingSeek, let item = currentItem else { return }
        pendingSeek = nil
        let end = item.playbackEnd.isNumeric ? item.playbackEnd : target
        let clamped = max(CMTime.zero, min(target, end)).convertScale(kCMTimeMaxTimescale, method: .roundHalfAwayFromZero)
        item.time = clamped
        StandInWorld.enqueue { completion(true) }
        timeJumped()
    }

    /// Plays for `duration` of item time at the current rate: queues the observers crossed, and at
    /// the end of an item does what `actionAtItemEnd` says. Nothing moves while a seek is in process.
    package func standInPlay(for duration: CMTime) {
        var remaining = duration.convertScale(kCMTimeMaxTimescale, method: .roundHalfAwayFromZero)
        while remaining > .zero, rate != 0, pendingSeek == nil, let item = currentItem {
            let from = item.time
            let end = item.playbackEnd
            let to = end.isNumeric ? min(from + remaining, end) : from + remaining
            remaining = remaining - (to - from)
            item.time = to
            item.showed(from: from, to: to)
            crossed(from: from, to: to)
            if end.isNumeric, to >= end { itemDidPlayToEnd(item) } else { break }
        }
    }

    func itemDidPlayToEnd(_ item: AVPlayerItem) {
        switch actionAtItemEnd {
        case .pause, .none:
            rate = 0
            timeJumped()
        case .advance:
            advance(past: item)
        }
    }

    /// The queue player's move to its next item; a plain player has none.
    func advance(past item: AVPlayerItem) {
        replaceCurrentItem(with: nil)
        rate = 0
    }

    private func crossed(from: CMTime, to: CMTime) {
        var calls: [(CMTime, () -> Void)] = []
        for observer in observers {
            if let interval = observer.interval, let block = observer.periodic, interval > .zero {
                var tick = interval
                while tick <= to {
                    if tick > from { let at = tick; calls.append((at, { block(at) })) }
                    tick = tick + interval
                }
            }
            if let block = observer.boundary {
                for time in observer.times where from < time && time <= to { calls.append((time, block)) }
            }
        }
        for (_, call) in calls.sorted(by: { $0.0 < $1.0 }) { StandInWorld.enqueue(call) }
    }

    /// A jump, a start or a stop: every periodic observer hears the time now.
    func timeJumped() {
        let now = currentTime()
        for observer in observers {
            if let block = observer.periodic { StandInWorld.enqueue { block(now) } }
        }
    }

    private func cancelPendingSeek() {
        guard let (_, completion) = pendingSeek else { return }
        pendingSeek = nil
        StandInWorld.enqueue { completion(false) }
    }
}

@preconcurrency @MainActor
open class AVQueuePlayer: AVPlayer {
    private var queue: [AVPlayerItem] = []

    public override init() {
        super.init()
        actionAtItemEnd = .advance
    }

    public init(items: [AVPlayerItem]) {
        super.init()
        actionAtItemEnd = .advance
        for item in items { insert(item, after: nil) }
    }

    public func items() -> [AVPlayerItem] { queue }

    public func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        !queue.contains { $0 === item } && (afterItem.map { after in queue.contains { $0 === after } } ?? true)
    }

    public func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        guard canInsert(item, after: afterItem) else {
            StandInWorld.broke("AVQueuePlayer.insert(_:after:) of an item canInsert refuses")
            return
        }
        if let afterItem, let index = queue.firstIndex(where: { $0 === afterItem }) {
            queue.insert(item, at: index + 1)
        } else {
            queue.append(item)
        }
        if currentItem == nil { install(item); timeJumped() }
    }

    public func remove(_ item: AVPlayerItem) {
        guard let index = queue.firstIndex(where: { $0 === item }) else { return }
        queue.remove(at: index)
        if item === currentItem { replaceCurrentItem(with: queue.first) }
    }

    /// Removes every item and stops playback (AVQueuePlayer.h).
    public func removeAllItems() {
        queue.removeAll()
        replaceCurrentItem(with: nil)
        rate = 0
    }

    public func advanceToNextItem() {
        guard let current = currentItem else { return }
        advance(past: current)
    }

    override func advance(past item: AVPlayerItem) {
        queue.removeAll { $0 === item }
        let playing = rate
        replaceCurrentItem(with: queue.first)
        rate = queue.isEmpty ? 0 : playing
    }
}

extension NSValue {
    /// `init(time:)` (AVTime.h).
    public convenience init(time: CMTime) {
        var time = time
        // swift-corelibs-foundation cannot box structs by their type encoding; their bytes it can.
        self.init(bytes: &time, objCType: "[\(MemoryLayout<CMTime>.size)C]")
    }

    /// `timeValue` (AVTime.h).
    public var timeValue: CMTime {
        var time = CMTime.invalid
        getValue(&time)
        return time
    }
}
#endif
