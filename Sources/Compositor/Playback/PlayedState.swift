/// What an app keeps between sessions: which breaks have played (or were skipped), and where the
/// viewer stopped, in content time (bookmarks stay valid when the ads change).
///
/// ```swift
/// let saved = session.playedState.json.serialized          // store it
/// let state = try PlayedState(json: JSONValue(parsing: Array(saved.utf8)))
/// var resumed = try PlaybackSession(schedule: schedule, playedState: state)
/// ```
public struct PlayedState: Hashable, Sendable {
    public var playedBreakIDs: Set<String>
    /// The content time to resume at.
    public var bookmark: MediaTime

    public init(playedBreakIDs: Set<String>, bookmark: MediaTime) {
        self.playedBreakIDs = playedBreakIDs
        self.bookmark = bookmark
    }

    /// `{"playedBreaks": ["mid1", "pre"], "bookmark": "1001/30000"}`: IDs sorted, the bookmark exact.
    public var json: JSONValue {
        let r = bookmark.reduced
        return .object(JSONObject([
            "playedBreaks": .array(playedBreakIDs.sorted().map(JSONValue.string)),
            "bookmark": .string("\(r.value)/\(r.timescale)"),
        ]))
    }

    /// Reads what `json` wrote (the bookmark may also be a number of seconds).
    public init(json: JSONValue) throws(ScheduleDocumentError) {
        guard case .object(let object) = json else { throw .invalid(path: "playedState", reason: "expected an object") }
        guard case .array(let ids)? = object["playedBreaks"] else {
            throw .invalid(path: "playedState.playedBreaks", reason: "expected an array of break IDs")
        }
        var played = Set<String>()
        for id in ids {
            guard case .string(let text) = id else {
                throw .invalid(path: "playedState.playedBreaks", reason: "expected strings, got \(id.typeName)")
            }
            played.insert(text)
        }
        let bookmarkText: String
        switch object["bookmark"] {
        case .string(let text)?, .number(let text)?: bookmarkText = text
        default: throw .invalid(path: "playedState.bookmark", reason: "expected a time")
        }
        do { bookmark = try MediaTime(parsing: bookmarkText) } catch {
            throw .invalid(path: "playedState.bookmark", reason: error.description)
        }
        guard !bookmark.isNegative else { throw .invalid(path: "playedState.bookmark", reason: "negative bookmark \(bookmark) s") }
        playedBreakIDs = played
    }
}

extension PlaybackSession {
    /// The played state to keep: played breaks and the playhead's content time.
    public var playedState: PlayedState {
        PlayedState(playedBreakIDs: playedBreakIDs, bookmark: composition.contentTime(forCompositionTime: position))
    }
}
