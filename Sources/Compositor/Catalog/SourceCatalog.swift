import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// Every distinct source of a schedule, resolved once: what it is, how long it plays, what it was
/// when it was read, and the parsed movie, for the timeline, the exports and the players to share.
///
/// Loading is the one asynchronous step: local files and remote URLs (http and https, through
/// an `HTTPTransport`) are read concurrently, a bounded number at a time, under a whole-load
/// timeout, and cancellably. A remote MP4 is read by ranges (its `moov` wherever it is, never the
/// whole file); a remote playlist is fetched and its variant chosen. Everything after the load is
/// synchronous and pure.
///
/// ```swift
/// let catalog = try await SourceCatalog.load(schedule)
/// let composition = try Composition.loading(schedule, catalog: catalog)
/// try await MP4Exporter.render(composition, catalog: catalog, to: "out.mp4")
/// ```
public struct SourceCatalog: Sendable {
    /// What a source is.
    public enum Kind: Hashable, Sendable {
        /// An MP4 (QuickTime, M4V) file.
        case mp4
        /// An HLS media playlist.
        case mediaPlaylist
        /// An HLS multivariant playlist (its variants are probed).
        case multivariantPlaylist
    }

    /// What a source was when it was loaded: an export made from the catalog holds only for the
    /// same version of each source.
    public enum Identity: Hashable, Sendable {
        /// A local file: which file (device and inode), its size and modification time (in
        /// nanoseconds since 1970).
        case file(device: UInt64, inode: UInt64, size: UInt64, modified: Int64)
        /// A remote resource: its URL after redirects, the server's validators and its length
        /// (`nil` for what was not said).
        case remote(url: String, entityTag: String?, lastModified: String?, length: UInt64?)
    }

    /// One source, loaded.
    public struct Entry: Sendable {
        /// The source as the schedule names it.
        public let location: MediaLocation
        public let kind: Kind
        /// How long it plays: an MP4's longest track, a playlist's exact sum of `EXTINF`.
        public let naturalDuration: MediaTime
        /// An MP4's video and audio track durations (empty for a playlist).
        public let trackDurations: [TrackKind: MediaTime]
        /// What the source was when it was read.
        public let identity: Identity
        /// Where the media layers read it: the file, or a remote MP4's spool.
        package let readPath: FilePath?
        /// An MP4's movie, as read.
        package let movie: MP4Movie?
        /// A remote playlist's playlists as fetched (it, and its variants), by the URL asked
        /// for: the exports read them from here, not from the server again.
        package var playlists: [String: FetchedPlaylist] = [:]
    }

    /// A playlist's bytes and the URL they came from after redirects.
    package struct FetchedPlaylist: Sendable {
        package let bytes: [UInt8]
        package let url: String
    }

    /// The sources that loaded, by location.
    public let entries: [MediaLocation: Entry]
    /// The sources that did not, with why.
    public let failures: [MediaLocation: SourceProbeError]
    /// How remote sources are fetched: the same transport and limits the load used.
    package let transport: any HTTPTransport
    package let limits: HTTPTransportLimits
    /// The spools of remote MP4s (and of the segments a render reads), kept as long as the
    /// catalog (or an export from it) is.
    package let spools: Spools?

    /// The load's answer for `location` in the probe's terms.
    ///
    /// - Parameter location: A source of the load.
    /// - Returns: Its format and durations, or `nil` when it did not load.
    public func report(for location: MediaLocation) -> SourceProbe.Report? {
        entries[location].map {
            SourceProbe.Report(format: $0.kind == .mp4 ? .mp4 : .hls, naturalDuration: $0.naturalDuration, trackDurations: $0.trackDurations)
        }
    }

    /// Each source's natural duration, for `Composition(schedule:naturalDurations:)`.
    public var naturalDurations: [MediaLocation: MediaTime] { entries.mapValues(\.naturalDuration) }

    /// Every source of `schedule` (content clips and ads), loaded.
    ///
    /// - Parameters:
    ///   - schedule: The schedule whose sources to load.
    ///   - transport: What remote sources are fetched through (`DefaultHTTPTransport` by default).
    ///   - limits: Timeouts, retries, body sizes and requests in flight.
    ///   - timeout: How long the whole load may take; sources not loaded by then fail with
    ///     `HTTPTransportError.Problem.loadTimedOut`.
    /// - Returns: The catalog: every source that loaded, and why each other did not.
    /// - Throws: `CancellationError` when the task was cancelled.
    public static func load(
        _ schedule: Schedule, transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default,
        timeout: Duration = .seconds(120)
    ) async throws(CancellationError) -> SourceCatalog {
        try await load(schedule.sources, transport: transport, limits: limits, timeout: timeout)
    }

    /// `sources`, loaded (each distinct one once).
    ///
    /// - Parameters:
    ///   - sources: Files and URLs, in any order, repeated or not.
    ///   - transport: What remote sources are fetched through.
    ///   - limits: Timeouts, retries, body sizes and requests in flight.
    ///   - timeout: How long the whole load may take.
    /// - Returns: The catalog.
    /// - Throws: `CancellationError` when the task was cancelled.
    public static func load(
        _ sources: [MediaLocation], transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default,
        timeout: Duration = .seconds(120)
    ) async throws(CancellationError) -> SourceCatalog {
        // One gate for every request made through this catalog, now and later (a render's).
        let transport = GatedTransport(transport, limit: limits.maximumConcurrentRequests)
        var distinct: [MediaLocation] = []
        var seen: Set<MediaLocation> = []
        for source in sources where seen.insert(source).inserted { distinct.append(source) }
        let spools = distinct.contains(where: { $0.filePath == nil }) ? Spools() : nil
        let loader = SourceLoader(transport: transport, limits: limits, spools: spools)
        let results = await loader.loadAll(distinct, timeout: timeout)
        var failures: [MediaLocation: SourceProbeError] = [:]
        if Task.isCancelled { throw CancellationError() }
        var entries: [MediaLocation: Entry] = [:]
        for (source, result) in results {
            switch result {
            case .success(let entry): entries[source] = entry
            case .failure(let error): failures[source] = error
            }
        }
        return SourceCatalog(entries: entries, failures: failures, transport: transport, limits: limits, spools: spools)
    }
}

extension Schedule {
    /// Every source it plays: content clips, then ads, in order (repeats kept), then the other
    /// renditions named, by their sources' order.
    package var sources: [MediaLocation] {
        let played = content.map(\.source) + breaks.flatMap { $0.ads.map(\.source) }
        var seen: Set<MediaLocation> = []
        return played + played.filter { seen.insert($0).inserted }.flatMap { renditions[$0] ?? [] }
    }
}

extension SourceCatalog.Identity {
    init(_ version: FileVersion) {
        self = .file(device: version.identity.device, inode: version.identity.inode, size: version.size, modified: version.modified)
    }

    init(_ remote: RemoteIdentity) {
        self = .remote(url: remote.url, entityTag: remote.entityTag, lastModified: remote.lastModified, length: remote.length)
    }
}
