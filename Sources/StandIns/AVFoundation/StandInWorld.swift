// What the AVFoundation stand-in needs from the tests that drive it, and what it reports back.
// None of this exists in Apple's AVFoundation: it is `package` API, reached only by this package's
// tests, and the adapters never touch it.
#if !canImport(AVFoundation)
// AVFoundation re-exports Foundation and CoreMedia; so does its stand-in.
@_exported import Foundation
@_exported import CoreMediaStandIn

/// The media behind a URL, as AVFoundation would load it.
package struct StandInMedia: Sendable {
    package struct Track: Sendable {
        package var mediaType: AVMediaType
        package var timeRange: CMTimeRange
        package var naturalSize: CGSize
        package var preferredTransform: CGAffineTransform
        package var minFrameDuration: CMTime
        package var preferredVolume: Float

        package init(_ mediaType: AVMediaType, timeRange: CMTimeRange, naturalSize: CGSize = .zero,
                     preferredTransform: CGAffineTransform = .identity,
                     minFrameDuration: CMTime = CMTime(value: 1, timescale: 30), preferredVolume: Float = 1) {
            self.mediaType = mediaType
            self.timeRange = timeRange
            self.naturalSize = naturalSize
            self.preferredTransform = preferredTransform
            self.minFrameDuration = minFrameDuration
            self.preferredVolume = preferredVolume
        }
    }

    package var tracks: [Track]
    /// How long an `AVPlayerItem` of it plays (`.indefinite` for a live stream: it plays on).
    package var duration: CMTime
    /// The date its time zero is mapped to (a playlist's `EXT-X-PROGRAM-DATE-TIME`), if any.
    package var startDate: Date?

    package init(tracks: [Track], duration: CMTime? = nil, startDate: Date? = nil) {
        self.tracks = tracks
        self.duration = duration ?? tracks.map(\.timeRange.end).max() ?? .zero
        self.startDate = startDate
    }
}

/// The stand-in's shared state: registered media, the callbacks waiting for the main queue, and
/// the calls that broke one of Apple's documented rules. Tests that use it run one at a time
/// (a serialized suite) and call `reset()` first.
package enum StandInWorld {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var media: [String: StandInMedia] = [:]
    nonisolated(unsafe) private static var brokenRules: [String] = []
    @MainActor private static var mainQueue: [() -> Void] = []

    /// Forgets media, callbacks and rule breaks.
    @MainActor package static func reset() {
        lock.withLock {
            media.removeAll()
            brokenRules.removeAll()
        }
        mainQueue.removeAll()
    }

    /// What `AVURLAsset(url:)` and `AVPlayerItem(url:)` find at `url`.
    package static func register(_ url: URL, _ content: StandInMedia) {
        lock.withLock { media[url.absoluteString] = content }
    }

    static func content(at url: URL) -> StandInMedia? {
        lock.withLock { media[url.absoluteString] }
    }

    /// Calls that Apple documents as impossible or undefined, in the order made. Each names the rule
    /// and where Apple states it.
    package static var ruleBreaks: [String] { lock.withLock { brokenRules } }

    static func broke(_ rule: String) {
        lock.withLock { brokenRules.append(rule) }
    }

    /// Callbacks AVFoundation would dispatch to the main queue: they run later, in order, when the
    /// test drains the queue (as the run loop would).
    @MainActor static func enqueue(_ callback: @escaping () -> Void) { mainQueue.append(callback) }

    /// Runs queued callbacks until none is left (callbacks may queue more), yielding between them
    /// so tasks they start get to run. Returns how many ran.
    @MainActor @discardableResult
    package static func drainMainQueue() async -> Int {
        var count = 0
        while true {
            for _ in 0..<8 { await Task.yield() }
            guard !mainQueue.isEmpty else { return count }
            let next = mainQueue.removeFirst()
            next()
            count += 1
        }
    }
}
#endif
