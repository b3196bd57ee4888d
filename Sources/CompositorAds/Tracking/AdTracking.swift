import CompositorCore

/// What the ad servers asked to be told, by the schedule's IDs: the resolved VAST ad behind each ad,
/// and the VMAP tracking of each break. Built when a schedule's ads are resolved; read by
/// `BeaconPlanner` as the session plays.
public struct AdTracking: Hashable, Sendable {
    /// The resolved ad behind each schedule ad, by ad ID.
    public var ads: [String: ResolvedAd]
    /// The VMAP `breakStart` / `breakEnd` / `error` URLs of each break, by break ID.
    public var breaks: [String: [VMAPBreakEvent: [String]]]

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - ads: The resolved ad behind each schedule ad, by ad ID.
    ///   - breaks: The VMAP `breakStart` / `breakEnd` / `error` URLs of each break, by break ID.
    public init(ads: [String: ResolvedAd] = [:], breaks: [String: [VMAPBreakEvent: [String]]] = [:]) {
        self.ads = ads
        self.breaks = breaks
    }

    public var isEmpty: Bool { ads.isEmpty && breaks.isEmpty }

    /// The `progress` offsets of every ad, as times into it: what `PlaybackSession.adProgressOffsets`
    /// needs for the session to report them.
    public var progressOffsets: [String: [MediaTime]] {
        ads.compactMapValues { ad in
            let offsets = ad.tracking.compactMap { tracking -> MediaTime? in
                if case .progress(let offset) = tracking.event { return offset.time(inAdOf: ad.duration) }
                return nil
            }
            return offsets.isEmpty ? nil : Array(Set(offsets)).sorted()
        }
    }
}

/// A beacon due: what it reports, its URL with every macro filled, and where on the timeline.
public struct DueBeacon: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case impression
        case tracking(VASTTrackingEvent)
        case breakStart, breakEnd
        case error(VASTErrorCode)
    }

    public var kind: Kind
    /// The URL to request, macros expanded.
    public var url: String
    public var breakID: String?
    public var adID: String?
    /// Where playback was when it became due (nil for an error found while loading).
    public var compositionTime: MediaTime?
    public var contentTime: MediaTime?

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - kind: What it reports.
    ///   - url: The URL to request, macros expanded.
    ///   - breakID: The break it concerns.
    ///   - adID: The ad it concerns.
    ///   - compositionTime: Where playback was when it became due (nil for an error found while loading).
    ///   - contentTime: The content time then.
    public init(kind: Kind, url: String, breakID: String? = nil, adID: String? = nil, compositionTime: MediaTime? = nil, contentTime: MediaTime? = nil) {
        self.kind = kind
        self.url = url
        self.breakID = breakID
        self.adID = adID
        self.compositionTime = compositionTime
        self.contentTime = contentTime
    }

    /// `impression`, `start`, `progress`, `breakStart`, `error`, ….
    public var name: String {
        switch kind {
        case .impression: "impression"
        case .tracking(let event): event.name
        case .breakStart: "breakStart"
        case .breakEnd: "breakEnd"
        case .error: "error"
        }
    }
}
