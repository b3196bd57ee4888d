import CompositorAds
import CompositorCore
import CompositorIO
import CompositorMP4

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

    /// A schedule with no ad server behind it, so that its ads follow the same rule on loading
    /// (`loadSources`): one that fails drops out alone.
    ///
    /// - Parameter schedule: The clips and breaks.
    public init(schedule: Schedule) {
        self.init(schedule: schedule, tracking: AdTracking(), errors: [], diagnostics: [])
    }

    /// Loads every source of the schedule. Content always plays: an ad-server ad whose media file
    /// fails to load, or is in another codec than the content's, falls to its next-ranked file
    /// (VAST error 401, 402 or 405 owed for the one that failed); an ad with no file left, or one
    /// of the schedule's own that fails so, is dropped from its break alone, and a break with no
    /// ad left is dropped (303 owed to a VMAP break's `error` URLs). Each drop is a diagnostic
    /// (`ScheduleDocumentDiagnostic.adDropped`). With
    /// `placingOnly`, for a timeline that only places its items, an ad of the schedule's own that
    /// gives its `end` keeps its place (a timeline-only schedule's media need not exist). A
    /// content clip that fails stays, and fails as any source does. An ad plays its media whole,
    /// whatever its VAST `Duration` says: its `duration` in `tracking` becomes the length that plays
    /// (`ScheduleDocumentDiagnostic.adDurationDiffers` when the two are over half a second apart).
    ///
    /// ```swift
    /// var ads = AdSchedule(schedule: schedule)
    /// let catalog = try await ads.loadSources()   // ads.schedule: without the ads that failed
    /// let composition = try Composition.loading(ads.schedule, catalog: catalog)
    /// ```
    ///
    /// - Parameters:
    ///   - transport: What remote sources are fetched through.
    ///   - limits: Timeouts, retries, body sizes and requests in flight.
    ///   - timeout: How long each load may take (`SourceCatalog.load`).
    ///   - placingOnly: Whether the schedule is only placed, not played: its own ads that give
    ///     their `end` keep their place whether or not their media loads.
    /// - Returns: The catalog of the schedule as it now is.
    /// - Throws: `CancellationError` when the task was cancelled.
    public mutating func loadSources(
        transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default, timeout: Duration = .seconds(120),
        placingOnly: Bool = false
    ) async throws(CancellationError) -> SourceCatalog {
        var tried: [String: Int] = [:]  // ad ID -> index of its media file in use
        while true {
            let catalog = try await SourceCatalog.load(schedule, transport: transport, limits: limits, timeout: timeout)
            let contentCodecs = Self.codecs(of: schedule.content.map(\.source), in: catalog)
            var replacements: [String: MediaLocation] = [:]
            var failed: [String: AdProblem] = [:]
            for adBreak in schedule.breaks {
                for ad in adBreak.ads {
                    guard let problem = Self.problem(of: ad, in: catalog, contentCodecs: contentCodecs) else { continue }
                    failed[ad.id] = problem
                    guard let resolved = tracking.ads[ad.id] else { continue }
                    let index = tried[ad.id, default: 0]
                    errors.append(VASTErrorReport(error: VASTError(code: problem.code, document: resolved.mediaFiles[index].url,
                                                                   reason: "ad \(quoted(ad.id)): \(problem.reason)"), urls: resolved.errors))
                    guard index + 1 < resolved.mediaFiles.count, let next = try? MediaLocation(parsing: resolved.mediaFiles[index + 1].url) else { continue }
                    tried[ad.id] = index + 1
                    replacements[ad.id] = next
                    diagnostics.append(.adsUnavailable(path: "break \(quoted(adBreak.id))", reason: "ad \(quoted(ad.id)): \(problem.reason); its next media file plays: \(next)"))
                }
            }
            if replacements.isEmpty {
                dropAds(failed, placingOnly: placingOnly)
                measureAds(by: catalog)
                return catalog
            }
            schedule = Self.replacingAdSources(schedule, replacements)
        }
    }

    /// Why an ad cannot play: its VAST error code and the reason.
    private struct AdProblem {
        var code: VASTErrorCode
        var reason: String
        /// Whether its media could not be had at all (a timeline may still place the ad by its `end`).
        var unloaded: Bool
    }

    /// Why `ad` cannot play: its source failed to load, or it is in another codec than the
    /// content's (405: one stream cannot mix codecs: an MP4 track cannot, and the HLS and DASH
    /// outputs take one per kind of track). Only MP4 sources' codecs are compared; an HLS
    /// source's are its playlist's to say.
    private static func problem(of ad: Ad, in catalog: SourceCatalog, contentCodecs: [TrackKind: MP4CodecIdentity]) -> AdProblem? {
        if let failure = catalog.failures[ad.source] { return AdProblem(code: code(for: failure), reason: "\(failure)", unloaded: true) }
        for (kind, codec) in codecs(of: [ad.source], in: catalog).sorted(by: { $0.key.rawValue > $1.key.rawValue }) {
            guard let expected = contentCodecs[kind], expected != codec else { continue }
            return AdProblem(code: .mediaNotDisplayable, reason: "\(ad.source.displayDescription) has \(kind) in \(codec), the content in \(expected): "
                                 + "one stream cannot mix codecs", unloaded: false)
        }
        return nil
    }

    /// The codec of each kind of track the first of `sources` with one has (MP4 sources only).
    private static func codecs(of sources: [MediaLocation], in catalog: SourceCatalog) -> [TrackKind: MP4CodecIdentity] {
        var found: [TrackKind: MP4CodecIdentity] = [:]
        for source in sources {
            guard let movie = catalog.entries[source]?.movie else { continue }
            for (kind, track) in [(TrackKind.video, movie.videoTrack), (.audio, movie.audioTrack)] where found[kind] == nil {
                if let description = track?.sampleDescriptions.first { found[kind] = description.codecIdentity }
            }
        }
        return found
    }

    /// VAST's `Duration` against the media: the media plays whole (it is what the viewer sees and
    /// the player's clock measures), so every ad-server ad's `duration`, which its percentages
    /// (progress offsets, a skip offset) are taken of, becomes the length that plays. A stated
    /// `Duration` more than half a second off (whole seconds round by less) is a diagnostic.
    private mutating func measureAds(by catalog: SourceCatalog) {
        for ad in schedule.breaks.flatMap(\.ads) {
            guard let stated = tracking.ads[ad.id]?.duration, let end = ad.end ?? catalog.naturalDurations[ad.source],
                  let playing = try? end.subtracting(ad.start), let off = try? playing.subtracting(stated) else { continue }
            tracking.ads[ad.id]?.duration = playing
            if off > MediaTime(value: 1, timescale: 2) || off < MediaTime(value: -1, timescale: 2) {
                diagnostics.append(.adDurationDiffers(ad: ad.id, stated: stated, playing: playing))
            }
        }
    }

    /// Drops every ad of `failed` (but, `placingOnly`, the schedule's own whose media could not be
    /// had and that give their `end`), and every break left without an ad.
    private mutating func dropAds(_ failed: [String: AdProblem], placingOnly: Bool) {
        for adBreak in schedule.breaks {
            let dropped = adBreak.ads.compactMap { ad in failed[ad.id].map { (ad: ad, problem: $0) } }
                .filter { !(placingOnly && $0.problem.unloaded && $0.ad.end != nil && tracking.ads[$0.ad.id] == nil) }
            for (index, (ad, problem)) in dropped.enumerated() {
                // Removing the last ad of a pod removes its break: the IDs exist, so nothing throws.
                try? schedule.removeAd(id: ad.id)
                tracking.ads[ad.id] = nil
                let breakDropped = dropped.count == adBreak.ads.count && index == dropped.count - 1
                diagnostics.append(.adDropped(ad: ad.id, break: adBreak.id, reason: problem.reason, breakDropped: breakDropped))
                guard breakDropped else { continue }
                let urls = tracking.breaks[adBreak.id]?[.error] ?? []
                tracking.breaks[adBreak.id] = nil
                if !urls.isEmpty {
                    errors.append(VASTErrorReport(error: VASTError(code: .noAdsAfterWrapper, reason: "break \(quoted(adBreak.id)): no ad of it can play"),
                                                  urls: urls))
                }
            }
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
