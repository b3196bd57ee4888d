import CompositorCore

/// A VMAP 1.0 document as read: where the linear breaks go and where their ads come from.
public struct VMAPDocument: Hashable, Sendable {
    /// The `version` attribute (`"1.0"`).
    public var version: String
    /// The linear `AdBreak`s, in document order.
    public var breaks: [VMAPBreak]
    /// What was left out (non-linear breaks, custom ad data), in document order.
    public var diagnostics: [VASTDiagnostic]

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - version: The `version` attribute (`"1.0"`).
    ///   - breaks: The linear `AdBreak`s, in document order.
    ///   - diagnostics: What was left out (non-linear breaks, custom ad data), in document order.
    public init(version: String, breaks: [VMAPBreak], diagnostics: [VASTDiagnostic] = []) {
        self.version = version
        self.breaks = breaks
        self.diagnostics = diagnostics
    }
}

/// A linear `AdBreak`: when it plays, how often, and its ads.
public struct VMAPBreak: Hashable, Sendable {
    /// `breakId`.
    public var id: String?
    public var timeOffset: VMAPTimeOffset
    /// `repeatAfter`: the break plays again this long after each time it is placed, to the content's end.
    public var repeatAfter: MediaTime?
    /// `AdSource`, or nil for a break that only carries tracking.
    public var source: VMAPAdSource?
    /// `TrackingEvents`: `breakStart`, `breakEnd` and `error` URLs.
    public var tracking: [VMAPBreakEvent: [String]]
    /// The document line of the `AdBreak`.
    public var line: Int

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - id: `breakId`.
    ///   - timeOffset: When the break plays.
    ///   - repeatAfter: `repeatAfter`: the break plays again this long after each time it is placed, to the content's end.
    ///   - source: `AdSource`, or nil for a break that only carries tracking.
    ///   - tracking: `TrackingEvents`: `breakStart`, `breakEnd` and `error` URLs.
    ///   - line: The document line of the `AdBreak`.
    public init(id: String?, timeOffset: VMAPTimeOffset, repeatAfter: MediaTime? = nil, source: VMAPAdSource?,
                tracking: [VMAPBreakEvent: [String]] = [:], line: Int = 0) {
        self.id = id
        self.timeOffset = timeOffset
        self.repeatAfter = repeatAfter
        self.source = source
        self.tracking = tracking
        self.line = line
    }
}

/// A break's `timeOffset`.
public enum VMAPTimeOffset: Hashable, Sendable {
    /// `start`: a preroll.
    case start
    /// `end`: a postroll.
    case end
    /// `HH:MM:SS(.mmm)` into the content.
    case time(MediaTime)
    /// `n%` of the content's duration, in hundredths of a percent.
    case fraction(basisPoints: Int)
    /// `#n`: the n-th cue point (from 1) of the content, its marked spans.
    case position(Int)

    /// Reads `start`, `end`, `HH:MM:SS(.mmm)`, `n%` or `#n`; nil for anything else.
    ///
    /// - Parameter text: The `timeOffset` attribute.
    public init?(parsing text: String) {
        switch text {
        case "start": self = .start
        case "end": self = .end
        case _ where text.hasPrefix("#"):
            guard let n = Int(text.dropFirst()), n >= 1 else { return nil }
            self = .position(n)
        default:
            switch VASTOffset(parsing: text) {
            case .time(let time): self = .time(time)
            case .fraction(let basisPoints): self = .fraction(basisPoints: basisPoints)
            case nil: return nil
            }
        }
    }
}

/// Where a break's ads come from.
public struct VMAPAdSource: Hashable, Sendable {
    public enum Ads: Hashable, Sendable {
        /// `VASTAdData`: the VAST document inline.
        case inline(VASTDocument)
        /// `AdTagURI`: fetched when the schedule is resolved.
        case adTagURI(String)
    }

    /// `id`.
    public var id: String?
    /// `allowMultipleAds` (default true for an `AdSource`): whether a pod may fill the break.
    public var allowMultipleAds: Bool
    /// `followRedirects` (default true): whether wrappers are followed.
    public var followRedirects: Bool
    public var ads: Ads

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - id: The `AdSource`'s `id`.
    ///   - allowMultipleAds: `allowMultipleAds` (default true for an `AdSource`): whether a pod may fill the break.
    ///   - followRedirects: `followRedirects` (default true): whether wrappers are followed.
    ///   - ads: Where the ads come from.
    public init(id: String?, allowMultipleAds: Bool = true, followRedirects: Bool = true, ads: Ads) {
        self.id = id
        self.allowMultipleAds = allowMultipleAds
        self.followRedirects = followRedirects
        self.ads = ads
    }
}

/// The break events VMAP tracks.
public enum VMAPBreakEvent: String, Hashable, Sendable, CaseIterable {
    case breakStart, breakEnd, error
}
