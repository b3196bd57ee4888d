import Compositor

/// The work of the `mapping` fuzz target (Tests/Fuzz/MappingFuzz.swift), shared with the tests that
/// replay its seeds and regressions: a schedule, then mapping queries, player positions and
/// `simulate` scripts at arbitrary times in arbitrary timescales (issue 13: none may trap, and
/// every answer must be on the composition's grid and inside it).
///
/// Input: a schedule's JSON, a line `%%`, then one request a line:
///
/// ```
/// content T          compositionTime(forContentTime:) both biases, and back
/// composition T      contentTime(forCompositionTime:), locate, seekBar, and back
/// session T T ...    a session started, then fed these player positions (update(position:))
/// simulate SCRIPT    the demo's simulate script language, on both simulated backends
/// ```
///
/// `T` is any time `MediaTime(parsing:)` reads (`1001/30000`, `12345678901/1000000000`,
/// `0.123456789`). Lines that do not parse are skipped, as are schedules that do not decode or
/// compile (those are the `schedule` target's).
package enum MappingFuzzHarness {
    /// Natural durations as a probe could report them, picked per source: ordinary ones, NTSC,
    /// a nanosecond clock's, the prime timescale's, and one near the top of the range.
    package static let naturalDurationChoices: [MediaTime] = [
        MediaTime(seconds: 30), MediaTime(value: 1001, timescale: 30000), MediaTime(value: 12_345_678_901, timescale: 1_000_000_000),
        MediaTime(value: 64_424_509_411, timescale: 2_147_483_647), MediaTime(value: 1 << 40, timescale: 44100),
        MediaTime(value: Int64.max / 2, timescale: 1),
    ]

    package static func naturalDuration(of source: MediaLocation) -> MediaTime {
        naturalDurationChoices[source.description.utf8.count % naturalDurationChoices.count]
    }

    /// A natural duration for each source that some clip or ad of `schedule` plays to its end
    /// (no `end` given); sources always cut by an `end` get none, so nothing is clamped: clamping
    /// and refusals are the `schedule` target's, this one's are the queries.
    package static func naturalDurations(for schedule: Schedule) -> [MediaLocation: MediaTime] {
        var durations: [MediaLocation: MediaTime] = [:]
        for clip in schedule.content where clip.end == nil { durations[clip.source] = naturalDuration(of: clip.source) }
        for adBreak in schedule.breaks {
            for ad in adBreak.ads where ad.end == nil { durations[ad.source] = naturalDuration(of: ad.source) }
        }
        return durations
    }

    /// Runs `input`; returns the invariants it broke (empty when all held).
    package static func run(_ input: [UInt8]) -> [String] {
        let separator = Array("\n%%\n".utf8)
        guard let split = input.firstRange(of: separator) else { return [] }
        guard let schedule = try? ScheduleDocument.decode(input[..<split.lowerBound], baseFolder: "/media") else { return [] }
        let durations = naturalDurations(for: schedule)
        guard let composition = try? Composition(schedule: schedule, naturalDurations: durations) else { return [] }

        var broken: [String] = []
        var requests = 0
        for line in input[split.upperBound...].split(separator: UInt8(ascii: "\n")) {
            requests += 1
            guard requests <= 64 else { break }
            let text = String(decoding: line, as: UTF8.self)
            let words = text.split(separator: " ", maxSplits: 1)
            guard words.count == 2 else { continue }
            let argument = String(words[1])
            switch words[0] {
            case "content":
                guard let t = try? MediaTime(parsing: argument) else { continue }
                checkContent(t, composition, &broken)
            case "composition":
                guard let t = try? MediaTime(parsing: argument) else { continue }
                checkComposition(t, composition, &broken)
            case "session":
                let times = argument.split(separator: " ").prefix(32).compactMap { try? MediaTime(parsing: $0) }
                checkSession(times, schedule, durations, &broken)
            case "simulate":
                guard composition.segments.count <= 64, let actions = try? PlaybackSimulation.parse(argument), actions.count <= 32
                else { continue }
                checkSimulation(actions, schedule, durations, &broken)
            default:
                continue
            }
        }
        return broken
    }

    private static func onGrid(_ t: MediaTime, _ c: Composition) -> Bool { t.timescale == c.timescale }

    private static func checkContent(_ t: MediaTime, _ c: Composition, _ broken: inout [String]) {
        let taken = c.onGrid(t, clampedTo: c.contentDuration)
        for bias in [Composition.BreakBias.afterBreaks, .beforeBreaks] {
            let there = c.compositionTime(forContentTime: t, bias: bias)
            if !onGrid(there, c) || there < .zero || there > c.duration {
                broken.append("content \(t) (\(bias)) -> composition \(there), outside [0, \(c.duration)] or off the grid 1/\(c.timescale)")
            }
            // Shown content comes back exactly (segments are few enough to scan).
            let shown = taken == c.contentDuration
                || c.segments.contains { !$0.isAd && $0.contentRange.contains(taken) }
            if shown, c.segments.count <= 256, c.contentTime(forCompositionTime: there) != taken {
                broken.append("content \(t) (\(bias)) -> \(there) -> \(c.contentTime(forCompositionTime: there)), not \(taken)")
            }
        }
    }

    private static func checkComposition(_ t: MediaTime, _ c: Composition, _ broken: inout [String]) {
        let content = c.contentTime(forCompositionTime: t)
        if !onGrid(content, c) || content < .zero || content > c.contentDuration {
            broken.append("composition \(t) -> content \(content), outside [0, \(c.contentDuration)] or off the grid")
        }
        let location = c.locate(t)
        if (location == nil) != (t < .zero || t >= c.duration) {
            broken.append("composition \(t): located \(location == nil ? "nowhere" : "somewhere") in [0, \(c.duration))")
        }
        let bar = c.seekBar(at: t)
        _ = bar.main.label
        if bar.main.position != content || (bar.ad == nil) != (location?.ad == nil) {
            broken.append("composition \(t): seek bar \(bar) disagrees with the mapping")
        }
        if c.breakMarkers().count != c.breaks.count { broken.append("break markers: \(c.breakMarkers().count) for \(c.breaks.count) breaks") }
        guard let location else { return }
        let segment = location.segment
        if location.compositionTime > t || location.compositionTime != c.onGrid(t, clampedTo: c.duration)
            || !segment.compositionRange.contains(location.compositionTime) {
            broken.append("composition \(t): located at \(location.compositionTime) in \(segment.compositionRange)")
        }
        if location.sourceTime < segment.sourceRange.start || location.sourceTime >= segment.sourceRange.end {
            broken.append("composition \(t): source time \(location.sourceTime) outside \(segment.sourceRange)")
        }
        if location.ad == nil, c.compositionTime(forContentTime: content) != location.compositionTime {
            broken.append("composition \(t) -> content \(content) -> \(c.compositionTime(forContentTime: content)), not \(location.compositionTime)")
        }
        if let ad = location.ad, ad.timeInAd < .zero || ad.timeInAd >= ad.adDuration || ad.timeInBreak < ad.timeInAd {
            broken.append("composition \(t): \(ad.timeInAd) into an ad of \(ad.adDuration), \(ad.timeInBreak) into the break")
        }
    }

    private static func checkPlayhead(_ session: PlaybackSession, _ what: String, _ broken: inout [String]) {
        let c = session.composition
        if !onGrid(session.position, c) || session.position < .zero || session.position > c.duration {
            broken.append("\(what): playhead \(session.position) outside [0, \(c.duration)] or off the grid 1/\(c.timescale)")
        }
        let bookmark = session.playedState.bookmark
        if bookmark < .zero || bookmark > c.contentDuration { broken.append("\(what): bookmark \(bookmark) outside the content") }
    }

    private static func checkSession(
        _ times: [MediaTime], _ schedule: Schedule, _ durations: [MediaLocation: MediaTime], _ broken: inout [String]
    ) {
        guard var session = try? PlaybackSession(schedule: schedule, naturalDurations: durations),
              session.composition.segments.count <= 64 else { return }
        _ = session.start()
        checkPlayhead(session, "start", &broken)
        for t in times {
            _ = session.update(position: t)
            checkPlayhead(session, "update(position: \(t))", &broken)
            if let boundary = session.nextBoundary(after: t), boundary <= t { broken.append("next boundary after \(t) is \(boundary)") }
        }
        for t in times.prefix(4) {
            _ = try? session.seek(toContentTime: t)
            checkPlayhead(session, "seek(toContentTime: \(t))", &broken)
            _ = try? session.skipAd()
            _ = try? session.seek(toCompositionTime: t)
            checkPlayhead(session, "seek(toCompositionTime: \(t))", &broken)
            _ = try? session.skipBreak()
            checkPlayhead(session, "skipBreak", &broken)
        }
    }

    private static func checkSimulation(
        _ actions: [PlaybackSimulation.Action], _ schedule: Schedule, _ durations: [MediaLocation: MediaTime],
        _ broken: inout [String]
    ) {
        guard var session = try? PlaybackSession(schedule: schedule, naturalDurations: durations) else { return }
        var single = SingleItemPlayer(composition: session.composition)
        PlaybackSimulation.run(actions, session: &session, player: &single, naturalDuration: naturalDuration(of:)) { entry in
            if case .event(let event) = entry, event.compositionTime < .zero { broken.append("event \(event.name) at \(event.compositionTime)") }
        }
        checkPlayhead(session, "simulate (composition backend)", &broken)
        guard var queued = try? PlaybackSession(schedule: schedule, naturalDurations: durations) else { return }
        var queue = QueueBackendPlayer(composition: queued.composition)
        PlaybackSimulation.run(actions, session: &queued, player: &queue, naturalDuration: naturalDuration(of:)) { _ in }
        checkPlayhead(queued, "simulate (queue backend)", &broken)
    }
}
