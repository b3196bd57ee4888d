import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS

/// The player's side of a live stream: the stitched playlist loaded and reloaded as RFC 8216bis
/// 6.3.4 has a client reload (a target duration after a load that found a change, half of one
/// after one that did not or failed), each change a `LiveTimeline`, until `EXT-X-ENDLIST`.
///
///     origin   one more 2 s segment per load; every third load repeats the one before; 14 in all
///     follower load | 2 s | load | 2 s | load (same) | 1 s | load | ... | ENDLIST: done
@Suite("Live: the player's follower of a stitched stream") struct LiveStreamFollowerTests {
    typealias Origin = LiveHLSStitchingTests.ScriptedOrigin

    static func follower(_ url: String = "http://127.0.0.1/master.m3u8", origin: Origin) -> LiveStreamFollower {
        LiveStreamFollower(url: url, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
    }

    @Test func reloadsAsTheRFCSaysUntilTheStreamEnds() async throws {
        let origin = Origin(count: 14, repeatsEveryThird: true)
        let follower = Self.follower(origin: origin)
        let first = try await follower.load()
        // A multivariant playlist plays its first variant of the highest BANDWIDTH.
        #expect(first.mediaURL == "http://127.0.0.1/v0/live.m3u8" && first.targetDuration == 2)
        let clock = InstantClock()
        var timelines: [LiveTimeline] = []
        try await follower.follow(after: first, clock: clock) { timelines.append($0.timeline) }
        // Each change once, the live edge 2 s on each time, the last one ended.
        let edges = ([first.timeline] + timelines).map(\.liveEdge)
        #expect(zip(edges, edges.dropFirst()).allSatisfy { $1 - $0 == MediaTime(seconds: 2) }, "\(edges)")
        #expect(timelines.last?.hasEnded == true && timelines.dropLast().allSatisfy { !$0.hasEnded })
        #expect(edges.count == 14 - 3)
        // 2 s after each load that changed, 1 s after each that repeated the one before.
        let halves = clock.sleeps.filter { $0 == .seconds(1) }.count
        #expect(clock.sleeps.allSatisfy { $0 == .seconds(2) || $0 == .seconds(1) })
        #expect(clock.sleeps.count - halves == timelines.count && halves > 0)
    }

    @Test func fourFailedLoadsInARowAreOutlastedAFifthIsReported() async throws {
        let tolerated = Self.follower(origin: Origin(count: 8, failing: [3, 4, 5, 6]))
        var changes = 0
        try await tolerated.follow(after: try await tolerated.load(), clock: InstantClock()) { _ in changes += 1 }
        #expect(changes > 0)

        let failing = Self.follower(origin: Origin(count: 8, failing: Set(3...7)))
        let error = await #expect(throws: LiveTimelineError.self) {
            try await failing.follow(after: try await failing.load(), clock: InstantClock()) { _ in }
        }
        #expect(error?.url == "http://127.0.0.1/v0/live.m3u8" && error?.reason.contains("503") == true, "\(String(describing: error))")
    }

    @Test func aStreamWithoutDatesOrNotHLSIsATypedErrorNamingIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follower-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let undated = folder.appendingPathComponent("undated.m3u8")
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8).write(to: undated)
        let error = await #expect(throws: LiveTimelineError.self) { _ = try await Self.follower(undated.path, origin: Origin()).load() }
        #expect(error?.url == undated.path && error?.reason.contains("EXT-X-PROGRAM-DATE-TIME") == true, "\(String(describing: error))")

        let missing = await #expect(throws: LiveTimelineError.self) { _ = try await Self.follower("http://127.0.0.1/none.m3u8", origin: Origin()).load() }
        #expect(missing?.url == "http://127.0.0.1/none.m3u8" && missing?.reason.contains("404") == true, "\(String(describing: missing))")
    }
}
