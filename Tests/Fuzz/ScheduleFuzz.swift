// libFuzzer target: the schedule reader (JSON parser + ScheduleDocument), and the timeline a
// schedule it accepted compiles into, and a playback session over it.
//
// Built by `Tests/Fuzz/run.sh schedule` against the instrumented library. Whatever the bytes,
// decoding must return a schedule or throw a `ScheduleDocumentError`; a schedule that decoded must
// compile (or throw a `ScheduleError`, overflow included) and answer mapping questions without
// trapping. A crash, a hang (`-timeout`) or an allocation over `-malloc_limit_mb` is a bug.
import Compositor
import CompositorTesting

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let schedule: Schedule
    do { schedule = try ScheduleDocument.decode(bytes, baseFolder: "/media") } catch {
        _ = error.description
        return 0
    }
    // Natural durations as a probe would report them: ordinary ones, a fractional NTSC one, and
    // one near the top of the range, so lying times meet big durations too (the regression tests
    // use the same choice: Robust.fuzzNaturalDurations).
    let choices = [
        MediaTime(seconds: 30), MediaTime(value: 1001, timescale: 30000), MediaTime(value: Int64.max / 2, timescale: 1),
    ]
    var durations: [MediaLocation: MediaTime] = [:]
    for clip in schedule.content { durations[clip.source] = choices[clip.source.description.utf8.count % choices.count] }
    for adBreak in schedule.breaks {
        for ad in adBreak.ads { durations[ad.source] = choices[ad.source.description.utf8.count % choices.count] }
    }
    let composition: Composition
    do { composition = try Composition(schedule: schedule, naturalDurations: durations) } catch {
        _ = error.description
        return 0
    }
    let duration = composition.duration
    let probes = [
        MediaTime.zero, MediaTime(value: duration.value / 2, timescale: duration.timescale), duration,
        MediaTime(value: composition.contentDuration.value / 3, timescale: composition.contentDuration.timescale),
    ]
    for time in probes {
        _ = composition.compositionTime(forContentTime: time)
        _ = composition.compositionTime(forContentTime: time, bias: .beforeBreaks)
        _ = composition.contentTime(forCompositionTime: time)
        _ = composition.locate(time)
    }
    for segment in composition.segments { _ = composition.locate(segment.compositionRange.start) }

    // A playback session over the schedule, as the demo's `simulate` runs one: play through the
    // breaks, seek, skip, play to the end. Boundaries are visited one by one, so the script is
    // only run on schedules of a modest size.
    guard composition.segments.count <= 64,
          var session = try? PlaybackSession(schedule: schedule, naturalDurations: durations) else { return 0 }
    var player = SingleItemPlayer(composition: session.composition)
    // (The same script as Robust.fuzzPlaybackActions in the regression tests.)
    let actions: [PlaybackSimulation.Action] = [
        .play(MediaTime(seconds: 1)), .seekContent(probes[3]), .skipAd, .play(MediaTime(seconds: 5)), .skipBreak,
        .seekComposition(probes[1]), .play(MediaTime(value: Int64.max / 4, timescale: 1)),
    ]
    _ = PlaybackSimulation.run(actions, session: &session, player: &player, naturalDuration: { durations[$0] })
    return 0
}
