import Compositor

/// `map SCHEDULE.json --content-time T | --composition-time T [--json]`: one instant in both time spaces.
enum MapCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let json = arguments.flag("--json")
        let beforeBreaks = arguments.flag("--before-breaks")
        let contentTime = try arguments.timeOption("--content-time")
        let compositionTime = try arguments.timeOption("--composition-time")
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        guard (contentTime == nil) != (compositionTime == nil) else {
            throw .usage("give exactly one of --content-time T and --composition-time T")
        }
        if beforeBreaks && contentTime == nil { throw .usage("--before-breaks goes with --content-time") }
        let composition = try LoadedSchedule(path: path).composition

        // A query is taken at the tick of the composition's timescale at or before it (the instant
        // on screen), as the library takes a player's clock; say so when that moves it.
        func note(_ space: String, _ asked: MediaTime, _ taken: MediaTime) {
            guard taken != asked else { return }
            Output.err("note: \(space) time \(asked) s is taken as \(taken) s, the tick of the composition's "
                + "timescale (1/\(composition.timescale) s) at or before it")
        }
        let mapping: Mapping
        if let contentTime {
            guard contentTime >= .zero, contentTime <= composition.contentDuration else {
                throw .failure("content time \(contentTime) s is outside the content (0...\(composition.contentDuration) s)")
            }
            let t = composition.onGrid(contentTime, clampedTo: composition.contentDuration)
            note("content", contentTime, t)
            let c = composition.compositionTime(forContentTime: t, bias: beforeBreaks ? .beforeBreaks : .afterBreaks)
            mapping = Mapping(composition: composition, compositionTime: c, contentTime: t)
        } else if let compositionTime {
            guard compositionTime >= .zero, compositionTime <= composition.duration else {
                throw .failure("composition time \(compositionTime) s is outside the composition (0...\(composition.duration) s)")
            }
            let c = composition.onGrid(compositionTime, clampedTo: composition.duration)
            note("composition", compositionTime, c)
            mapping = Mapping(composition: composition, compositionTime: c,
                              contentTime: composition.contentTime(forCompositionTime: c))
        } else {
            return
        }
        Output.out(json ? mapping.json.serialized : mapping.text)
    }
}

/// One instant, in content and composition time, with what plays there.
struct Mapping {
    let compositionTime: MediaTime
    let contentTime: MediaTime
    let location: Composition.Location?

    init(composition: Composition, compositionTime: MediaTime, contentTime: MediaTime) {
        self.compositionTime = compositionTime
        self.contentTime = contentTime
        self.location = composition.locate(compositionTime)
    }

    var json: JSONValue {
        var object = JSONObject()
        object.appendTime("contentTime", contentTime)
        object.appendTime("compositionTime", compositionTime)
        guard let location else {
            object.append("kind", .string("end"))
            return .object(object)
        }
        object.append("kind", .string(location.ad == nil ? "content" : "ad"))
        object.append("id", .string(location.segment.id))
        object.appendTime("sourceTime", location.sourceTime)
        if let ad = location.ad {
            object.append("breakID", .string(ad.position.breakID))
            object.append("adIndex", .integer(ad.position.podPosition))
            object.append("podSize", .integer(ad.position.podSize))
            object.appendTime("timeInAd", ad.timeInAd)
            object.appendTime("timeInBreak", ad.timeInBreak)
        }
        return .object(object)
    }

    var text: String {
        var line = "content \(contentTime) s <-> composition \(compositionTime) s: "
        guard let location else { return line + "the end" }
        if let ad = location.ad {
            line += "ad \(quoted(ad.position.adID)) (\(ad.position.podPosition) of \(ad.position.podSize)) of break "
                + "\(quoted(ad.position.breakID)), \(ad.timeInAd) s into the ad, \(ad.timeInBreak) s into the break"
        } else {
            line += "content \(quoted(location.segment.id))"
        }
        return line + ", source time \(location.sourceTime) s of \(location.segment.source)"
    }
}
