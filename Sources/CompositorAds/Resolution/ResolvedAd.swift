import CompositorCore

/// An ad ready to play: the InLine ad at the end of its wrapper chain, with everything the chain
/// asks to be told merged in (impressions, tracking, errors, outermost first), and its media files
/// ranked for the output that will play it.
public struct ResolvedAd: Hashable, Sendable {
    /// The InLine ad's `id`.
    public var id: String?
    /// The `sequence` of the slot in the first document (nil for a stand-alone ad).
    public var sequence: Int?
    public var adSystem: String?
    public var title: String?
    /// `Duration`, exact; once `AdSchedule.loadSources` has loaded the media, the length that
    /// plays, which percentages (progress offsets, a skip offset) are taken of.
    public var duration: MediaTime
    public var skipOffset: VASTOffset?
    /// The file that plays: the best-ranked playable file (`MediaFileSelection`).
    public var mediaFile: VASTMediaFile
    /// The other playable files, next best first: where the ad falls when `mediaFile` fails to load.
    public var fallbackMediaFiles: [VASTMediaFile]
    /// `mediaFile`, then `fallbackMediaFiles`.
    public var mediaFiles: [VASTMediaFile] { [mediaFile] + fallbackMediaFiles }
    /// `Impression` URLs of every ad in the chain, outermost wrapper first.
    public var impressions: [String]
    /// Linear tracking of every ad in the chain, outermost first.
    public var tracking: [VASTTracking]
    /// `Error` URLs of every ad in the chain, outermost first.
    public var errors: [String]
    /// `ClickThrough` (the InLine's) and the chain's `ClickTracking`.
    public var clickThrough: String?
    public var clickTracking: [String]
    /// The `VASTAdTagURI`s followed to reach the ad, in order.
    public var wrappers: [String]
    public var universalAdIDs: [VASTUniversalAdID]
    /// The chain's `AdVerifications`, for the app to run.
    public var verifications: [VASTVerification]

    /// An ad an app resolved by its own means (its ad decisions, a server's), to be tracked as the
    /// resolver's are.
    ///
    /// - Parameters:
    ///   - id: The InLine ad's `id`.
    ///   - sequence: The `sequence` of the slot in the first document (nil for a stand-alone ad).
    ///   - adSystem: `AdSystem`.
    ///   - title: `AdTitle`.
    ///   - duration: `Duration`, exact.
    ///   - skipOffset: `skipoffset`: when the viewer may skip (nil: not skippable).
    ///   - mediaFile: The file that plays: the best-ranked playable file (`MediaFileSelection`).
    ///   - fallbackMediaFiles: The other playable files, next best first: where the ad falls when `mediaFile` fails to load.
    ///   - impressions: `Impression` URLs of every ad in the chain, outermost wrapper first.
    ///   - tracking: Linear tracking of every ad in the chain, outermost first.
    ///   - errors: `Error` URLs of every ad in the chain, outermost first.
    ///   - clickThrough: `ClickThrough` (the InLine's) and the chain's `ClickTracking`.
    ///   - clickTracking: The chain's `ClickTracking` URLs.
    ///   - wrappers: The `VASTAdTagURI`s followed to reach the ad, in order.
    ///   - universalAdIDs: The creative's `UniversalAdId`s.
    ///   - verifications: The chain's `AdVerifications`, for the app to run.
    public init(id: String?, sequence: Int? = nil, adSystem: String? = nil, title: String? = nil, duration: MediaTime,
                skipOffset: VASTOffset? = nil, mediaFile: VASTMediaFile, fallbackMediaFiles: [VASTMediaFile] = [], impressions: [String] = [], tracking: [VASTTracking] = [],
                errors: [String] = [], clickThrough: String? = nil, clickTracking: [String] = [], wrappers: [String] = [],
                universalAdIDs: [VASTUniversalAdID] = [], verifications: [VASTVerification] = []) {
        self.id = id
        self.sequence = sequence
        self.adSystem = adSystem
        self.title = title
        self.duration = duration
        self.skipOffset = skipOffset
        self.mediaFile = mediaFile
        self.fallbackMediaFiles = fallbackMediaFiles
        self.impressions = impressions
        self.tracking = tracking
        self.errors = errors
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
        self.wrappers = wrappers
        self.universalAdIDs = universalAdIDs
        self.verifications = verifications
    }

    /// The URLs of `event`, in order.
    ///
    /// - Parameter event: A tracking event.
    /// - Returns: Its URLs, the outermost wrapper's first.
    public func trackingURLs(_ event: VASTTrackingEvent) -> [String] {
        tracking.filter { $0.event == event }.map(\.url)
    }
}

/// An error to report to the ad server: the code and the `Error` URLs of the chain it happened in.
public struct VASTErrorReport: Error, Hashable, Sendable {
    public var error: VASTError
    /// Where `[ERRORCODE]` is sent, outermost first (the VMAP break's `error` tracking included).
    public var urls: [String]

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - error: What went wrong, with its code.
    ///   - urls: Where `[ERRORCODE]` is sent, outermost first (the VMAP break's `error` tracking included).
    public init(error: VASTError, urls: [String]) {
        self.error = error
        self.urls = urls
    }
}

/// What a VAST request resolved to: the ads that will play, in order, and the errors owed to the
/// ad server for the ones that will not.
public struct VASTResolution: Hashable, Sendable {
    public var ads: [ResolvedAd]
    public var errors: [VASTErrorReport]

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - ads: The ads that play, in order.
    ///   - errors: The errors owed to the ad servers.
    public init(ads: [ResolvedAd], errors: [VASTErrorReport]) {
        self.ads = ads
        self.errors = errors
    }
}
