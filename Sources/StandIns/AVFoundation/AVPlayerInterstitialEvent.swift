// Stand-in for AVPlayerInterstitialEvent and AVPlayerInterstitialEventController
// (AVFoundation/AVPlayerInterstitialEventController.h; iOS 15, macOS 12; `cue` and `willPlayOnce`
// iOS 16.4, macOS 13.3), with the Swift initializer Apple documents:
// `init(primaryItem:identifier:time:templateItems:restrictions:resumptionOffset:playoutLimit:userDefinedAttributes:)`.
//
// Rule modelled: "Interstitial events are currently possible only for items with an intrinsic
// mapping from their timeline to real-time dates" (the class's documentation): an event whose
// primary item is not an HLS stream (a composition, a file) is a rule break. The stand-in takes an
// HLS URL as dated; the playlists Compositor writes always carry EXT-X-PROGRAM-DATE-TIME.
#if !canImport(AVFoundation)
import Foundation

open class AVPlayerInterstitialEvent {
    /// `AVPlayerInterstitialEventRestrictions`.
    public struct Restrictions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let constrainsSeekingForwardInPrimaryContent = Restrictions(rawValue: 1 << 0)
        public static let requiresPlaybackAtPreferredRateForAdvancement = Restrictions(rawValue: 1 << 2)
    }

    /// `AVPlayerInterstitialEventCue`, a typed string enum.
    public struct Cue: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let noCue = Cue(rawValue: "AVPlayerInterstitialEventNoCue")
        public static let joinCue = Cue(rawValue: "AVPlayerInterstitialEventJoinCue")
        public static let leaveCue = Cue(rawValue: "AVPlayerInterstitialEventLeaveCue")
    }

    public private(set) weak var primaryItem: AVPlayerItem?
    public var identifier: String
    /// `.invalid` for an event made with a date.
    public var time: CMTime
    /// `nil` for an event made with a time.
    public var date: Date?
    public var templateItems: [AVPlayerItem]
    public var restrictions: Restrictions
    public var resumptionOffset: CMTime
    public var playoutLimit: CMTime
    public var cue: Cue = .noCue
    public var willPlayOnce = false
    public var userDefinedAttributes: [AnyHashable: Any]

    @MainActor
    public convenience init(
        primaryItem: AVPlayerItem, identifier: String?, time: CMTime, templateItems: [AVPlayerItem],
        restrictions: Restrictions = [], resumptionOffset: CMTime = .indefinite, playoutLimit: CMTime = .invalid,
        userDefinedAttributes: [String: Any] = [:]
    ) {
        self.init(primaryItem: primaryItem, identifier: identifier, time: time, date: nil, templateItems: templateItems,
                  restrictions: restrictions, resumptionOffset: resumptionOffset, playoutLimit: playoutLimit, userDefinedAttributes: userDefinedAttributes)
    }

    /// The event at `date` of the primary item (the Swift initializer with `date:`).
    @MainActor
    public convenience init(
        primaryItem: AVPlayerItem, identifier: String?, date: Date, templateItems: [AVPlayerItem],
        restrictions: Restrictions = [], resumptionOffset: CMTime = .indefinite, playoutLimit: CMTime = .invalid,
        userDefinedAttributes: [String: Any] = [:]
    ) {
        self.init(primaryItem: primaryItem, identifier: identifier, time: .invalid, date: date, templateItems: templateItems,
                  restrictions: restrictions, resumptionOffset: resumptionOffset, playoutLimit: playoutLimit, userDefinedAttributes: userDefinedAttributes)
    }

    @MainActor
    private init(
        primaryItem: AVPlayerItem, identifier: String?, time: CMTime, date: Date?, templateItems: [AVPlayerItem],
        restrictions: Restrictions, resumptionOffset: CMTime, playoutLimit: CMTime, userDefinedAttributes: [String: Any]
    ) {
        self.primaryItem = primaryItem
        self.identifier = identifier ?? UUID().uuidString
        self.time = time
        self.date = date
        self.templateItems = templateItems
        self.restrictions = restrictions
        self.resumptionOffset = resumptionOffset
        self.playoutLimit = playoutLimit
        self.userDefinedAttributes = userDefinedAttributes
        Self.requireDates(primaryItem)
    }

    @MainActor
    private static func requireDates(_ primaryItem: AVPlayerItem) {
        let dated = (primaryItem.asset as? AVURLAsset).map { $0.url.pathExtension.lowercased() == "m3u8" } ?? false
        if !dated {
            StandInWorld.broke("AVPlayerInterstitialEvent: its primary item has no mapping from its timeline to dates "
                + "(interstitial events are possible only for such items: AVPlayerInterstitialEvent documentation)")
        }
    }
}

/// `AVPlayerInterstitialEventMonitor`: the events scheduled for a primary player.
open class AVPlayerInterstitialEventMonitor {
    public let primaryPlayer: AVPlayer
    /// The schedule (set through a controller).
    public internal(set) var events: [AVPlayerInterstitialEvent] = []

    @MainActor
    public init(primaryPlayer: AVPlayer) {
        self.primaryPlayer = primaryPlayer
    }
}

/// `AVPlayerInterstitialEventController`: sets the schedule, which pre-empts the playlist's own.
open class AVPlayerInterstitialEventController: AVPlayerInterstitialEventMonitor {
    public override var events: [AVPlayerInterstitialEvent] {
        get { super.events }
        set { super.events = newValue }
    }
}
#endif
