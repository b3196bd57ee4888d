import CompositorCore

/// Which beacons the session's events make due: a pure function of the events, fed in order.
///
/// - `breakStarted`: the VMAP break's `breakStart`; `breakEnded`: its `breakEnd`.
/// - `adStarted`: the ad's impressions (every wrapper's too), `creativeView` and `start`.
/// - `adQuartile` 1/2/3: `firstQuartile`, `midpoint`, `thirdQuartile`; `adProgress`: the `progress`
///   events at that offset; `adEnded`: `complete`, or `skip` when skipped.
/// - `paused` / `resumed` during an ad: its `pause` / `resume`.
///
/// The session reports each of these once per play of an ad, exactly when the ad has played that
/// far (its quartile points are on the composition's grid, never a rounded float), and never for a
/// stretch skipped by a seek; a sticky break that plays again is a new play, a `once` break plays
/// once. So the beacons follow the same rules.
///
/// ```swift
/// var planner = BeaconPlanner(tracking: loaded.adTracking, schedule: loaded.schedule)
/// let due = planner.beacons(for: reaction.events, macros: BeaconMacros(cacheBusting: "12345678", timestamp: now))
/// ```
public struct BeaconPlanner: Sendable {
    public let tracking: AdTracking
    private let breakPositions: [String: Int]
    /// The ad playing (its ID and composition start), for pause and resume.
    private var current: (adID: String, breakID: String, start: MediaTime)?

    /// - Parameters:
    ///   - tracking: What the ad servers asked to be told, by the schedule's IDs.
    ///   - schedule: The schedule the session plays (for `[BREAKPOSITION]`).
    public init(tracking: AdTracking, schedule: Schedule) {
        self.tracking = tracking
        var positions: [String: Int] = [:]
        for adBreak in schedule.breaks {
            switch adBreak.placement {
            case .preroll: positions[adBreak.id] = 1
            case .midroll: positions[adBreak.id] = 2
            case .postroll: positions[adBreak.id] = 3
            }
        }
        breakPositions = positions
    }

    /// The beacons `events` make due, in order, their macros filled from `macros` and each event.
    ///
    /// - Parameters:
    ///   - events: The session's events, in the order it reported them.
    ///   - macros: `[CACHEBUSTING]` and `[TIMESTAMP]` for this batch.
    /// - Returns: The beacons due.
    public mutating func beacons(for events: [PlaybackEvent], macros: BeaconMacros) -> [DueBeacon] {
        var due: [DueBeacon] = []
        for event in events { beacons(for: event, macros: macros, into: &due) }
        return due
    }

    private mutating func beacons(for event: PlaybackEvent, macros: BeaconMacros, into due: inout [DueBeacon]) {
        switch event.kind {
        case .breakStarted(let breakID, _):
            append(.breakStart, urls: tracking.breaks[breakID]?[.breakStart] ?? [], breakID: breakID, adID: nil, event: event, macros: macros, into: &due)
        case .breakEnded(let breakID, _):
            append(.breakEnd, urls: tracking.breaks[breakID]?[.breakEnd] ?? [], breakID: breakID, adID: nil, event: event, macros: macros, into: &due)
        case .adStarted(let position):
            current = (position.adID, position.breakID, event.compositionTime)
            guard let ad = tracking.ads[position.adID] else { return }
            append(.impression, urls: ad.impressions, position, event, macros, into: &due)
            for name in [VASTTrackingEvent.creativeView, .start] {
                append(.tracking(name), urls: ad.trackingURLs(name), position, event, macros, into: &due)
            }
        case .adQuartile(let position, let quartile):
            guard let ad = tracking.ads[position.adID], (1...3).contains(quartile) else { return }
            let name: VASTTrackingEvent = [.firstQuartile, .midpoint, .thirdQuartile][quartile - 1]
            append(.tracking(name), urls: ad.trackingURLs(name), position, event, macros, into: &due)
        case .adProgress(let position, let offset):
            guard let ad = tracking.ads[position.adID] else { return }
            let urls = ad.tracking.filter {
                if case .progress(let at) = $0.event { return at.time(inAdOf: ad.duration) == offset }
                return false
            }.map(\.url)
            append(.tracking(.progress(.time(offset))), urls: urls, position, event, macros, into: &due)
        case .adEnded(let position, let skipped):
            if let ad = tracking.ads[position.adID] {
                let name: VASTTrackingEvent = skipped ? .skip : .complete
                append(.tracking(name), urls: ad.trackingURLs(name), position, event, macros, into: &due)
            }
            current = nil
        case .paused, .resumed:
            guard let current, let ad = tracking.ads[current.adID] else { return }
            let name: VASTTrackingEvent = event.kind == .paused ? .pause : .resume
            append(.tracking(name), urls: ad.trackingURLs(name), breakID: current.breakID, adID: current.adID, event: event, macros: macros, into: &due)
        case .contentResumed, .seekAdjusted, .compositionChanged, .ended:
            break
        }
    }

    /// The error beacons owed for `reports` (found while resolving or loading, before playback).
    ///
    /// - Parameters:
    ///   - reports: The errors, with the URLs they go to.
    ///   - macros: `[CACHEBUSTING]` and `[TIMESTAMP]` for this batch.
    /// - Returns: One beacon per URL, `[ERRORCODE]` filled.
    public func beacons(for reports: [VASTErrorReport], macros: BeaconMacros) -> [DueBeacon] {
        reports.flatMap { report in
            var filled = macros
            filled.errorCode = report.error.code
            return report.urls.map { DueBeacon(kind: .error(report.error.code), url: filled.expand($0)) }
        }
    }

    private func append(_ kind: DueBeacon.Kind, urls: [String], _ position: AdPosition, _ event: PlaybackEvent, _ macros: BeaconMacros,
                        into due: inout [DueBeacon]) {
        append(kind, urls: urls, breakID: position.breakID, adID: position.adID, event: event, macros: macros, into: &due)
    }

    private func append(_ kind: DueBeacon.Kind, urls: [String], breakID: String, adID: String?, event: PlaybackEvent, macros: BeaconMacros,
                        into due: inout [DueBeacon]) {
        guard !urls.isEmpty else { return }
        var filled = macros
        filled.contentPlayhead = event.contentTime
        filled.breakPosition = breakPositions[breakID]
        if let adID, let ad = tracking.ads[adID] {
            filled.assetURI = ad.mediaFile.url
            if let current, current.adID == adID { filled.adPlayhead = event.compositionTime - current.start }
        }
        for url in urls {
            due.append(DueBeacon(kind: kind, url: filled.expand(url), breakID: breakID, adID: adID,
                                 compositionTime: event.compositionTime, contentTime: event.contentTime))
        }
    }
}
