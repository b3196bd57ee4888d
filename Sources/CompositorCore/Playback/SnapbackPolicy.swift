/// Which unplayed breaks a forward seek plays before it lands on the user's target.
///
/// ```
/// content   0 ---- b1 ---- b2 ---- b3 ---- target
/// none            (lands on the target)
/// lastUnplayed    b3, then the target          (Media3's rule; the default)
/// firstUnplayed   b1, then the target
/// allUnplayed     b1, b2, b3, then the target
/// ```
public enum SnapbackPolicy: String, Hashable, Sendable, CaseIterable {
    case none
    case lastUnplayed
    case firstUnplayed
    case allUnplayed
}

/// Why the session refused an action.
public enum PlaybackSessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Skip ad or skip break while no ad plays.
    case noAdPlaying
    /// The break's restriction forbids skipping (yet).
    case skipNotAllowed(adID: String, allowedAfter: MediaTime?)
    /// The break's restriction forbids seeking within its ads.
    case seekWithinAdNotAllowed(adID: String)
    /// A seek out of a break whose ads may not be skipped (yet).
    case seekOutOfBreakNotAllowed(breakID: String)
    /// The change would make the schedule invalid.
    case schedule(ScheduleError)

    public var description: String {
        switch self {
        case .noAdPlaying: return "no ad is playing"
        case .skipNotAllowed(let adID, let after):
            return after.map { "ad \(quoted(adID)) can be skipped after \($0) s" } ?? "ad \(quoted(adID)) cannot be skipped"
        case .seekWithinAdNotAllowed(let adID): return "seeking within ad \(quoted(adID)) is not allowed"
        case .seekOutOfBreakNotAllowed(let breakID): return "break \(quoted(breakID)) cannot be left before its ads may be skipped"
        case .schedule(let error): return error.description
        }
    }
}
