// Stand-in for AVPlayerItem (AVFoundation/AVPlayerItem.h). `@MainActor` as the SDK declares it
// (`NS_SWIFT_UI_ACTOR`), with the nonisolated members the SDK marks `NS_SWIFT_NONISOLATED`:
// `init(url:)`, `init(asset: any AVAsset & Sendable)` and the seeks.
//
// Rules modelled:
// - A seek with a completion handler before the item is ready to play is refused (an
//   `NSInvalidArgumentException` on devices: "AVPlayerItem cannot service a seek request with a
//   completion handler until its status is AVPlayerItemStatusReadyToPlay"). A seek without one
//   positions the item: it starts there when it becomes current.
// - An item that becomes current without being positioned plays from zero.
// - `currentDate()` is the date its media maps the current time to (`StandInMedia.startDate` plus
//   the time), nil when it maps none; `seek(to: Date)` "will fail if the supplied date is outside
//   the range or if the content is not associated with a range of dates": here, a date before
//   the start date, past the end of media that ends, or media without dates.
#if !canImport(AVFoundation)
import Foundation

@preconcurrency @MainActor
open class AVPlayerItem {
    /// `AVPlayerItem.Status`.
    public enum Status: Int, Sendable {
        case unknown, readyToPlay, failed
    }

    public nonisolated(unsafe) let asset: AVAsset
    public internal(set) var status: Status = .unknown
    /// Where forward playback ends; `.invalid` for the item's end.
    public var forwardPlaybackEndTime: CMTime = .invalid
    public var videoComposition: AVVideoComposition?
    public var audioMix: AVAudioMix?

    /// The item's clock, at timescale 10^9 as players report it.
    var time: CMTime = .zero
    /// Where a seek without completion handler put the item before it became current.
    var startPosition: CMTime?
    weak var player: AVPlayer?
    /// The item times shown, one range per stretch of playback (stand-in only, for tests).
    package internal(set) var presented: [CMTimeRange] = []

    public init(asset: AVAsset) {
        self.asset = asset
    }

    public nonisolated init(asset: any AVAsset & Sendable) {
        self.asset = asset
    }

    public nonisolated init(url URL: URL) {
        self.asset = AVURLAsset(url: URL)
    }

    /// `duration`: the asset's, `.indefinite` while unknown.
    public var duration: CMTime {
        switch asset {
        case let composition as AVComposition: return composition.duration
        case let composition as AVMutableComposition: return composition.duration
        case let urlAsset as AVURLAsset: return StandInWorld.content(at: urlAsset.url)?.duration ?? .indefinite
        default: return .indefinite
        }
    }

    /// Where playback of this item stops: `forwardPlaybackEndTime` when set, else the duration.
    var playbackEnd: CMTime { forwardPlaybackEndTime.isNumeric ? forwardPlaybackEndTime : duration }

    public func currentTime() -> CMTime { time }

    /// The media's date at time zero, if it has dates.
    private var startDate: Date? { (asset as? AVURLAsset).flatMap { StandInWorld.content(at: $0.url)?.startDate } }

    /// `currentDate()`: the date the current time is mapped to, or nil.
    public nonisolated func currentDate() -> Date? {
        MainActor.assumeIsolated { startDate.map { $0.addingTimeInterval(time.seconds) } }
    }

    /// `seek(to:completionHandler:)` for a date: a seek to the time the date is mapped to.
    ///
    /// - Returns: Whether the date is in the item's range of dates (the seek was made).
    public nonisolated func seek(to date: Date, completionHandler: (@Sendable (Bool) -> Void)? = nil) -> Bool {
        MainActor.assumeIsolated {
            guard let startDate, date >= startDate else { return false }
            let time = CMTime(seconds: date.timeIntervalSince(startDate), preferredTimescale: kCMTimeMaxTimescale)
            if duration.isNumeric, time > duration { return false }
            seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: completionHandler)
            return true
        }
    }

    /// `seek(to:toleranceBefore:toleranceAfter:completionHandler:)`.
    public nonisolated func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
                                 completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        MainActor.assumeIsolated {
            if let player, player.currentItem === self {
                player.seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { completionHandler?($0) }
                return
            }
            if completionHandler != nil, status != .readyToPlay {
                StandInWorld.broke("AVPlayerItem.seek(to:…completionHandler:) before readyToPlay: \"AVPlayerItem cannot service "
                    + "a seek request with a completion handler until its status is AVPlayerItemStatusReadyToPlay\"")
                return
            }
            startPosition = time.convertScale(kCMTimeMaxTimescale, method: .roundHalfAwayFromZero)
        }
    }

    /// Became the player's current item: ready, at its start position or zero.
    func becameCurrent(in player: AVPlayer) {
        self.player = player
        status = .readyToPlay
        time = startPosition ?? CMTime(value: 0, timescale: kCMTimeMaxTimescale)
        startPosition = nil
    }

    func showed(from start: CMTime, to end: CMTime) {
        guard start < end else { return }
        if let last = presented.last, last.end == start {
            presented[presented.count - 1] = CMTimeRange(start: last.start, end: end)
        } else {
            presented.append(CMTimeRange(start: start, end: end))
        }
    }
}

/// `AVVideoComposition` (AVVideoComposition.h): what the stand-in keeps of it.
open class AVVideoComposition: @unchecked Sendable {
    public internal(set) var renderSize: CGSize = .zero
    public internal(set) var frameDuration: CMTime = .invalid
    public internal(set) var instructions: [AVVideoCompositionInstruction] = []
    init() {}
}

/// `AVMutableVideoComposition`.
open class AVMutableVideoComposition: AVVideoComposition, @unchecked Sendable {
    public override init() {}
    public override var renderSize: CGSize { get { super.renderSize } set { super.renderSize = newValue } }
    public override var frameDuration: CMTime { get { super.frameDuration } set { super.frameDuration = newValue } }
    public override var instructions: [AVVideoCompositionInstruction] { get { super.instructions } set { super.instructions = newValue } }
}

/// `AVVideoCompositionInstruction` / `AVMutableVideoCompositionInstruction`.
open class AVVideoCompositionInstruction: @unchecked Sendable {
    public internal(set) var timeRange: CMTimeRange = .invalid
    public internal(set) var layerInstructions: [AVVideoCompositionLayerInstruction] = []
    init() {}
}

open class AVMutableVideoCompositionInstruction: AVVideoCompositionInstruction, @unchecked Sendable {
    public override init() {}
    public override var timeRange: CMTimeRange { get { super.timeRange } set { super.timeRange = newValue } }
    public override var layerInstructions: [AVVideoCompositionLayerInstruction] {
        get { super.layerInstructions } set { super.layerInstructions = newValue }
    }
}

/// `AVVideoCompositionLayerInstruction` / `AVMutableVideoCompositionLayerInstruction`.
open class AVVideoCompositionLayerInstruction: @unchecked Sendable {
    public internal(set) var trackID: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    /// The transforms set, with the time each starts (stand-in only, for tests).
    package internal(set) var transforms: [(transform: CGAffineTransform, time: CMTime)] = []
    init() {}
}

open class AVMutableVideoCompositionLayerInstruction: AVVideoCompositionLayerInstruction, @unchecked Sendable {
    public override init() {}
    public override var trackID: CMPersistentTrackID { get { super.trackID } set { super.trackID = newValue } }
    public func setTransform(_ transform: CGAffineTransform, at time: CMTime) { transforms.append((transform, time)) }
}
#endif
