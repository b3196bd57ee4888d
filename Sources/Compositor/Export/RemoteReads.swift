import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// How an export reads the remote sources a `SourceCatalog` loaded: a remote MP4 through its
/// spool, a remote playlist through the catalog's transport, its segments through spools made as
/// they are needed. Without a catalog, only local files are read.
///
/// Its calls block while they fetch: exports run them on their own blocking threads.
struct RemoteReads: Sendable {
    let catalog: SourceCatalog?

    init(_ catalog: SourceCatalog?) { self.catalog = catalog }

    /// Where the media layers read `location`: the file, a remote MP4's spool, or (for a remote
    /// playlist, whose segments are read one by one) its URL as a name; `nil` when it cannot be read.
    func readPath(of location: MediaLocation) -> FilePath? {
        if let path = location.filePath { return path }
        guard let catalog else { return nil }
        if let path = catalog.entries[location]?.readPath { return path }
        return SourceProbe.isPlaylist(location) && catalog.spools != nil ? FilePath(location.displayDescription) : nil
    }

    /// Why the catalog could not load `location`, when it could not: what an export without a
    /// read path for it says, rather than that it needs a catalog.
    func loadFailure(of location: MediaLocation) -> SourceProbeError? { catalog?.failures[location] }

    /// The MP4 sources the catalog read, by the path they are read from: a render plans with them
    /// instead of reading each `moov` again.
    var movies: [FilePath: MP4Movie] {
        guard let catalog else { return [:] }
        var movies: [FilePath: MP4Movie] = [:]
        for entry in catalog.entries.values {
            if let movie = entry.movie, let path = entry.readPath { movies[path] = movie }
        }
        return movies
    }

    /// Each spool's URL (as it may be printed), by the spool's path: what errors and diagnostics
    /// call a remote source.
    var names: [FilePath: String] {
        guard let spools = catalog?.spools?.all.values else { return [:] }
        return Dictionary(spools.map { ($0.path, $0.displayName) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `location` is played from an HLS playlist (else it is an MP4): what the catalog
    /// found it to be, or else what its name or first bytes say (a remote one not loaded: by name).
    func isPlaylist(_ location: MediaLocation) -> Bool {
        if let kind = catalog?.entries[location]?.kind { return kind != .mp4 }
        // Without a catalog a remote source cannot be read: taken for a playlist, whose refusal says why.
        if location.filePath == nil, catalog == nil { return true }
        return SourceProbe.isPlaylist(location)
    }

    /// Reads playlists from files, and from http(s) URLs: those the catalog fetched from what it
    /// kept, any other through its transport.
    var playlistLoader: HLSPlaylistLoader {
        guard let catalog else { return .fileSystem }
        let remote = HLSPlaylistLoader.remote(transport: catalog.transport, limits: catalog.limits)
        let local = HLSPlaylistLoader.fileSystem
        var fetched: [String: SourceCatalog.FetchedPlaylist] = [:]
        for entry in catalog.entries.values { fetched.merge(entry.playlists) { first, _ in first } }
        return HLSPlaylistLoader(limits: local.limits) { [fetched] url in
            if let playlist = fetched[url] { return (playlist.bytes, playlist.url) }
            return HTTPFetch.isHTTP(url) ? try remote.fetch(url) : try local.fetch(url)
        }
    }

    /// The spool a remote segment (or init section) is read through.
    func spoolPath(_ url: String) throws(HTTPTransportError) -> FilePath {
        guard let catalog, let spools = catalog.spools else { throw HTTPTransportError(url: url, problem: .invalidURL) }
        let opened = waitForTask { () -> Result<RemoteSpool, HTTPTransportError> in
            do throws(HTTPTransportError) {
                return .success(try await spools.spool(for: url, transport: catalog.transport, limits: catalog.limits))
            } catch { return .failure(error) }
        }
        return try opened.get().path
    }

    /// Fetches the bytes of the small copies a render reads from remote MP4 sources
    /// (`MP4StitchPlan.copiedFileRanges.read`) into their spools, all at once (the catalog's gate
    /// bounds the requests in flight), before the output is begun.
    func fetchAhead(_ ranges: [FilePath: [Range<UInt64>]]) throws(MP4ExportError) {
        guard let spools = catalog?.spools?.all.values else { return }
        let wanted = spools.compactMap { spool in ranges[spool.path].flatMap { $0.isEmpty ? nil : (spool, $0) } }
        guard !wanted.isEmpty else { return }
        let failure = waitForTask { () -> HTTPTransportError? in
            await withTaskGroup(of: HTTPTransportError?.self) { group in
                for (spool, ranges) in wanted {
                    group.addTask {
                        do throws(HTTPTransportError) { try await spool.fetch(ranges); return nil } catch { return error }
                    }
                }
                var first: HTTPTransportError?
                for await failure in group where first == nil && failure != nil {
                    first = failure
                    group.cancelAll()
                }
                return first
            }
        }
        if let failure { throw MP4ExportError(.transport(failure)) }
    }

    /// Starts fetching the bytes a render copies from remote MP4 sources file to file, in the
    /// order it copies them (`copies`: file paths and ranges, the spools' among them), a bounded
    /// window ahead of the output (see `SpoolStream`); `nil` when no copy is remote. The caller
    /// finishes it.
    func stream(_ copies: [(path: FilePath, range: Range<UInt64>)]) -> SpoolStream? {
        guard let catalog, let spools = catalog.spools?.all.values else { return nil }
        let byPath = Dictionary(spools.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let streamed = copies.compactMap { copy -> (spool: RemoteSpool, range: Range<UInt64>)? in
            guard let spool = byPath[copy.path] else { return nil }
            let range = copy.range.clamped(to: 0..<spool.size)
            return range.isEmpty ? nil : (spool, range)
        }
        guard !streamed.isEmpty else { return nil }
        let stream = SpoolStream(streamed)
        stream.start(width: catalog.limits.maximumConcurrentRequests)
        return stream
    }

    /// Each spool's URL by its path's text: how errors name a remote source.
    private var fileNames: [String: String] {
        Dictionary(names.map { ($0.key.description, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// `error` as the user should read it: a remote source's fetch failure as the transport
    /// error it was, spool files named by their URLs.
    func inUserTerms(_ error: MP4ExportError) -> MP4ExportError {
        guard let spools = catalog?.spools?.all.values, !spools.isEmpty else { return error }
        if let failure = spools.lazy.compactMap(\.failure).first { return MP4ExportError(.transport(failure)) }
        guard let mp4 = error.mp4Error else { return error }
        return MP4ExportError(.mp4(mp4.renamingFiles(fileNames)))
    }

    /// `error` as the user should read it (see the render's `inUserTerms`): a remote source's
    /// fetch failure as `.unreadable` naming its URL, spool files named by their URLs.
    func inUserTerms(_ error: HLSExportError) -> HLSExportError {
        guard let spools = catalog?.spools?.all.values, !spools.isEmpty else { return error }
        if let failure = spools.lazy.compactMap(\.failure).first { return HLSExportError(.unreadable(url: failure.url, reason: failure.reason)) }
        guard case .packaging(let item, let mp4) = error.detail else { return error }
        return HLSExportError(.packaging(item: item, mp4.renamingFiles(fileNames)))
    }
}
