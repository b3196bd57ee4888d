/// What a live stream holds at one reload, on the stream's own clock (its program date-times, in
/// seconds since 1970): the window a viewer can seek in, and the breaks in it with their ads. The
/// input of `LivePlaybackSession`, made from each reload of the stitched playlist.
///
/// ```
/// stream clock   1000          1012            1026.004        1040 (live edge)
/// window         |  content    | break ssai-6: ad1 10 s, ad2 4.004 s | content |
///                                replaced 14 s of content
/// ```
public struct LiveTimeline: Hashable, Sendable {
    /// An ad as it plays in a break.
    public struct Ad: Hashable, Sendable {
        public let id: String
        /// How long it plays (the last of a break may be cut short).
        public let duration: MediaTime

        /// - Parameters:
        ///   - id: The ad's ID.
        ///   - duration: How long it plays.
        public init(id: String, duration: MediaTime) {
            self.id = id
            self.duration = duration
        }
    }

    /// A break of the stream.
    public struct Break: Hashable, Sendable {
        public let id: String
        /// Where its first ad starts, on the stream's clock.
        public let start: MediaTime
        /// Its ads, in order, as far as they are known.
        public let ads: [Ad]
        /// How much content it replaced; `nil` while the break goes on.
        public let replaced: MediaTime?

        /// - Parameters:
        ///   - id: The break's ID.
        ///   - start: Where its first ad starts, on the stream's clock.
        ///   - ads: Its ads, in order.
        ///   - replaced: How much content it replaced (`nil` while it goes on).
        public init(id: String, start: MediaTime, ads: [Ad], replaced: MediaTime?) {
            self.id = id
            self.start = start
            self.ads = ads
            self.replaced = replaced
        }

        /// How long its ads play.
        public var duration: MediaTime { ads.reduce(.zero) { $0 + $1.duration } }
    }

    /// The oldest instant a viewer can seek to.
    public let windowStart: MediaTime
    /// The newest instant the stream has: the end of its last segment.
    public let liveEdge: MediaTime
    /// The breaks in the window, by start.
    public let breaks: [Break]
    /// Whether the stream is over (`EXT-X-ENDLIST`).
    public let hasEnded: Bool

    /// - Parameters:
    ///   - windowStart: The oldest instant a viewer can seek to.
    ///   - liveEdge: The end of the stream's last segment.
    ///   - breaks: The breaks in the window, by start.
    ///   - hasEnded: Whether the stream is over.
    public init(windowStart: MediaTime, liveEdge: MediaTime, breaks: [Break], hasEnded: Bool) {
        self.windowStart = windowStart
        self.liveEdge = liveEdge
        self.breaks = breaks.sorted { $0.start < $1.start }
        self.hasEnded = hasEnded
    }
}
