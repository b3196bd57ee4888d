import CompositorAds
import CompositorCore
import CompositorIO

extension ScheduleDocument {
    /// Reads the schedule file at `path` and resolves its ads from ad servers: the `vmap`'s linear
    /// breaks placed (`start` a pre-roll, `end` a post-roll, a time, a percentage of the content,
    /// `#n` the n-th span the content's cue markers mark; `repeatAfter` repeated to the content's
    /// end), each `vast` break filled with the ads its VAST resolves to. VAST requests are made
    /// concurrently. A schedule without ad servers is read as `read(path:)` reads it.
    ///
    /// What cannot be had does not fail the schedule: a VMAP that cannot be fetched, a break whose
    /// VAST gives no ad, a break the VMAP places outside the content, are diagnostics, and the
    /// errors owed to ad servers are in `AdSchedule.errors`.
    ///
    /// When `ads.selection` does not give the content's codec and picture size, they are read from
    /// the first content clip's MP4 (its video's sample entry), so each ad's media file is ranked
    /// for joining that content.
    ///
    /// - Parameters:
    ///   - path: The schedule file.
    ///   - transport: What ad documents are fetched through.
    ///   - limits: Redirects and body sizes for them.
    ///   - ads: Wrapper depth, timeouts and media file selection.
    /// - Returns: The schedule and its ad tracking.
    /// - Throws: `ScheduleDocumentError`, as `read(path:)`.
    public static func load(
        path: FilePath, transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default,
        ads: VASTResolver.Options = VASTResolver.Options()
    ) async throws(ScheduleDocumentError) -> AdSchedule {
        let bytes: [UInt8]
        do { bytes = try ReadableFile.contents(of: path, limit: maximumBytes) } catch {
            throw .unreadable(path: path, reason: error.reasonText)
        }
        var diagnostics: [ScheduleDocumentDiagnostic] = []
        let (schedule, requests) = try decodeWithAdRequests(bytes, baseFolder: path.parent, diagnostics: &diagnostics)
        var loader = AdScheduleLoader(schedule: schedule, resolver: VASTResolver(options: ads, transport: transport, limits: limits),
                                      transport: transport, limits: limits, diagnostics: diagnostics)
        try await loader.fill(requests)
        return AdSchedule(schedule: loader.schedule, tracking: loader.tracking, errors: loader.errors, diagnostics: loader.diagnostics)
    }
}

/// Fills a schedule from its ad servers' answers.
struct AdScheduleLoader {
    var schedule: Schedule
    var resolver: VASTResolver
    let transport: any HTTPTransport
    let limits: HTTPTransportLimits
    var diagnostics: [ScheduleDocumentDiagnostic]
    var tracking = AdTracking()
    var errors: [VASTErrorReport] = []
    /// The content's sources, loaded once when a placement or the media selection needs them.
    private var contentCatalog: SourceCatalog??

    init(schedule: Schedule, resolver: VASTResolver, transport: any HTTPTransport, limits: HTTPTransportLimits, diagnostics: [ScheduleDocumentDiagnostic]) {
        self.schedule = schedule
        self.resolver = resolver
        self.transport = transport
        self.limits = limits
        self.diagnostics = diagnostics
    }

    /// A break to fill: as read (or as the VMAP places it), where its ads come from.
    struct Request: Sendable {
        var templates: [AdBreak]
        var path: String
        var source: Source
        var breakTracking: [VMAPBreakEvent: [String]] = [:]
        /// How long its ad decision may take, wrappers included (the schedule's `adBudget`).
        var budget: MediaTime

        enum Source: Sendable {
            case url(String, referrer: String?, allowMultipleAds: Bool, followRedirects: Bool)
            case inline(VASTDocument, source: String, allowMultipleAds: Bool, followRedirects: Bool)
        }
    }

    mutating func fill(_ requests: AdServerRequests) async throws(ScheduleDocumentError) {
        let budget = requests.budget ?? MediaTime(milliseconds: resolver.options.totalTimeout)
        var pending = requests.breaks.map {
            Request(templates: $0.templates, path: $0.vast.path,
                    source: .url($0.vast.location.url, referrer: nil, allowMultipleAds: true, followRedirects: true),
                    budget: $0.budget ?? budget)
        }
        if let vmap = requests.vmap { pending += await vmapRequests(vmap, budget: budget) }
        if !pending.isEmpty { await describeContent() }
        let resolutions = await withTaskGroup(of: (Int, VASTResolution).self) { group in
            for (index, request) in pending.enumerated() {
                var resolver = self.resolver
                resolver.options.totalTimeout = .seconds(request.budget.seconds)
                group.addTask {
                    let errorURLs = request.breakTracking[.error] ?? []
                    switch request.source {
                    case .url(let url, let referrer, let multiple, let follow):
                        return (index, await resolver.resolve(url: url, allowMultipleAds: multiple, followRedirects: follow, errorURLs: errorURLs, referrer: referrer))
                    case .inline(let document, let source, let multiple, let follow):
                        return (index, await resolver.resolve(document, source: source, allowMultipleAds: multiple, followRedirects: follow, errorURLs: errorURLs))
                    }
                }
            }
            var resolutions = [VASTResolution](repeating: VASTResolution(ads: [], errors: []), count: pending.count)
            for await (index, resolution) in group { resolutions[index] = resolution }
            return resolutions
        }
        for (request, resolution) in zip(pending, resolutions) { try place(request, resolution) }
    }

    /// The breaks of the resolved ads, appended to the schedule.
    private mutating func place(_ request: Request, _ resolution: VASTResolution) throws(ScheduleDocumentError) {
        errors += resolution.errors
        if resolution.errors.contains(where: { $0.error.code == .wrapperTimeout }) {
            let resolved = resolution.ads.isEmpty ? "no ad resolved" : "\(resolution.ads.count) ad\(resolution.ads.count == 1 ? "" : "s") resolved"
            diagnostics.append(.adsUnavailable(path: request.path, reason: "the ad decision's \(request.budget) s budget ran out: \(resolved) in it, "
                                               + "what did not is content (VAST 301)"))
        }
        guard !resolution.ads.isEmpty else {
            let why = resolution.errors.last.map { "\($0.error)" } ?? "no ad"
            diagnostics.append(.adsUnavailable(path: request.path, reason: "no ad resolves, so \(request.templates.count == 1 ? "the break" : "its \(request.templates.count) breaks") will not play: \(why)"))
            return
        }
        var playable: [(ResolvedAd, MediaLocation)] = []
        for resolved in resolution.ads {
            guard let source = try? MediaLocation(parsing: resolved.mediaFile.url) else {
                errors.append(VASTErrorReport(error: VASTError(code: .fileNotFound, document: resolved.mediaFile.url, reason: "not a URL"), urls: resolved.errors))
                continue
            }
            playable.append((resolved, source))
        }
        guard !playable.isEmpty else { return }
        for template in request.templates {
            let ads = playable.indices.map { Ad(id: "\(template.id)-ad-\($0 + 1)", source: playable[$0].1) }
            let adBreak = AdBreak(id: template.id, placement: template.placement, ads: ads, policy: template.policy,
                                  resumeOffset: template.resumeOffset, restrictions: template.restrictions)
            do { try schedule.appendBreak(adBreak) } catch {
                if case .midrollOutsideContent = error {
                    diagnostics.append(.adsUnavailable(path: request.path, reason: "\(error): left out"))
                    continue
                }
                throw .schedule(path: request.path, error)
            }
            for (ad, (resolved, _)) in zip(ads, playable) { tracking.ads[ad.id] = resolved }
            if !request.breakTracking.isEmpty { tracking.breaks[template.id] = request.breakTracking }
        }
    }

    /// The VMAP's linear breaks, placed, or nothing (and a diagnostic) when it cannot be had.
    private mutating func vmapRequests(_ vmap: AdServerRequests.Document, budget: MediaTime) async -> [Request] {
        let url = vmap.location.url
        let document: VMAPDocument
        do { document = try await resolver.vmap(at: url) } catch {
            diagnostics.append(.adsUnavailable(path: vmap.path, reason: "\(error): the content plays without its breaks"))
            return []
        }
        diagnostics += document.diagnostics.map { .adsUnavailable(path: vmap.path, reason: "\(URIReference.redactedForDisplay(url)): \($0)") }
        var requests: [Request] = []
        var contentDuration: MediaTime?? = .none
        var usedIDs = Set(schedule.breaks.map(\.id))
        for (index, adBreak) in document.breaks.enumerated() {
            let path = "\(vmap.path): break \(adBreak.id.map { quoted($0) } ?? "at line \(adBreak.line)")"
            guard let adSource = adBreak.source else {
                diagnostics.append(.adsUnavailable(path: path, reason: "no AdSource: the break has no ads"))
                continue
            }
            let needsDuration: Bool
            if case .fraction = adBreak.timeOffset { needsDuration = true } else { needsDuration = adBreak.repeatAfter != nil }
            if needsDuration, contentDuration == .none { contentDuration = .some(await self.contentDuration()) }
            let placements: [Placement]
            switch self.placements(of: adBreak, contentDuration: contentDuration ?? nil) {
            case .success(let found): placements = found
            case .failure(let reason):
                diagnostics.append(.adsUnavailable(path: path, reason: reason.description))
                continue
            }
            var id = adBreak.id ?? "vmap-\(index + 1)"
            while usedIDs.contains(id) { id += "'" }
            let ids = placements.indices.map { $0 == 0 ? id : "\(id)-\($0 + 1)" }
            usedIDs.formUnion(ids)
            let templates = zip(ids, placements).map { AdBreak(id: $0, placement: $1, ads: []) }
            let source: Request.Source
            switch adSource.ads {
            case .adTagURI(let uri):
                source = .url(URIReference.resolve(uri, against: url), referrer: url, allowMultipleAds: adSource.allowMultipleAds, followRedirects: adSource.followRedirects)
            case .inline(let vast):
                source = .inline(vast, source: url, allowMultipleAds: adSource.allowMultipleAds, followRedirects: adSource.followRedirects)
            }
            requests.append(Request(templates: templates, path: path, source: source, breakTracking: adBreak.tracking, budget: budget))
        }
        return requests
    }

    /// Where a VMAP break plays, every time it does.
    private func placements(of adBreak: VMAPBreak, contentDuration: MediaTime?) -> Result<[Placement], Reason> {
        let first: MediaTime
        switch adBreak.timeOffset {
        case .start: first = .zero
        case .end: return .success([.postroll])
        case .time(let time): first = time
        case .fraction(let basisPoints):
            guard let contentDuration else { return .failure(Reason("its timeOffset is a percentage of the content, whose duration is not known")) }
            first = VASTOffset.fraction(basisPoints: basisPoints).time(inAdOf: contentDuration)
        case .position(let n):
            var ignored: [ScheduleDocumentDiagnostic] = []
            guard let marked = try? MarkedBreaks.expand(id: "cue", ads: [], policy: .sticky, restrictions: BreakRestrictions(), clipID: nil,
                                                        content: schedule.content, path: "vmap", diagnostics: &ignored),
                  n <= marked.count else {
                return .failure(Reason("its timeOffset #\(n) names a cue point the content's markers do not have"))
            }
            return .success([marked[n - 1].placement])
        }
        var times = [first]
        if let repeatAfter = adBreak.repeatAfter {
            guard let contentDuration else { return .failure(Reason("repeatAfter needs the content's duration, which is not known")) }
            while let next = try? times[times.count - 1].adding(repeatAfter), next < contentDuration, times.count < 10_000 { times.append(next) }
        }
        return .success(times.map { $0.isZero ? .preroll : .midroll(at: $0) })
    }

    struct Reason: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The content's sources, loaded once (nil when the load was cancelled).
    private mutating func loadedContent() async -> SourceCatalog? {
        if let contentCatalog { return contentCatalog }
        let catalog = try? await SourceCatalog.load(schedule.content.map(\.source), transport: transport, limits: limits)
        contentCatalog = .some(catalog)
        return catalog
    }

    /// The first clip's video codec and coded picture size, into the media selection where the
    /// caller gave neither (an HLS or audio-only clip gives nothing: the ranking goes without).
    private mutating func describeContent() async {
        guard resolver.options.selection.contentCodec == nil, resolver.options.selection.contentWidth == nil,
              let first = schedule.content.first,
              let video = await loadedContent()?.entries[first.source]?.movie?.videoTrack?.sampleDescriptions.first else { return }
        resolver.options.selection.contentCodec = video.format.description
        resolver.options.selection.contentWidth = video.width
        resolver.options.selection.contentHeight = video.height
    }

    /// The content's duration: the clips' given ends, or their sources' natural durations.
    private mutating func contentDuration() async -> MediaTime? {
        let catalog = schedule.content.allSatisfy { $0.end != nil } ? nil : await loadedContent()
        var total = MediaTime.zero
        for clip in schedule.content {
            guard let end = clip.end ?? catalog?.entries[clip.source]?.naturalDuration,
                  let length = try? end.subtracting(clip.start), let sum = try? total.adding(length) else { return nil }
            total = sum
        }
        return total
    }

}

private extension MediaTime {
    /// `duration` to the millisecond (a time limit's precision).
    init(milliseconds duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        self = overflow ? MediaTime(value: seconds, timescale: 1) : MediaTime(value: whole + attoseconds / 1_000_000_000_000_000, timescale: 1000)
    }
}
