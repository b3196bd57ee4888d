import CompositorCore

extension PlayedState {
    /// `{"playedBreaks":["mid1","pre"],"bookmark":"1001/30000"}`: IDs sorted, the bookmark exact.
    public var jsonText: String { json.serialized }

    /// Reads what `jsonText` wrote (the bookmark may also be a number of seconds).
    ///
    /// ```swift
    /// let state = try PlayedState(jsonText: #"{"playedBreaks": ["pre"], "bookmark": 23.5}"#)
    /// ```
    ///
    /// - Parameter jsonText: The JSON text.
    /// - Throws: `ScheduleDocumentError.syntax` for text that is not JSON, `.invalid` for JSON that is
    ///   not a played state.
    public init(jsonText: String) throws(ScheduleDocumentError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: Array(jsonText.utf8)) } catch {
            throw .syntax(line: error.line, column: error.column, reason: error.reason)
        }
        try self.init(json: value)
    }

    var json: JSONValue {
        let r = bookmark.reduced
        return .object(JSONObject([
            "playedBreaks": .array(playedBreakIDs.sorted().map(JSONValue.string)),
            "bookmark": .string("\(r.value)/\(r.timescale)"),
        ]))
    }

    init(json: JSONValue) throws(ScheduleDocumentError) {
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
        let bookmark: MediaTime
        do { bookmark = try MediaTime(parsing: bookmarkText) } catch {
            throw .invalid(path: "playedState.bookmark", reason: error.description)
        }
        guard !bookmark.isNegative else { throw .invalid(path: "playedState.bookmark", reason: "negative bookmark \(bookmark) s") }
        self.init(playedBreakIDs: played, bookmark: bookmark)
    }
}
