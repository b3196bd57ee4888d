import CompositorAds
import CompositorCore
import CompositorIO

/// A schedule file's schedule with its ads from ad servers resolved: the VMAP's breaks placed, each
/// `vast` break filled, and what the ad servers asked to be told.
///
/// ```swift
/// var loaded = try await ScheduleDocument.load(path: "show.json")
/// let catalog = try await loaded.loadSources()        // a media file that fails falls to the next
/// var session = try PlaybackSession(schedule: loaded.schedule, naturalDurations: catalog.naturalDurations)
/// session.adProgressOffsets = loaded.tracking.progressOffsets
/// var beacons = BeaconPlanner(tracking: loaded.tracking, schedule: loaded.schedule)
/// ```
public struct AdSchedule: Sendable {
    /// The schedule: its own breaks, and those the ad servers filled.
    public private(set) var schedule: Schedule
    /// The resolved ad behind each ad-server ad, and each VMAP break's tracking.
    public private(set) var tracking: AdTracking
    /// Errors owed to the ad servers (resolution, media), not sent: `BeaconPlanner.beacons(for:macros:)`
    /// makes them beacons.
    public private(set) var errors: [VASTErrorReport]
    /// What was read or asked for but will not play, and why.
    public private(set) var diagnostics: [ScheduleDocumentDiagnostic]

    package init(schedule: Schedule, tracking: AdTracking, errors: [VASTErrorReport], diagnostics: [ScheduleDocumentDiagnostic]) {
        self.schedule = schedule
        self.tracking = tracking
        self.errors = errors
        self.diagnostics = diagnostics
    }

    /// Loads every source of the schedule; an ad-server ad whose media file fails to load falls to
    /// its next-ranked file (VAST error 401, 402 or 405 owed for the one that failed), or, with no
    /// file left, stays and fails as any source does.
    ///
    /// - Parameters:
    ///   - transport: What remote sources are fetched through.
    ///   - limits: Timeouts, retries, body sizes and requests in flight.
    ///   - timeout: How long each load may take (`SourceCatalog.load`).
    /// - Returns: The catalog of the schedule as it now is.
    /// - Throws: `CancellationError` when the task was cancelled.
    public mutating func loadSources(
        transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default, timeout: Duration = .seconds(120)
    ) async throws(CancellationError) -> SourceCatalog {
        var tried: [String: Int] = [:]  // ad ID -> index of its media file in use
        while true {
            let catalog = try await SourceCatalog.load(schedule, transport: transport, limits: limits, timeout: timeout)
            var replacements: [String: MediaLocation] = [:]
            for adBreak in schedule.breaks {
                for ad in adBreak.ads {
                    guard let failure = catalog.failures[ad.source], let resolved = tracking.ads[ad.id] else { continue }
                    let index = tried[ad.id, default: 0]
                    errors.append(VASTErrorReport(error: VASTError(code: Self.code(for: failure), document: resolved.mediaFiles[index].url,
                                                                   reason: "ad \(quoted(ad.id)): \(failure)"), urls: resolved.errors))
                    guard index + 1 < resolved.mediaFiles.count, let next = try? MediaLocation(parsing: resolved.mediaFiles[index + 1].url) else { continue }
                    tried[ad.id] = index + 1
                    replacements[ad.id] = next
                    diagnostics.append(.adsUnavailable(path: "break \(quoted(adBreak.id))", reason: "ad \(quoted(ad.id)): \(failure); its next media file plays: \(next)"))
                }
            }
            if replacements.isEmpty { return catalog }
            schedule = Self.replacingAdSources(schedule, replacements)
        }
    }

    /// VAST's media error for a source that did not load: 402 for time, 401 for a file not had,
    /// 405 for one had but not playable.
    static func code(for failure: SourceProbeError) -> VASTErrorCode {
        switch failure {
        case .transport(let error):
            switch error.problem {
            case .timedOut, .loadTimedOut: return .mediaTimeout
            default: return .fileNotFound
            }
        case .mp4(.fileNotFound), .mp4(.io), .remote: return .fileNotFound
        default: return .mediaNotDisplayable
        }
    }

    private static func replacingAdSources(_ schedule: Schedule, _ replacements: [String: MediaLocation]) -> Schedule {
        let breaks = schedule.breaks.map { adBreak in
            AdBreak(id: adBreak.id, placement: adBreak.placement,
                    ads: adBreak.ads.map { ad in replacements[ad.id].map { Ad(id: ad.id, source: $0, start: ad.start, end: ad.end) } ?? ad },
                    policy: adBreak.policy, resumeOffset: adBreak.resumeOffset, restrictions: adBreak.restrictions)
        }
        // The same clips and breaks with other sources: valid as before.
        return (try? Schedule(content: schedule.content, breaks: breaks)) ?? schedule
    }
}
