/// What an app keeps between sessions: which breaks have played (or were skipped), and where the
/// viewer stopped, in content time (bookmarks stay valid when the ads change).
///
/// ```swift
/// let saved = session.playedState.jsonText                 // store it
/// let state = try PlayedState(jsonText: saved)
/// var resumed = try PlaybackSession(schedule: schedule, playedState: state)
/// ```
public struct PlayedState: Hashable, Sendable {
    public var playedBreakIDs: Set<String>
    /// The content time to resume at.
    public var bookmark: MediaTime

    /// Creates a played state, as `PlaybackSession.playedState` does.
    ///
    /// - Parameters:
    ///   - playedBreakIDs: The breaks that have played or were skipped.
    ///   - bookmark: The content time to resume at.
    public init(playedBreakIDs: Set<String>, bookmark: MediaTime) {
        self.playedBreakIDs = playedBreakIDs
        self.bookmark = bookmark
    }
}

extension PlaybackSession {
    /// The played state to keep: played breaks and the playhead's content time.
    public var playedState: PlayedState {
        PlayedState(playedBreakIDs: playedBreakIDs, bookmark: composition.contentTime(forCompositionTime: position))
    }
}
