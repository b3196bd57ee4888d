/// Something the app should know about, stamped with where playback was when it happened.
public struct PlaybackEvent: Hashable, Sendable {
    /// What happened, with the IDs it concerns.
    public enum Kind: Hashable, Sendable {
        /// A break began; `first` only the first time this break starts (IMA's rule); every start is reported.
        case breakStarted(breakID: String, first: Bool)
        case adStarted(AdPosition)
        /// `quartile` 1, 2 or 3: a quarter, half or three quarters of the ad played.
        case adQuartile(AdPosition, quartile: Int)
        /// The ad has played `offset` into it: one of the session's `adProgressOffsets` for this ad
        /// (VAST `progress` tracking).
        case adProgress(AdPosition, offset: MediaTime)
        case adEnded(AdPosition, skipped: Bool)
        case breakEnded(breakID: String, skipped: Bool)
        /// Content plays again after a break.
        case contentResumed
        /// A seek landed elsewhere than asked (snapback, a break at the target, a restriction).
        case seekAdjusted(requested: MediaTime, actual: MediaTime)
        /// The timeline changed (a `once` break left, an insertion, a cancellation); times after
        /// this event are in `new`.
        case compositionChanged(old: Composition, new: Composition)
        /// Playback reached the end of the composition.
        case ended
        /// The viewer paused (`PlaybackSession.pause()`), or played on after a pause.
        case paused
        case resumed
    }

    public let kind: Kind
    /// Composition time when it happened (in the composition current at that moment).
    public let compositionTime: MediaTime
    /// Content time when it happened.
    public let contentTime: MediaTime

    /// The event's name as the demo's `simulate --json` prints it (`"breakStarted"`, …).
    public var name: String {
        switch kind {
        case .breakStarted: return "breakStarted"
        case .adStarted: return "adStarted"
        case .adQuartile: return "adQuartile"
        case .adProgress: return "adProgress"
        case .adEnded: return "adEnded"
        case .breakEnded: return "breakEnded"
        case .contentResumed: return "contentResumed"
        case .seekAdjusted: return "seekAdjusted"
        case .compositionChanged: return "compositionChanged"
        case .ended: return "ended"
        case .paused: return "paused"
        case .resumed: return "resumed"
        }
    }
}

extension PlaybackSession {
    /// What the player must do.
    public enum PlayerCommand: Hashable, Sendable {
        /// Seek, with zero tolerance, to this composition time.
        case seek(to: MediaTime)
        /// The composition changed: play `composition` from `at` (rebuild the item or the queue).
        case load(Composition, at: MediaTime)
    }
}

extension PlaybackSession {
    /// What one input to a `PlaybackSession` produced, in order.
    public struct Reaction: Hashable, Sendable {
        public var commands: [PlayerCommand] = []
        public var events: [PlaybackEvent] = []

        public init() {}
    }
}
