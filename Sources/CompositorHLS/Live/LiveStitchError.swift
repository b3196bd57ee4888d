import CompositorCore

/// Why a live playlist could not be stitched.
package enum LiveStitchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The content's window moved past segments the stitcher never saw (it reloaded too late), so
    /// what they were can no longer be decided.
    case missedSegments(url: String, lastSeen: UInt64, firstNow: UInt64)
    /// The content now ends before segments it published earlier.
    case contentWentBack(url: String, lastSeen: UInt64, lastNow: UInt64)
    /// The decisions have not taken the content's newest segments (advance them with this load first).
    case decisionsBehind(url: String, contentLast: UInt64, decided: UInt64?)
    /// Decisions that cannot belong to this content.
    case inconsistentDecisions(url: String, reason: String)
    case timeOverflow(MediaTimeError)

    package var description: String {
        switch self {
        case .missedSegments(let url, let lastSeen, let firstNow):
            return "\(url): the live window moved from segment \(lastSeen) to \(firstNow) between two loads; the segments between were never seen (reload more often)"
        case .contentWentBack(let url, let lastSeen, let lastNow):
            return "\(url): the playlist ends at segment \(lastNow), before segment \(lastSeen) it published earlier"
        case .decisionsBehind(let url, let contentLast, let decided):
            return "\(url): the decisions end at segment \(decided.map(String.init) ?? "none"), the content at \(contentLast)"
        case .inconsistentDecisions(let url, let reason): return "\(url): \(reason)"
        case .timeOverflow(let error): return error.description
        }
    }
}
