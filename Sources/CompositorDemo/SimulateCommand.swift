import Compositor
import CompositorTesting

/// `simulate SCHEDULE.json --actions "play 30; seek content 50; play 20" [--snapback POLICY] [--json]`:
/// plays the schedule from the start through a script and prints the events.
enum SimulateCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let json = arguments.flag("--json")
        let sendBeacons = arguments.flag("--send-beacons")
        let script = try arguments.option("--actions") ?? ""
        let policyName = try arguments.option("--snapback") ?? SnapbackPolicy.lastUnplayed.rawValue
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        guard let snapback = SnapbackPolicy(rawValue: policyName) else {
            throw .usage("--snapback: expected one of \(SnapbackPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let actions: [PlaybackSimulation.Action]
        do { actions = try PlaybackSimulation.parse(script) } catch { throw .usage("--actions: \(error)") }

        let loaded = try LoadedSchedule(path: path)
        var session: PlaybackSession
        do {
            session = try PlaybackSession(schedule: loaded.schedule, naturalDurations: loaded.naturalDurations, snapback: snapback)
        } catch {
            throw .failure("\(path): \(error)")
        }
        session.adProgressOffsets = loaded.ads.tracking.progressOffsets
        var beacons = Beacons(planner: BeaconPlanner(tracking: loaded.ads.tracking, schedule: loaded.schedule), json: json, sending: sendBeacons)
        beacons.report(beacons.planner.beacons(for: loaded.ads.errors, macros: .now()))
        var player = SingleItemPlayer(composition: session.composition)
        // Each entry is printed as it happens and then dropped: a `compositionChanged` event holds
        // two whole compositions, so keeping a log would grow with the square of `insert now`s.
        PlaybackSimulation.run(
            actions, session: &session, player: &player,
            resolveURL: { url throws(MediaLocationError) in try MediaLocation(parsing: url, relativeTo: loaded.folder) },
            naturalDuration: { NaturalDurationProbe.duration(of: $0) }
        ) { entry in
            switch entry {
            case .event(let event):
                Output.out(json ? eventJSON(event).serialized : eventText(event))
                beacons.report(beacons.planner.beacons(for: [event], macros: .now()))
            case .refused(let number, let error): Output.err("note: action \(number) refused: \(error)")
            case .invalidURL(let number, let error): Output.err("note: action \(number) refused: \(error)")
            }
        }
    }

    /// The beacons the events make due: listed after the event (`--json`: one object each), and
    /// with `--send-beacons` requested, one at a time in order.
    struct Beacons {
        var planner: BeaconPlanner
        let json: Bool
        let sending: Bool

        func report(_ due: [DueBeacon]) {
            for beacon in due {
                if json {
                    var object = JSONObject()
                    object.append("beacon", .string(beacon.name))
                    object.append("url", .string(beacon.url))
                    if let time = beacon.compositionTime { object.appendTime("compositionTime", time) }
                    if let time = beacon.contentTime { object.appendTime("contentTime", time) }
                    if let id = beacon.breakID { object.append("breakID", .string(id)) }
                    if let id = beacon.adID { object.append("adID", .string(id)) }
                    Output.out(JSONValue.object(object).serialized)
                } else {
                    Output.out("    beacon \(escapedForDisplay(beacon.name)): \(escapedForDisplay(beacon.url))")
                }
                guard sending else { continue }
                let failure = waitForTask { () async -> HTTPTransportError? in
                    do throws(HTTPTransportError) { try await AdBeacons.send(beacon); return nil } catch { return error }
                }
                if let failure { Output.err("note: beacon \(escapedForDisplay(beacon.name)) not delivered: \(failure)") }
            }
        }
    }

    static func eventJSON(_ event: PlaybackEvent) -> JSONValue {
        var object = JSONObject()
        object.append("event", .string(event.name))
        object.appendTime("compositionTime", event.compositionTime)
        object.appendTime("contentTime", event.contentTime)
        switch event.kind {
        case .breakStarted(let breakID, let first):
            object.append("breakID", .string(breakID))
            object.append("first", .bool(first))
        case .adStarted(let ad):
            appendAd(ad, to: &object)
        case .adQuartile(let ad, let quartile):
            appendAd(ad, to: &object)
            object.append("quartile", .integer(quartile))
        case .adProgress(let ad, let offset):
            appendAd(ad, to: &object)
            object.appendTime("offset", offset)
        case .adEnded(let ad, let skipped):
            appendAd(ad, to: &object)
            object.append("skipped", .bool(skipped))
        case .breakEnded(let breakID, let skipped):
            object.append("breakID", .string(breakID))
            object.append("skipped", .bool(skipped))
        case .seekAdjusted(let requested, _):
            object.appendTime("requestedTime", requested)
        case .compositionChanged(_, let new):
            object.appendTime("compositionDuration", new.duration)
        case .contentResumed, .ended, .paused, .resumed:
            break
        }
        return .object(object)
    }

    private static func appendAd(_ ad: AdPosition, to object: inout JSONObject) {
        object.append("breakID", .string(ad.breakID))
        object.append("adID", .string(ad.adID))
        object.append("adIndex", .integer(ad.podPosition))
        object.append("podSize", .integer(ad.podSize))
    }

    static func eventText(_ event: PlaybackEvent) -> String {
        let what: String
        switch event.kind {
        case .breakStarted(let id, let first): what = "break \(quoted(id)) starts" + (first ? " (first time)" : " (again)")
        case .adStarted(let ad): what = "ad \(quoted(ad.adID)) starts (\(ad.podPosition) of \(ad.podSize))"
        case .adQuartile(let ad, let q): what = "ad \(quoted(ad.adID)) \(["", "25%", "50%", "75%"][q])"
        case .adProgress(let ad, let offset): what = "ad \(quoted(ad.adID)) played \(offset) s"
        case .paused: what = "paused"
        case .resumed: what = "resumed"
        case .adEnded(let ad, let skipped): what = "ad \(quoted(ad.adID)) " + (skipped ? "skipped" : "ends")
        case .breakEnded(let id, let skipped): what = "break \(quoted(id)) " + (skipped ? "skipped" : "ends")
        case .contentResumed: what = "content resumes"
        case .seekAdjusted(let requested, let actual): what = "seek to \(requested) s adjusted to \(actual) s"
        case .compositionChanged(let old, let new): what = "composition changes: \(old.duration) s -> \(new.duration) s"
        case .ended: what = "ended"
        }
        return "composition \(event.compositionTime.formatted(.milliseconds))  content \(event.contentTime.formatted(.milliseconds))  \(what)"
    }
}
