import CompositorCore
import CompositorHLS

/// The decisions of a live stitcher as a file (`live-decisions.json` beside the stitched playlist),
/// written after every reload, so that a stitcher restarted on the same folder carries on the same
/// stream: the same media and discontinuity sequence numbers, the same breaks. Ads are named by
/// ID; the schedule read again gives them back, packaged the same way.
///
/// ```json
/// { "format": "compositor-live-decisions", "version": 1, "lastSequence": 23, "targetDuration": 2,
///   "breaks": [ { "id": "ssai-6", "start": 6, "date": "2026-11-27T13:05:22.022Z",
///                 "ads": ["ssai-ad-1", "ssai-ad-2"], "elapsed": "0/1", "planned": "16/1", "duration": "16/1",
///                 "debtBefore": "0/1",
///                 "replaced": [["2/1", false], ["2/1", false]], "return": [13, false],
///                 "clock": "648288000/90000" } ] }
/// ```
///
/// Times are exact rationals, `"value/timescale"`. `clock` is where a break's fragmented MP4 ads
/// go on the content's clock (`LiveAdClock`): `null` when they keep their own, absent when no
/// clock was decided (transport stream content, HLS ads).
enum LiveDecisionsFile {
    static let name = "live-decisions.json"
    static let format = "compositor-live-decisions"

    /// `decisions` as the file's text, with each break's ads' clock, when decided.
    static func text(of decisions: LiveDecisions, clocks: [String: MediaTime?] = [:]) -> String {
        var root = JSONObject()
        root.append("format", .string(format))
        root.append("version", .integer(1))
        root.append("lastSequence", decisions.lastSequence.map { .number(String($0)) } ?? .null)
        if let target = decisions.targetDuration { root.append("targetDuration", .number(String(target))) }
        root.append("breaks", .array(decisions.breaks.map { json($0, clock: clocks[$0.id]) }))
        return JSONValue.object(root).serialized + "\n"
    }

    private static func json(_ item: LiveBreak, clock: MediaTime??) -> JSONValue {
        var object = JSONObject()
        object.append("id", .string(item.id))
        object.append("start", .number(String(item.startSequence)))
        object.append("date", item.startDate.map { .string($0.description) } ?? .null)
        object.append("ads", .array(item.adIDs.map(JSONValue.string)))
        object.append("elapsed", time(item.elapsed))
        object.append("planned", item.plannedDuration.map(time) ?? .null)
        object.append("duration", item.duration.map(time) ?? .null)
        object.append("debtBefore", time(item.debtBefore))
        object.append("replaced", .array(item.replaced.map { .array([time($0.duration), .bool($0.isDiscontinuity)]) }))
        object.append("return", item.contentReturn.map { .array([.number(String($0.sequence)), .bool($0.isDiscontinuity)]) } ?? .null)
        if let clock { object.append("clock", clock.map(time) ?? .null) }
        return .object(object)
    }

    private static func time(_ time: MediaTime) -> JSONValue { .string("\(time.value)/\(time.timescale)") }

    /// The decisions the file's `bytes` hold, each break's ads found by their IDs in `pods` (a
    /// pod, then its slate repeated) and played as `playing` has a break play them; and the
    /// clocks decided for the breaks' ads.
    ///
    /// - Throws: `LiveStitchingError.cannotResume` naming the file and what in it is wrong: not
    ///   this format, or a break whose ads the schedule no longer has.
    static func decisions(
        _ bytes: [UInt8], path: String, pods: [(ads: [LiveAd], slate: LiveAd?)],
        playing: (_ ads: [LiveAd], _ breakID: String) -> [LiveAd] = { ads, _ in ads }
    ) throws(LiveStitchingError) -> (decisions: LiveDecisions, clocks: [String: MediaTime?]) {
        func fail(_ reason: String) -> LiveStitchingError { LiveStitchingError(.cannotResume(path: path, reason: reason)) }
        guard case .object(let root)? = try? JSONValue(parsing: bytes) else { throw fail("not a JSON object") }
        guard case .string(format)? = root["format"], case .number("1")? = root["version"] else {
            throw fail("not version 1 of \(format)")
        }
        let lastSequence: UInt64?
        switch root["lastSequence"] {
        case .null?: lastSequence = nil
        case .number(let text)?: guard let number = UInt64(text) else { throw fail("lastSequence \(text)") }; lastSequence = number
        default: throw fail("no lastSequence")
        }
        // Absent from files written before it was kept: then the next load's is taken.
        let targetDuration: Int64?
        switch root["targetDuration"] {
        case nil: targetDuration = nil
        case .number(let text)?: guard let seconds = Int64(text), seconds > 0 else { throw fail("targetDuration \(text)") }; targetDuration = seconds
        default: throw fail("targetDuration is not a number")
        }
        guard case .array(let items)? = root["breaks"] else { throw fail("no breaks") }
        var breaks: [LiveBreak] = []
        var clocks: [String: MediaTime?] = [:]
        for (index, value) in items.enumerated() {
            func wrong(_ what: String) -> LiveStitchingError { fail("breaks[\(index)]: \(what)") }
            guard case .object(let object) = value else { throw wrong("not an object") }
            func number(_ key: String) throws(LiveStitchingError) -> UInt64 {
                guard case .number(let text)? = object[key], let number = UInt64(text) else { throw wrong("\(key) is not a count") }
                return number
            }
            func time(_ value: JSONValue?, _ key: String) throws(LiveStitchingError) -> MediaTime? {
                switch value {
                case .null?: return nil
                case .string(let text)?:
                    guard let time = try? MediaTime(parsing: text) else { throw wrong("\(key) \(quoted(text)) is not a time") }
                    return time
                default: throw wrong("\(key) is missing")
                }
            }
            func required(_ key: String) throws(LiveStitchingError) -> MediaTime {
                guard let value = try time(object[key], key) else { throw wrong("\(key) is null") }
                return value
            }
            guard case .string(let id)? = object["id"] else { throw wrong("no id") }
            guard case .array(let adValues)? = object["ads"] else { throw wrong("no ads") }
            let adIDs = adValues.compactMap { value -> String? in if case .string(let id) = value { id } else { nil } }
            // The pod, then its slate as many times as the break repeated it.
            let found = pods.lazy.compactMap { pod -> [LiveAd]? in
                let podIDs = pod.ads.map(\.id)
                guard adIDs.starts(with: podIDs) else { return nil }
                let rest = adIDs.dropFirst(podIDs.count)
                if rest.isEmpty { return pod.ads }
                guard let slate = pod.slate, rest.allSatisfy({ $0 == slate.id }) else { return nil }
                return pod.ads + Array(repeating: slate, count: rest.count)
            }.first
            guard let ads = found else {
                throw wrong("its ads \(adIDs.map(quoted).joined(separator: ", ")) are no break's in the schedule any more")
            }
            var date: HLSDateTime?
            if case .string(let text)? = object["date"] {
                guard let parsed = try? HLSDateTime(parsing: text) else { throw wrong("date \(quoted(text))") }
                date = parsed
            }
            let elapsed = try required("elapsed")
            let planned = try time(object["planned"], "planned")
            var replaced: [LiveBreak.Replaced] = []
            guard case .array(let replacedValues)? = object["replaced"] else { throw wrong("no replaced") }
            for entry in replacedValues {
                guard case .array(let pair) = entry, pair.count == 2, case .bool(let cut) = pair[1],
                      let duration = try time(pair[0], "replaced") else { throw wrong("replaced: expected [time, bool] pairs") }
                replaced.append(LiveBreak.Replaced(duration: duration, isDiscontinuity: cut))
            }
            var back: LiveBreak.Return?
            if case .array(let pair)? = object["return"] {
                guard pair.count == 2, case .number(let text) = pair[0], let sequence = UInt64(text), case .bool(let cut) = pair[1] else {
                    throw wrong("return: expected [sequence, bool]")
                }
                back = LiveBreak.Return(sequence: sequence, isDiscontinuity: cut)
            }
            if let clock = object["clock"] { clocks[id] = try time(clock, "clock") }
            let request = LiveBreakRequest(
                id: id, startSequence: try number("start"), duration: planned.map { $0 + elapsed }, ads: playing(ads, id), elapsed: elapsed)
            breaks.append(LiveBreak(
                restoring: request, at: request.startSequence, startDate: date, debtBefore: try required("debtBefore"),
                duration: try time(object["duration"], "duration"), replaced: replaced, contentReturn: back))
        }
        return (LiveDecisions(restoring: breaks, lastSequence: lastSequence, targetDuration: targetDuration), clocks)
    }
}
