/// One contiguous piece of the composition: a range of one source, content or ad.
public struct Segment: Hashable, Sendable {
    /// What a segment shows.
    public enum Role: Hashable, Sendable {
        case content(clipID: String)
        case ad(AdPosition)
    }

    public let role: Role
    public let source: MediaLocation
    /// The range of the source shown, in the source's own time.
    public let sourceRange: MediaTimeRange
    /// Where the segment sits in the composition.
    public let compositionRange: MediaTimeRange
    /// The content time the segment covers: for content the range shown, for an ad the empty range
    /// at its break's position (ads take no content time).
    public let contentRange: MediaTimeRange

    /// The clip's or the ad's ID.
    public var id: String {
        switch role {
        case .content(let clipID): return clipID
        case .ad(let position): return position.adID
        }
    }

    public var isAd: Bool { if case .ad = role { true } else { false } }

    /// The ad's place in its pod, for ad segments.
    public var adPosition: AdPosition? { if case .ad(let p) = role { p } else { nil } }
}

/// An ad's place in its pod.
public struct AdPosition: Hashable, Sendable {
    public let adID: String
    public let breakID: String
    /// 1-based place in the pod, as IMA's `adPosition`: "Ad `podPosition` of `podSize`".
    public let podPosition: Int
    public let podSize: Int
}
