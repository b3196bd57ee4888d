/// What a player's seek bars show at one instant.
///
/// The main bar spans the content only: ads have zero width there and appear as markers. While an
/// ad plays, a second bar spans that ad ("Ad 1 of 2").
///
/// ```
/// composition  0   5      28  45  62        87  112          170   ...
///              |pre|--A---|ad1|ad2|----A----|once|----A-----|...
/// main bar     0          23                43                170
///              ^          ^                 ^                 markers at 0, 23, 43, ...
/// ```
public struct SeekBarState: Hashable, Sendable {
    public let main: MainBar
    /// The ad's own bar, while an ad plays.
    public let ad: AdBar?
}

extension SeekBarState {
    /// The main seek bar: content time only, with a marker per break.
    public struct MainBar: Hashable, Sendable {
        /// The bar's length: the content duration.
        public let duration: MediaTime
        /// The playhead in content time (during a break, the break's position).
        public let position: MediaTime
        public let markers: [BreakMarker]

        /// `"00:23/02:10"`.
        public var label: String { SeekBarLabel.text(position: position, duration: duration) }
    }
}

extension SeekBarState {
    /// A break's mark on the main seek bar.
    public struct BreakMarker: Hashable, Sendable {
        public let breakID: String
        /// The content time of the mark.
        public let position: MediaTime
        /// Whether the break has played (as the caller's played state says).
        public let played: Bool
    }
}

extension SeekBarState {
    /// The bar shown while an ad plays: the ad's own duration.
    public struct AdBar: Hashable, Sendable {
        public let duration: MediaTime
        public let position: MediaTime
        public let podPosition: Int
        public let podSize: Int

        /// `"Ad 1 of 2"`.
        public var title: String { "Ad \(podPosition) of \(podSize)" }
        /// `"00:04/00:17"`.
        public var label: String { SeekBarLabel.text(position: position, duration: duration) }
    }
}

/// The "position/duration" clock label under a seek bar.
enum SeekBarLabel {
    /// `"00:23/02:10"`: whole seconds, rounded down; when the duration reaches an hour, both show
    /// hours (`"0:00:23/1:02:10"`) so the label keeps its width.
    static func text(position: MediaTime, duration: MediaTime) -> String {
        let hours = duration >= MediaTime(seconds: 3600)
        return position.formatted(alwaysShowHours: hours) + "/" + duration.formatted(alwaysShowHours: hours)
    }
}

extension Composition {
    /// The seek bars at `compositionTime`; `playedBreakIDs` marks breaks as played. `compositionTime`
    /// is taken at the tick of `timescale` at or before it, as `locate(_:)` takes it: a player's
    /// clock in any timescale is fine (`seekBar(at: MediaTime(value: 12345678901, timescale: 1000000000))`).
    ///
    /// - Parameters:
    ///   - compositionTime: The playhead, in composition time.
    ///   - playedBreakIDs: The breaks whose markers show as played (none by default).
    /// - Returns: The main bar (content time only, with a marker per break) and, inside an ad, the ad's bar.
    public func seekBar(at compositionTime: MediaTime, playedBreakIDs: Set<String> = []) -> SeekBarState {
        let main = SeekBarState.MainBar(
            duration: contentDuration,
            position: contentTime(forCompositionTime: compositionTime),
            markers: breakMarkers(playedBreakIDs: playedBreakIDs))
        guard let ad = locate(compositionTime)?.ad else { return SeekBarState(main: main, ad: nil) }
        return SeekBarState(main: main, ad: SeekBarState.AdBar(
            duration: ad.adDuration, position: ad.timeInAd,
            podPosition: ad.position.podPosition, podSize: ad.position.podSize))
    }

    /// One marker per break, in play order.
    ///
    /// - Parameter playedBreakIDs: The breaks whose markers show as played (none by default).
    /// - Returns: Each break's ID, content position and whether it has played.
    public func breakMarkers(playedBreakIDs: Set<String> = []) -> [SeekBarState.BreakMarker] {
        breaks.map { SeekBarState.BreakMarker(breakID: $0.id, position: $0.position, played: playedBreakIDs.contains($0.id)) }
    }
}
