/// What the viewer may do while a break plays. Data only: `PlaybackSession` enforces it.
public struct BreakRestrictions: Hashable, Sendable {
    /// When skipping an ad is allowed.
    public enum Skipping: Hashable, Sendable {
        /// Never: the ad plays to its end.
        case never
        /// Once the ad has played this long (`.after(.zero)` is "any time").
        case after(MediaTime)

        public static let anytime = Skipping.after(.zero)
    }

    /// Whether the viewer may seek within an ad (never past its end).
    public var allowsSeekingWithinAd: Bool
    /// When an ad of this break may be skipped.
    public var skipping: Skipping

    /// Creates restrictions; the defaults restrict nothing.
    ///
    /// - Parameters:
    ///   - allowsSeekingWithinAd: Whether the viewer may seek within an ad (`true` by default).
    ///   - skipping: When an ad may be skipped (`.anytime` by default).
    public init(allowsSeekingWithinAd: Bool = true, skipping: Skipping = .anytime) {
        self.allowsSeekingWithinAd = allowsSeekingWithinAd
        self.skipping = skipping
    }

    /// No restrictions: seeking within ads and skipping at any time are allowed.
    public static let none = BreakRestrictions()
}
