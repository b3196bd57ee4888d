import CompositorCore

/// Follows VAST from a first document to the ads that will play: wrapper chains (each hop within
/// its time, the whole within the total, at most `maximumWrapperDepth` deep), pods in `sequence`
/// order with the buffet filling a failed slot, a stand-alone response playing its first ad that
/// resolves, media files ranked by `selection`. The chains of a pod's ads are followed concurrently,
/// so a pod of five ads behind five-deep chains costs about five hops, not twenty-five.
///
/// Nothing is fired here: the errors owed to the ad server come back in `VASTResolution.errors`.
///
/// ```swift
/// let resolver = VASTResolver(fetch: myFetch)
/// let resolution = await resolver.resolve(url: "http://127.0.0.1:8080/vast.xml")
/// resolution.ads.map(\.mediaFile.url)
/// ```
public struct VASTResolver: Sendable {
    public struct Options: Hashable, Sendable {
        /// The most wrappers followed before an InLine (IAB: five). One more is error 302.
        public var maximumWrapperDepth: Int
        /// The time allowed for each document.
        public var hopTimeout: Duration
        /// The time allowed for a whole chain, from the first request: the ad decision's budget
        /// (3 s, AWS MediaTailor's figure). Past it, the pod's ads that resolved play; the others
        /// fail with 301.
        public var totalTimeout: Duration
        /// How the media file of each ad is chosen.
        public var selection: MediaFileSelection
        public var documentLimits: XMLReadLimits

        /// Makes a value from its parts.
        ///
        /// - Parameters:
        ///   - maximumWrapperDepth: The most wrappers followed before an InLine (IAB: five).
        ///   - hopTimeout: The time allowed for each document.
        ///   - totalTimeout: The time allowed for a whole chain, from the first request (the ad decision's budget).
        ///   - selection: How the media file of each ad is chosen.
        ///   - documentLimits: Bounds on each document's size, element count and depth.
        public init(maximumWrapperDepth: Int = 5, hopTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(3),
                    selection: MediaFileSelection = MediaFileSelection(), documentLimits: XMLReadLimits = .default) {
            self.maximumWrapperDepth = maximumWrapperDepth
            self.hopTimeout = hopTimeout
            self.totalTimeout = totalTimeout
            self.selection = selection
            self.documentLimits = documentLimits
        }
    }

    public var options: Options
    let fetch: AdDocumentFetch

    /// - Parameters:
    ///   - options: Depth, timeouts, media file selection.
    ///   - fetch: How documents are fetched (`VASTResolver(options:transport:limits:)` uses the transport).
    public init(options: Options = Options(), fetch: @escaping AdDocumentFetch) {
        self.options = options
        self.fetch = fetch
    }

    /// Resolves the VAST at `url` (a URL or a path, as `fetch` reads them).
    ///
    /// - Parameters:
    ///   - url: The first document.
    ///   - allowMultipleAds: Whether a pod may answer (a VMAP `AdSource`'s `allowMultipleAds`).
    ///   - followRedirects: Whether wrappers are followed (VMAP's `followRedirects`).
    ///   - errorURLs: Where errors of this request go besides the documents' own (a VMAP break's).
    ///   - referrer: The document that named `url` (a VMAP's `AdTagURI`), nil when the app did.
    /// - Returns: The ads that play, in order, and the errors owed to the ad servers.
    public func resolve(url: String, allowMultipleAds: Bool = true, followRedirects: Bool = true, errorURLs: [String] = [],
                        referrer: String? = nil) async -> VASTResolution {
        let deadline = ContinuousClock.now.advanced(by: options.totalTimeout)
        let chain = Chain(errorURLs: errorURLs, followRedirects: followRedirects, deadline: deadline)
        switch await document(at: url, referrer: referrer, chain: chain) {
        case .failure(let report): return VASTResolution(ads: [], errors: [report])
        case .success(let document): return await resolve(document, source: url, allowMultipleAds: allowMultipleAds, chain: chain)
        }
    }

    /// Resolves a document already read (a VMAP's inline `VASTAdData`).
    ///
    /// - Parameters:
    ///   - document: The VAST.
    ///   - source: Its URL, which its relative URLs are resolved against.
    ///   - allowMultipleAds: Whether a pod may answer.
    ///   - followRedirects: Whether wrappers are followed.
    ///   - errorURLs: Where errors go besides the documents' own.
    /// - Returns: The ads that play, in order, and the errors owed to the ad servers.
    public func resolve(_ document: VASTDocument, source: String? = nil, allowMultipleAds: Bool = true, followRedirects: Bool = true,
                        errorURLs: [String] = []) async -> VASTResolution {
        let chain = Chain(errorURLs: errorURLs, followRedirects: followRedirects, deadline: ContinuousClock.now.advanced(by: options.totalTimeout))
        return await resolve(document, source: source, allowMultipleAds: allowMultipleAds, chain: chain)
    }

    /// What the ads reached through a chain of wrappers inherit from it.
    struct Chain: Sendable {
        var wrappers: [VASTAd] = []
        var tagURIs: [String] = []
        var errorURLs: [String]
        var followRedirects: Bool
        /// Whether the next document may hold wrappers (`followAdditionalWrappers` of the last).
        var allowsWrappers = true
        let deadline: ContinuousClock.Instant

        init(errorURLs: [String], followRedirects: Bool, deadline: ContinuousClock.Instant) {
            self.errorURLs = errorURLs
            self.followRedirects = followRedirects
            self.deadline = deadline
        }

        func report(_ code: VASTErrorCode, document: String?, line: Int? = nil, _ reason: String, adErrors: [String] = []) -> VASTErrorReport {
            VASTErrorReport(error: VASTError(code: code, document: document.map(URIReference.redactedForDisplay), line: line, reason: reason),
                            urls: errorURLs + adErrors)
        }
    }

    /// Fetches and reads the VMAP at `url` within one hop's time.
    ///
    /// - Parameter url: The VMAP's URL or path.
    /// - Returns: The VMAP.
    /// - Throws: `VASTError`: 301 (timed out), 300 (not fetched), 100 or 101 (not VMAP).
    public func vmap(at url: String) async throws(VASTError) -> VMAPDocument {
        let bytes: [UInt8]
        do { bytes = try await fetch(url, nil, options.hopTimeout) } catch {
            throw VASTError(code: error.timedOut ? .wrapperTimeout : .wrapperGeneral, document: URIReference.redactedForDisplay(url), reason: error.reason)
        }
        return try VMAPDocument(parsing: bytes, source: URIReference.redactedForDisplay(url), limits: options.documentLimits)
    }

    private func document(at url: String, referrer: String?, chain: Chain) async -> Result<VASTDocument, VASTErrorReport> {
        let left = ContinuousClock.now.duration(to: chain.deadline)
        let timeout = min(options.hopTimeout, left)
        guard timeout > .zero else {
            return .failure(chain.report(.wrapperTimeout, document: url, "the chain's \(options.totalTimeout) ran out before this document was requested"))
        }
        let bytes: [UInt8]
        do { bytes = try await fetch(url, referrer, timeout) } catch {
            let reason = error.timedOut ? "no response within \(timeout)" : error.reason
            return .failure(chain.report(error.timedOut ? .wrapperTimeout : .wrapperGeneral, document: url, reason))
        }
        do { return .success(try VASTDocument(parsing: bytes, source: URIReference.redactedForDisplay(url), limits: options.documentLimits)) } catch {
            return .failure(VASTErrorReport(error: error, urls: chain.errorURLs))
        }
    }

    private func resolve(_ document: VASTDocument, source: String?, allowMultipleAds: Bool, chain: Chain) async -> VASTResolution {
        guard !document.ads.isEmpty else {
            let reason = chain.wrappers.isEmpty ? "the response has no ads" : "no ads after \(chain.wrappers.count) wrapper(s)"
            return VASTResolution(ads: [], errors: [chain.report(.noAdsAfterWrapper, document: source, reason, adErrors: document.errors)])
        }
        let pod = allowMultipleAds ? document.pod : []
        var buffet = document.buffet[...]
        var resolution = VASTResolution(ads: [], errors: [])
        if pod.isEmpty {
            // Stand-alone ads: the first that resolves plays.
            while let ad = buffet.popFirst() {
                let outcome = await resolve(ad, source: source, chain: chain)
                resolution.errors += outcome.errors
                if !outcome.ads.isEmpty { resolution.ads = outcome.ads; break }
            }
            return resolution
        }
        // A pod: every slot's chain at once, then a failed slot filled from the buffet.
        let outcomes = await withTaskGroup(of: (Int, VASTResolution).self) { group in
            for (index, ad) in pod.enumerated() { group.addTask { (index, await resolve(ad, source: source, chain: chain)) } }
            var outcomes = [VASTResolution?](repeating: nil, count: pod.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.compactMap { $0 }
        }
        for (ad, outcome) in zip(pod, outcomes) {
            resolution.errors += outcome.errors
            if !outcome.ads.isEmpty { resolution.ads += outcome.ads; continue }
            guard ad.wrapper?.fallbackOnNoAd != false else { continue }
            while let fill = buffet.popFirst() {
                var filled = await resolve(fill, source: source, chain: chain)
                resolution.errors += filled.errors
                guard !filled.ads.isEmpty else { continue }
                for i in filled.ads.indices { filled.ads[i].sequence = ad.sequence }
                resolution.ads += filled.ads
                break
            }
        }
        return resolution
    }

    /// One ad: an InLine checked and ranked, or a wrapper followed.
    private func resolve(_ ad: VASTAd, source: String?, chain: Chain) async -> VASTResolution {
        if case .malformed(let error) = ad.kind {
            return VASTResolution(ads: [], errors: [VASTErrorReport(error: error, urls: chain.errorURLs + ad.errors)])
        }
        guard let wrapper = ad.wrapper else {
            switch inline(ad, source: source, chain: chain) {
            case .success(let resolved): return VASTResolution(ads: [resolved], errors: [])
            case .failure(let report): return VASTResolution(ads: [], errors: [report])
            }
        }
        let name = "wrapper \(ad.id.map(quoted) ?? "at line \(ad.line)")"
        guard chain.followRedirects else {
            return VASTResolution(ads: [], errors: [chain.report(.wrapperLimit, document: source, line: ad.line, "\(name): wrappers are not followed here (followRedirects=false)", adErrors: ad.errors)])
        }
        guard chain.allowsWrappers else {
            return VASTResolution(ads: [], errors: [chain.report(.wrapperLimit, document: source, line: ad.line, "\(name): the wrapper before it set followAdditionalWrappers=false", adErrors: ad.errors)])
        }
        guard chain.wrappers.count < options.maximumWrapperDepth else {
            return VASTResolution(ads: [], errors: [chain.report(.wrapperLimit, document: source, line: ad.line, "\(name): more than \(options.maximumWrapperDepth) wrappers before an InLine ad", adErrors: ad.errors)])
        }
        var next = chain
        next.wrappers.append(ad)
        next.errorURLs += ad.errors
        let tag = source.map { URIReference.resolve(wrapper.adTagURI, against: $0) } ?? wrapper.adTagURI
        next.tagURIs.append(tag)
        next.allowsWrappers = wrapper.followAdditionalWrappers
        var outcome: VASTResolution
        switch await document(at: tag, referrer: source, chain: next) {
        case .failure(let report): return VASTResolution(ads: [], errors: [report])
        case .success(let document):
            outcome = await resolve(document, source: tag, allowMultipleAds: wrapper.allowMultipleAds, chain: next)
        }
        if outcome.ads.isEmpty, outcome.errors.isEmpty {
            outcome.errors = [next.report(.noAdsAfterWrapper, document: tag, "no ad after the wrapper")]
        }
        for i in outcome.ads.indices { outcome.ads[i].sequence = ad.sequence }
        return outcome
    }

    private func inline(_ ad: VASTAd, source: String?, chain: Chain) -> Result<ResolvedAd, VASTErrorReport> {
        let name = "ad \(ad.id.map(quoted) ?? "at line \(ad.line)")"
        guard let linear = ad.linear, let duration = linear.duration else {
            return .failure(chain.report(.unexpectedAdType, document: source, line: ad.line, "\(name) has no linear creative", adErrors: ad.errors))
        }
        // Every URL resolved once against the document and held to the reference policy: one from
        // an ad server names media on the web only, never a local file.
        let policy = source.map(ReferencePolicy.init(document:))
        let ranked = options.selection.rank(linear.mediaFiles).map { file in
            var file = file
            if let source { file.url = URIReference.resolve(file.url, against: source) }
            return file
        }
        let files = ranked.filter { policy?.refusal(of: $0.url) == nil }
        if files.isEmpty, let refused = ranked.first, let reason = policy?.refusal(of: refused.url) {
            return .failure(chain.report(.noSupportedMediaFile, document: source, line: ad.line,
                                         "\(name): its playable media files are not followed (\(reason))",
                                         adErrors: ad.errors))
        }
        guard let best = files.first else {
            let types = Set(linear.mediaFiles.map { $0.apiFramework.map { "\($0) unit" } ?? "\($0.delivery.rawValue) \($0.type)" }).sorted()
            return .failure(chain.report(.noSupportedMediaFile, document: source, line: ad.line,
                                         "\(name): no media file the \(options.selection.output.rawValue) output plays (\(types.isEmpty ? "none" : types.joined(separator: ", ")))",
                                         adErrors: ad.errors))
        }
        let ads = chain.wrappers + [ad]
        let linears = ads.compactMap(\.linear)
        return .success(ResolvedAd(
            id: ad.id, sequence: ad.sequence, adSystem: ad.adSystem, title: ad.title, duration: duration, skipOffset: linear.skipOffset,
            mediaFile: best, fallbackMediaFiles: Array(files.dropFirst()),
            impressions: ads.flatMap(\.impressions), tracking: linears.flatMap(\.tracking), errors: chain.errorURLs + ad.errors,
            clickThrough: linear.clickThrough, clickTracking: linears.flatMap(\.clickTracking), wrappers: chain.tagURIs,
            universalAdIDs: linear.universalAdIDs, verifications: ads.flatMap(\.verifications)))
    }
}
