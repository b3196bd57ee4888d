@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting
import CompositorTestSupport

/// One event per line, compactly: `<composition> <content> <name> <details>`, times as exact decimals.
func logLine(_ entry: PlaybackSimulation.Entry) -> String {
    switch entry {
    case .refused(let action, let error): return "refused \(action): \(error)"
    case .invalidURL(let action, let error): return "refused \(action): \(error)"
    case .event(let event):
        var line = "\(event.compositionTime) \(event.contentTime) \(event.name)"
        switch event.kind {
        case .breakStarted(let id, let first): line += " \(id)" + (first ? " first" : "")
        case .adStarted(let ad): line += " \(ad.adID) \(ad.podPosition)/\(ad.podSize)"
        case .adQuartile(let ad, let q): line += " \(ad.adID) q\(q)"
        case .adProgress(let ad, let offset): line += " \(ad.adID) +\(offset)"
        case .adEnded(let ad, let skipped): line += " \(ad.adID)" + (skipped ? " skipped" : "")
        case .breakEnded(let id, let skipped): line += " \(id)" + (skipped ? " skipped" : "")
        case .seekAdjusted(let requested, let actual): line += " \(requested)->\(actual)"
        case .compositionChanged(let old, let new): line += " \(old.duration)->\(new.duration)"
        case .contentResumed, .ended, .paused, .resumed: break
        }
        return line
    }
}

/// Runs `script` on `schedule` over the composition backend and returns the compact log.
func simulate(
    _ schedule: Schedule, _ script: String, snapback: SnapbackPolicy = .lastUnplayed,
    quartiles: Bool = false, playedState: PlayedState? = nil
) throws -> [String] {
    var session = try PlaybackSession(schedule: schedule, snapback: snapback, playedState: playedState)
    var player = SingleItemPlayer(composition: session.composition)
    let log = PlaybackSimulation.run(try PlaybackSimulation.parse(script), session: &session, player: &player)
    return log.map(logLine).filter { quartiles || !$0.contains(" adQuartile ") }
}

/// Content [0, 100) with 10 s single-ad breaks at 20, 40 and 60 (ads `a20`, `a40`, `a60`).
func threeBreaks(policy: BreakPolicy = .sticky, restrictions: BreakRestrictions = .none) throws -> Schedule {
    try Schedule(
        content: [ContentClip(id: "C", source: "c.mp4", end: s(100))],
        breaks: [20, 40, 60].map { (at: Int64) in
            AdBreak(id: "b\(at)", placement: .midroll(at: s(at)), ads: [Ad(id: "a\(at)", source: "ad.mp4", end: s(10))],
                    policy: policy, restrictions: restrictions)
        })
}
