import CompositorCore

/// A `Linear` creative: the video that plays, its duration and skip offset, and what to track.
public struct VASTLinear: Hashable, Sendable {
    /// `Duration`, exact. Required of an InLine ad; a wrapper's linear has none.
    public var duration: MediaTime?
    /// The `skipoffset` attribute: when the viewer may skip. Nil when the ad is not skippable.
    public var skipOffset: VASTOffset?
    /// `MediaFiles/MediaFile`, in document order.
    public var mediaFiles: [VASTMediaFile]
    /// `MediaFiles/Mezzanine` URLs (VAST 4): the source a stitcher would transcode.
    public var mezzanines: [String]
    /// `TrackingEvents/Tracking`, in document order.
    public var tracking: [VASTTracking]
    /// `VideoClicks/ClickThrough`.
    public var clickThrough: String?
    /// `VideoClicks/ClickTracking` URLs.
    public var clickTracking: [String]
    /// The creative's `UniversalAdId`s (VAST 4), in document order.
    public var universalAdIDs: [VASTUniversalAdID]
    /// The `Creative`'s `id` and `adId` attributes.
    public var creativeID: String?
    public var creativeAdID: String?

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - duration: `Duration`, exact.
    ///   - skipOffset: The `skipoffset` attribute: when the viewer may skip.
    ///   - mediaFiles: `MediaFiles/MediaFile`, in document order.
    ///   - mezzanines: `MediaFiles/Mezzanine` URLs (VAST 4): the source a stitcher would transcode.
    ///   - tracking: `TrackingEvents/Tracking`, in document order.
    ///   - clickThrough: `VideoClicks/ClickThrough`.
    ///   - clickTracking: `VideoClicks/ClickTracking` URLs.
    ///   - universalAdIDs: The creative's `UniversalAdId`s (VAST 4), in document order.
    ///   - creativeID: The `Creative`'s `id` and `adId` attributes.
    ///   - creativeAdID: The `Creative`'s `adId`.
    public init(duration: MediaTime?, skipOffset: VASTOffset? = nil, mediaFiles: [VASTMediaFile] = [], mezzanines: [String] = [],
                tracking: [VASTTracking] = [], clickThrough: String? = nil, clickTracking: [String] = [],
                universalAdIDs: [VASTUniversalAdID] = [], creativeID: String? = nil, creativeAdID: String? = nil) {
        self.duration = duration
        self.skipOffset = skipOffset
        self.mediaFiles = mediaFiles
        self.mezzanines = mezzanines
        self.tracking = tracking
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
        self.universalAdIDs = universalAdIDs
        self.creativeID = creativeID
        self.creativeAdID = creativeAdID
    }
}

/// A creative's `UniversalAdId`: the registry (`ad-id.org`) and the identifier in it.
public struct VASTUniversalAdID: Hashable, Sendable {
    public var registry: String
    public var value: String

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - registry: `idRegistry` (`ad-id.org`).
    ///   - value: The identifier in that registry.
    public init(registry: String, value: String) {
        self.registry = registry
        self.value = value
    }
}

/// One `MediaFile`: a rendition of the ad's video.
public struct VASTMediaFile: Hashable, Sendable {
    public enum Delivery: String, Hashable, Sendable {
        case progressive, streaming
    }

    /// The file's URL.
    public var url: String
    /// `delivery`.
    public var delivery: Delivery
    /// `type`, the MIME type (`video/mp4`, `application/x-mpegURL`).
    public var type: String
    public var width: Int?
    public var height: Int?
    /// `bitrate` in kbit/s, or nil (then `minBitrate`/`maxBitrate` may say).
    public var bitrate: Int?
    public var minBitrate: Int?
    public var maxBitrate: Int?
    /// `codec` (RFC 6381), when stated.
    public var codec: String?
    /// `apiFramework` (`VPAID`): such a file is an interactive unit, never played here.
    public var apiFramework: String?
    public var id: String?
    /// The document line of the `MediaFile`.
    public var line: Int

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - url: The file's URL.
    ///   - delivery: `delivery`: progressive or streaming.
    ///   - type: `type`, the MIME type (`video/mp4`, `application/x-mpegURL`).
    ///   - width: `width` in pixels.
    ///   - height: `height` in pixels.
    ///   - bitrate: `bitrate` in kbit/s, or nil (then `minBitrate`/`maxBitrate` may say).
    ///   - minBitrate: `minBitrate` in kbit/s.
    ///   - maxBitrate: `maxBitrate` in kbit/s.
    ///   - codec: `codec` (RFC 6381), when stated.
    ///   - apiFramework: `apiFramework` (`VPAID`): such a file is an interactive unit, never played here.
    ///   - id: `id`.
    ///   - line: The document line of the `MediaFile`.
    public init(url: String, delivery: Delivery, type: String, width: Int? = nil, height: Int? = nil, bitrate: Int? = nil,
                minBitrate: Int? = nil, maxBitrate: Int? = nil, codec: String? = nil, apiFramework: String? = nil,
                id: String? = nil, line: Int = 0) {
        self.url = url
        self.delivery = delivery
        self.type = type
        self.width = width
        self.height = height
        self.bitrate = bitrate
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        self.codec = codec
        self.apiFramework = apiFramework
        self.id = id
        self.line = line
    }
}

/// One `Tracking` element: the event it reports and its URL.
public struct VASTTracking: Hashable, Sendable {
    public var event: VASTTrackingEvent
    public var url: String

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - event: The event it reports.
    ///   - url: The file's URL.
    public init(event: VASTTrackingEvent, url: String) {
        self.event = event
        self.url = url
    }
}

/// The linear tracking events this library reports.
public enum VASTTrackingEvent: Hashable, Sendable {
    case creativeView, start, firstQuartile, midpoint, thirdQuartile, complete
    /// `progress` with its `offset`: due when the ad has played that far.
    case progress(VASTOffset)
    case pause, resume, skip, mute, unmute, rewind, closeLinear, playerExpand, playerCollapse
    case otherAdInteraction, acceptInvitation, acceptInvitationLinear, fullscreen, exitFullscreen, expand, collapse, close
    /// `loaded` (VAST 4: the ad's file loaded).
    case loaded

    /// The event's name as VAST writes it (`progress` for every offset).
    public var name: String {
        switch self {
        case .creativeView: "creativeView"
        case .start: "start"
        case .firstQuartile: "firstQuartile"
        case .midpoint: "midpoint"
        case .thirdQuartile: "thirdQuartile"
        case .complete: "complete"
        case .progress: "progress"
        case .pause: "pause"
        case .resume: "resume"
        case .skip: "skip"
        case .mute: "mute"
        case .unmute: "unmute"
        case .rewind: "rewind"
        case .closeLinear: "closeLinear"
        case .playerExpand: "playerExpand"
        case .playerCollapse: "playerCollapse"
        case .otherAdInteraction: "otherAdInteraction"
        case .acceptInvitation: "acceptInvitation"
        case .acceptInvitationLinear: "acceptInvitationLinear"
        case .fullscreen: "fullscreen"
        case .exitFullscreen: "exitFullscreen"
        case .expand: "expand"
        case .collapse: "collapse"
        case .close: "close"
        case .loaded: "loaded"
        }
    }

    /// Every event but `progress`, by name.
    static let byName: [String: VASTTrackingEvent] = Dictionary(uniqueKeysWithValues: [
        .creativeView, .start, .firstQuartile, .midpoint, .thirdQuartile, .complete, .pause, .resume, .skip, .mute,
        .unmute, .rewind, .closeLinear, .playerExpand, .playerCollapse, .otherAdInteraction, .acceptInvitation,
        .acceptInvitationLinear, .fullscreen, .exitFullscreen, .expand, .collapse, .close, .loaded,
    ].map { ($0.name, $0) })
}
