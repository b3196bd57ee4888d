import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting
import CompositorTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Robust {
    /// The natural durations the schedule fuzz target gives sources: 30 s, 1001/30000 s or
    /// 2^62 s, chosen by the URL's length, so lying times meet big and fractional durations.
    static func fuzzNaturalDurations(_ schedule: Schedule) -> [MediaLocation: MediaTime] {
        let choices = [MediaTime(seconds: 30), MediaTime(value: 1001, timescale: 30000), MediaTime(value: Int64.max / 2, timescale: 1)]
        var durations: [MediaLocation: MediaTime] = [:]
        for source in schedule.content.map(\.source) + schedule.breaks.flatMap({ $0.ads.map(\.source) }) {
            durations[source] = choices[source.description.utf8.count % choices.count]
        }
        return durations
    }

    /// The playback script the schedule fuzz target runs (Tests/Fuzz/ScheduleFuzz.swift), with
    /// `probes` = [0, half the composition, its end, a third of the content].
    static func fuzzPlaybackActions(_ composition: Composition) -> [PlaybackSimulation.Action] {
        let content = composition.contentDuration, whole = composition.duration
        return [
            .play(MediaTime(seconds: 1)), .seekContent(MediaTime(value: content.value / 3, timescale: content.timescale)),
            .skipAd, .play(MediaTime(seconds: 5)), .skipBreak,
            .seekComposition(MediaTime(value: whole.value / 2, timescale: whole.timescale)),
            .play(MediaTime(value: Int64.max / 4, timescale: 1)),
        ]
    }

    /// Plays `schedule` with the fuzz target's natural durations and script; the log.
    static func fuzzPlayback(_ schedule: Schedule) throws -> [PlaybackSimulation.Entry] {
        let durations = fuzzNaturalDurations(schedule)
        var session = try PlaybackSession(schedule: schedule, naturalDurations: durations)
        var player = SingleItemPlayer(composition: session.composition)
        return PlaybackSimulation.run(fuzzPlaybackActions(session.composition), session: &session, player: &player,
                                      naturalDuration: { durations[$0] })
    }
}
