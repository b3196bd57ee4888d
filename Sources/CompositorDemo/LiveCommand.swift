import Compositor
import Foundation

/// `live SCHEDULE.json --output DIR [--duration SECONDS] [--join full|rest] [--form stitched|interstitials]`: follows the schedule's
/// live content and keeps `DIR/stitched.m3u8` stitched with its breaks (`LiveHLSStitching`),
/// rewritten atomically after every change of the content, the MP4 ads packaged once into
/// `DIR/ads/`, until the content ends or `--duration` passes. One status line per reload goes to
/// stderr. A line `insert ID` on stdin plays the on-demand break `ID` from the next segment the
/// content publishes (breaking news).
///
/// `--join` is what a break already under way when the command starts plays: `full` (the
/// default) leaves it to the content, `rest` plays the rest of its ads. `--form interstitials`
/// leaves the content's segments as they are and makes each break an HLS interstitial, its asset
/// lists in `DIR/assets/` (`N.json`, and `N-joined.json` for a client that starts inside it).
enum LiveCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        guard let output = try arguments.pathOption("--output") else { throw .usage("live needs --output DIR") }
        let duration = try arguments.timeOption("--duration")
        let joinName = try arguments.option("--join") ?? LiveHLSStitching.JoinRule.fullBreaksOnly.rawValue
        let formName = try arguments.option("--form") ?? LiveHLSStitching.Form.stitched.rawValue
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        guard let joinRule = LiveHLSStitching.JoinRule(rawValue: joinName) else {
            throw .usage("--join: expected \(LiveHLSStitching.JoinRule.allCases.map(\.rawValue).joined(separator: " or ")), got \(quoted(joinName))")
        }
        guard let form = LiveHLSStitching.Form(rawValue: formName) else {
            throw .usage("--form: expected \(LiveHLSStitching.Form.allCases.map(\.rawValue).joined(separator: " or ")), got \(quoted(formName))")
        }
        if let duration, duration <= .zero { throw .usage("--duration must be more than 0 seconds") }
        let schedule: LiveSchedule
        do { schedule = try ScheduleDocument.readLive(path: path) } catch {
            if case .unreadable = error { throw .failure("\(error)") }
            throw .failure("\(path): \(error)")
        }
        let live = LiveHLSStitching(schedule: schedule, output: output, joinRule: joinRule, form: form)
        if schedule.breaks.contains(where: { $0.trigger == .onDemand }) { readInsertions(into: live) }
        // Past what nanoseconds in 64 bits hold (292 years) is as good as forever.
        let limit = duration.map { time in (try? time.converted(to: 1_000_000_000, rounding: .up)).map { Duration.nanoseconds($0.value) } ?? .seconds(Int64.max) }
        let result = waitForTask { () async -> LiveStitchingError? in
            do throws(LiveStitchingError) {
                try await live.run(for: limit) { status in Output.err(status.description) }
                return nil
            } catch {
                return error
            }
        }
        if let result { throw .failure("\(result)") }
    }

    /// Reads `insert ID` lines from stdin on a thread of its own, for as long as there are any; a
    /// line over 4 KiB is skipped as it arrives and reported by its length.
    private static func readInsertions(into live: LiveHLSStitching) {
        Thread.detachNewThread {
            var lines = BoundedLines(descriptor: STDIN_FILENO, limit: 4096)
            while let next = lines.next() {
                guard case .text(let line) = next else {
                    if case .tooLong(let bytes) = next { Output.err("stdin: a line of \(bytes) bytes, more than 4096, ignored") }
                    continue
                }
                let words = line.split(separator: " ", omittingEmptySubsequences: true)
                guard words.count == 2, words[0] == "insert" else {
                    if !words.isEmpty { Output.err("stdin: expected \"insert ID\", got \(quoted(line))") }
                    continue
                }
                let id = String(words[1])
                Task {
                    do throws(LiveStitchingError) { try await live.insertNow(id) } catch { Output.err("stdin: \(error)") }
                }
            }
        }
    }
}
