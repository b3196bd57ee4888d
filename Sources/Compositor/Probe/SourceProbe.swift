import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

extension SourceProbe {
    /// What a schedule needs to know about a source: its natural duration and its tracks.
    public struct Report: Hashable, Sendable {
        /// What the source turned out to be, by its first bytes.
        public enum Format: Hashable, Sendable { case mp4, hls }

        public let format: Format
        /// The longest track (MP4) or the exact sum of `EXTINF`s (HLS): what an omitted `end` means.
        public let naturalDuration: MediaTime
        /// How long each track presents (from 0); HLS playlists report none (their segments carry them).
        public let trackDurations: [TrackKind: MediaTime]
    }
}

/// Why a source could not be probed.
public enum SourceProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    case mp4(MP4Error)
    /// An HLS playlist that could not be read, is malformed, or has no finite duration.
    case playlist(url: String, reason: String)
    /// A remote source given to `SourceProbe.probe`, which reads local files only: remote ones
    /// are loaded with `SourceCatalog.load`.
    case remote(MediaLocation)
    /// A remote source that could not be fetched: a status, a timeout, a redirect loop, a
    /// server that ignores byte ranges, a resource that changed while it was read, …
    case transport(HTTPTransportError)
    /// A variant named for an MP4 file: only a multivariant playlist has variants.
    case variantOfMP4(MediaLocation)

    public var description: String {
        switch self {
        case .mp4(let error): return error.description
        case .playlist(let url, let reason): return "\(url): \(reason)"
        case .remote(let location):
            return "\(location.displayDescription): a remote source is loaded with SourceCatalog.load (asynchronously), not probed on the calling thread"
        case .transport(let error): return error.description
        case .variantOfMP4(let location):
            return "\(location): an MP4 file, not a multivariant playlist: it has no variants to choose from"
        }
    }
}

/// The one way to probe sources: by what they contain, a playlist (`#EXTM3U`, or a `.m3u8` name)
/// or an MP4 file.
/// Reads headers and playlists only, never media data.
///
/// ```swift
/// let result = try SourceProbe.probe("Fixtures/ad1.mp4")
/// result.naturalDuration    // 5 s
/// ```
public enum SourceProbe {
    /// Reads what a schedule needs to know about one local source, on the calling thread.
    ///
    /// Remote sources (http and https URLs) are loaded with `SourceCatalog.load`, which is
    /// asynchronous: this call refuses them with `SourceProbeError.remote`.
    ///
    /// - Parameter source: A local MP4 file or HLS playlist (with the variant to read, for a
    ///   multivariant one).
    /// - Returns: Its format, natural duration and, for an MP4, each track's duration.
    /// - Throws: `SourceProbeError.remote` for a remote URL, `.playlist` for a playlist that cannot
    ///   be read, `.mp4` for an MP4 that cannot, `.variantOfMP4` for a variant named on an MP4 file.
    public static func probe(_ source: MediaLocation) throws(SourceProbeError) -> Report {
        guard let path = source.filePath else { throw .remote(source) }
        let entry = try SourceLoader.loadFile(source, path: path).get()
        return Report(format: entry.kind == .mp4 ? .mp4 : .hls, naturalDuration: entry.naturalDuration, trackDurations: entry.trackDurations)
    }

    /// Probes every source of `schedule` once (a source used by several items is probed once).
    ///
    /// - Parameter schedule: The schedule whose content clips and ads to probe (local ones; see
    ///   `SourceCatalog.load` for remote ones).
    /// - Returns: The reports of the sources that could be probed, and why the others could not.
    public static func probeAll(_ schedule: Schedule) -> (results: [MediaLocation: Report], failures: [MediaLocation: SourceProbeError]) {
        var results: [MediaLocation: Report] = [:], failures: [MediaLocation: SourceProbeError] = [:]
        for source in schedule.sources where results[source] == nil && failures[source] == nil {
            do { results[source] = try probe(source) } catch { failures[source] = error }
        }
        return (results, failures)
    }

    /// Whether `location` is an HLS playlist: a local file that starts like one or is named like
    /// one, a remote URL whose path is named like one.
    package static func isPlaylist(_ location: MediaLocation) -> Bool {
        switch location.kind {
        case .file(let path): return isPlaylist(path) || hasPlaylistExtension(path)
        case .remote(let url):
            let path = url.split(separator: "?", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
            return path.hasSuffix(".m3u8") || path.hasSuffix(".m3u")
        }
    }

    /// Whether the name ends in `.m3u8` or `.m3u` (any case).
    static func hasPlaylistExtension(_ path: FilePath) -> Bool {
        let name = String(decoding: path.lastComponent.bytes, as: UTF8.self).lowercased()
        return name.hasSuffix(".m3u8") || name.hasSuffix(".m3u")
    }

    /// Whether the file starts with `#EXTM3U` (after an optional UTF-8 byte order mark).
    static func isPlaylist(_ path: FilePath) -> Bool {
        guard let file = try? ReadableFile(path: path) else { return false }
        let length = Int(min(file.size, 10))
        guard let head = try? file.read(at: 0, count: length) else { return false }
        let bytes = head.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(head.dropFirst(3)) : Array(head)
        return bytes.starts(with: Array("#EXTM3U".utf8))
    }
}

/// The URL the HLS layer reads a local playlist by: its path when that is text without `%`, `?` or
/// `#` (so segment URIs relative to it stay plain paths), a `file:` URL with escapes otherwise
/// (every byte survives).
package func hlsURL(_ path: FilePath) -> String {
    path.string.flatMap { $0.contains(where: { "%?#".contains($0) }) ? nil : $0 } ?? MediaLocation(path).url
}

/// The URL the HLS layer reads a source by: `hlsURL(path)` for a file, the URL for a remote one.
package func hlsURL(_ location: MediaLocation) -> String {
    switch location.kind {
    case .file(let path): return hlsURL(path)
    case .remote(let url): return url
    }
}
