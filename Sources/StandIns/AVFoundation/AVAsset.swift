// Stand-ins for AVAsset, AVURLAsset and AVAssetTrack (AVFoundation/AVAsset.h, AVAssetTrack.h,
// AVAsynchronousKeyValueLoading.h), with the async loading API of iOS 15 / macOS 12.
#if !canImport(AVFoundation)
import Foundation

/// `AVAsset`: loads its tracks asynchronously. Not `Sendable`: the mutable composition subclass is
/// not, and the thread-safe subclasses declare it themselves (as the SDK does).
open class AVAsset {
    init() {}

    /// `loadTracks(withMediaType:)` (iOS 15, macOS 12).
    open func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] { [] }
}

/// `AVURLAssetPreferPreciseDurationAndTimingKey` (AVAsset.h): ask for exact durations and timing
/// (for compositions and exact seeks) at the cost of loading time.
public let AVURLAssetPreferPreciseDurationAndTimingKey = "AVURLAssetPreferPreciseDurationAndTimingKey"

/// `AVURLAsset`: the media at a URL. `NS_SWIFT_SENDABLE` in the SDK.
open class AVURLAsset: AVAsset, @unchecked Sendable {
    public let url: URL
    /// The options given at creation (the stand-in keeps them so tests can see what was asked).
    package let options: [String: Any]
    private var loadedTracks: [AVAssetTrack]?

    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        self.options = options ?? [:]
    }

    open override func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        guard let content = StandInWorld.content(at: url) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError,
                          userInfo: [NSFilePathErrorKey: url.path])
        }
        let tracks = loadedTracks ?? content.tracks.enumerated().map { index, track in
            AVAssetTrack(asset: self, trackID: CMPersistentTrackID(index + 1), content: track)
        }
        loadedTracks = tracks
        return tracks.filter { $0.mediaType == mediaType }
    }
}

/// `AVAssetTrack`. `asset` is weak, as declared (`weak var asset: AVAsset? { get }`): a track
/// outlives its asset only as a dangling reference, and media cannot be read through it.
open class AVAssetTrack: @unchecked Sendable {
    public private(set) weak var asset: AVAsset?
    public let trackID: CMPersistentTrackID
    public let mediaType: AVMediaType
    /// The media of a URL asset's track; `nil` for a composition's track.
    let content: StandInMedia.Track?
    /// The asset's URL, kept for the composition's track segments (`AVCompositionTrackSegment.sourceURL`).
    let sourceURL: URL?

    init(asset: AVAsset?, trackID: CMPersistentTrackID, mediaType: AVMediaType, content: StandInMedia.Track?, sourceURL: URL?) {
        self.asset = asset
        self.trackID = trackID
        self.mediaType = mediaType
        self.content = content
        self.sourceURL = sourceURL
    }

    convenience init(asset: AVURLAsset, trackID: CMPersistentTrackID, content: StandInMedia.Track) {
        self.init(asset: asset, trackID: trackID, mediaType: content.mediaType, content: content, sourceURL: asset.url)
    }

    var loadableTimeRange: CMTimeRange { content?.timeRange ?? .zero }

    /// `load(_:)` of one property (AVAsynchronousKeyValueLoading).
    public func load<T>(_ property: AVAsyncProperty<AVAssetTrack, T>) async throws -> T {
        property.read(self)
    }
}

/// `AVPartialAsyncProperty<Root>` and `AVAsyncProperty<Root, Value>`: the keys of `load(_:)`.
open class AVPartialAsyncProperty<Root>: @unchecked Sendable {
    init() {}
}

public final class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {
    let read: (Root) -> Value
    init(read: @escaping (Root) -> Value) { self.read = read }
}

extension AVPartialAsyncProperty where Root == AVAssetTrack {
    public static var timeRange: AVAsyncProperty<AVAssetTrack, CMTimeRange> { .init { $0.loadableTimeRange } }
    public static var naturalSize: AVAsyncProperty<AVAssetTrack, CGSize> { .init { $0.content?.naturalSize ?? .zero } }
    public static var preferredTransform: AVAsyncProperty<AVAssetTrack, CGAffineTransform> {
        .init { $0.content?.preferredTransform ?? .identity }
    }
    public static var minFrameDuration: AVAsyncProperty<AVAssetTrack, CMTime> { .init { $0.content?.minFrameDuration ?? .invalid } }
    public static var preferredVolume: AVAsyncProperty<AVAssetTrack, Float> { .init { $0.content?.preferredVolume ?? 1 } }
}
#endif
