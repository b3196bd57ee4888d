import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// Loads a catalog's sources: a bounded number at a time, each on the path its kind needs, under
/// one timeout for them all.
struct SourceLoader: Sendable {
    let transport: any HTTPTransport
    let limits: HTTPTransportLimits
    let spools: Spools?

    typealias Loaded = Result<SourceCatalog.Entry, SourceProbeError>

    private enum Outcome: Sendable {
        case loaded(MediaLocation, Loaded)
        case deadline
    }

    /// Each of `sources` (distinct), loaded or failed; those the deadline or a cancellation cut
    /// short fail with `.loadTimedOut` or `.cancelled`.
    func loadAll(_ sources: [MediaLocation], timeout: Duration) async -> [MediaLocation: Loaded] {
        guard !sources.isEmpty else { return [:] }
        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .deadline
            }
            let width = max(1, limits.maximumConcurrentRequests)
            var next = 0
            func startNext() {
                let source = sources[next]
                next += 1
                group.addTask { .loaded(source, await load(source)) }
            }
            while next < min(width, sources.count) { startNext() }
            var results: [MediaLocation: Loaded] = [:]
            var timedOut = false
            while let outcome = await group.next() {
                switch outcome {
                case .deadline:
                    guard results.count < sources.count, !Task.isCancelled else { continue }
                    timedOut = true
                    group.cancelAll()
                case .loaded(let source, let result):
                    if timedOut, case .failure = result {
                        results[source] = .failure(.transport(HTTPTransportError(url: source.url, problem: .loadTimedOut(after: timeout))))
                    } else {
                        results[source] = result
                    }
                    if !timedOut, !Task.isCancelled, next < sources.count { startNext() }
                    if results.count == sources.count { group.cancelAll() }   // the deadline's sleep too
                }
            }
            for source in sources[next...] {
                let problem: HTTPTransportError.Problem = timedOut ? .loadTimedOut(after: timeout) : .cancelled
                results[source] = .failure(.transport(HTTPTransportError(url: source.url, problem: problem)))
            }
            return results
        }
    }

    /// One source: a local file, a remote playlist, or a remote MP4.
    func load(_ source: MediaLocation) async -> Loaded {
        switch source.kind {
        case .file(let path):
            return await runOffCooperativePool { Self.loadFile(source, path: path) }
        case .remote(let url):
            if SourceProbe.isPlaylist(source) { return await loadRemotePlaylist(source, url: url) }
            guard let spools else { return .failure(.remote(source)) }
            let spool: RemoteSpool
            do { spool = try await spools.spool(for: url, transport: transport, limits: limits) } catch { return .failure(.transport(error)) }
            return await runOffCooperativePool { Self.loadMovie(source, spool: spool) }
        }
    }

    static func loadFile(_ source: MediaLocation, path: FilePath) -> Loaded {
        if SourceProbe.isPlaylist(path) || SourceProbe.hasPlaylistExtension(path) {
            let version: FileVersion
            do { version = try ReadableFile(path: path).version } catch {
                return .failure(.playlist(url: path.description, reason: error.reasonText))
            }
            return loadPlaylist(source, url: hlsURL(path), identity: SourceCatalog.Identity(version), loader: .fileSystem)
        }
        if source.variant != nil { return .failure(.variantOfMP4(source)) }
        do {
            let movie = try MP4Reader.read(path: path)
            guard case .file(_, let version) = movie.store else { return .failure(.remote(source)) }
            return .success(entry(source, movie: movie, readPath: path, identity: SourceCatalog.Identity(version)))
        } catch {
            return .failure(.mp4(error))
        }
    }

    /// A remote playlist. The probe asks for playlists one at a time (a multivariant one, then
    /// each variant); each is fetched here, asynchronously (so the deadline and a cancellation stop
    /// it), and the probe, which only parses, runs again with the playlists it has.
    private func loadRemotePlaylist(_ source: MediaLocation, url: String) async -> Loaded {
        var playlistLimits = limits
        playlistLimits.maximumBodyBytes = min(limits.maximumBodyBytes, HLSParseLimits.default.maximumPlaylistBytes)
        var fetched: [String: (bytes: [UInt8], url: String)] = [:]
        // The playlist the source names, as its server described it.
        var identity = SourceCatalog.Identity.remote(url: url, entityTag: nil, lastModified: nil, length: nil)
        while true {
            let missing = MissingPlaylist()
            let known = fetched
            let loader = HLSPlaylistLoader(limits: .default) { (wanted) throws -> (bytes: [UInt8], url: String) in
                if let playlist = known[wanted] { return playlist }
                missing.url = wanted
                throw MissingPlaylist.NotYetFetched()
            }
            var probed = Self.loadPlaylist(source, url: url, identity: identity, loader: loader)
            if case .success(var entry) = probed {
                entry.playlists = fetched.mapValues { SourceCatalog.FetchedPlaylist(bytes: $0.bytes, url: $0.url) }
                probed = .success(entry)
            }
            guard case .failure = probed, let next = missing.url, fetched[next] == nil else { return probed }
            do {
                let got = try await HTTPFetch.get(next, transport: transport, limits: playlistLimits)
                fetched[next] = (got.response.body, got.url)
                if next == url {
                    identity = SourceCatalog.Identity(RemoteIdentity(url: got.url, response: got.response, length: UInt64(got.response.body.count)))
                }
            } catch {
                return .failure(.transport(error))
            }
        }
    }

    private static func loadMovie(_ source: MediaLocation, spool: RemoteSpool) -> Loaded {
        do {
            let movie = try MP4Reader.read(path: spool.path)
            return .success(entry(source, movie: movie, readPath: spool.path, identity: SourceCatalog.Identity(spool.identity)))
        } catch {
            if let failure = spool.failure { return .failure(.transport(failure)) }
            return .failure(.mp4(error.renamingFiles([spool.path.description: spool.displayName])))
        }
    }

    private static func loadPlaylist(_ source: MediaLocation, url: String, identity: SourceCatalog.Identity, loader: HLSPlaylistLoader) -> Loaded {
        do {
            let result = try HLSProbe.probe(url: url, variant: source.variant, loader: loader)
            return .success(SourceCatalog.Entry(
                location: source, kind: result.kind == .media ? .mediaPlaylist : .multivariantPlaylist, naturalDuration: result.duration,
                trackDurations: [:], identity: identity, readPath: source.filePath, movie: nil))
        } catch {
            if case .transport(let error) = error { return .failure(.transport(error)) }
            return .failure(.playlist(url: URIReference.redactedForDisplay(error.url), reason: error.reason))
        }
    }

    private static func entry(_ source: MediaLocation, movie: MP4Movie, readPath: FilePath, identity: SourceCatalog.Identity) -> SourceCatalog.Entry {
        var durations: [TrackKind: MediaTime] = [:]
        if let video = movie.videoTrack { durations[.video] = video.presentationDuration }
        if let audio = movie.audioTrack { durations[.audio] = audio.presentationDuration }
        return SourceCatalog.Entry(location: source, kind: .mp4, naturalDuration: movie.naturalDuration, trackDurations: durations,
                                   identity: identity, readPath: readPath, movie: movie)
    }
}

/// The playlist a probe asked for and did not have yet. (Written by the probe's loader, read
/// after the probe returned, on the same task.)
private final class MissingPlaylist: @unchecked Sendable {
    struct NotYetFetched: Error {}
    var url: String?
}
