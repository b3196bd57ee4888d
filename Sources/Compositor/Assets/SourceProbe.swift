/// What a schedule needs to know about a source: its natural duration and its tracks.
public struct SourceProbeResult: Hashable, Sendable {
    public enum Format: Hashable, Sendable { case mp4, hls }

    public let format: Format
    /// The longest track (MP4) or the exact sum of `EXTINF`s (HLS): what an omitted `end` means.
    public let naturalDuration: MediaTime
    /// The tracks and how long each presents; HLS playlists report none (their segments carry them).
    public let tracks: SourceTrackLayout
}

/// Why a source could not be probed.
public enum SourceProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    case mp4(MP4Error)
    case hls(HLSProbeError)
    /// A URL this build cannot open (only local files are read).
    case unsupportedURL(String)

    public var description: String {
        switch self {
        case .mp4(let error): return error.description
        case .hls(let error): return error.description
        case .unsupportedURL(let url): return "\(url): only local files can be probed"
        }
    }
}

/// Probes sources by what they contain: a playlist (`#EXTM3U`) or an MP4 file. Reads headers and
/// playlists only, never media data.
public enum SourceProbe {
    public static func probe(_ source: MediaSource) throws(SourceProbeError) -> SourceProbeResult {
        var path = source.url
        if path.hasPrefix("file://") { path.removeFirst("file://".count) }
        guard !path.contains("://") else { throw .unsupportedURL(source.url) }
        if isPlaylist(path) {
            do {
                let result = try HLSProbe.probe(url: path)
                return SourceProbeResult(format: .hls, naturalDuration: result.duration, tracks: SourceTrackLayout(durations: [:]))
            } catch {
                throw .hls(error)
            }
        }
        do {
            let movie = try MP4Reader.read(path: path)
            var durations: [MediaTrackKind: MediaTime] = [:]
            if let video = movie.videoTrack { durations[.video] = video.presentationDuration }
            if let audio = movie.audioTrack { durations[.audio] = audio.presentationDuration }
            return SourceProbeResult(format: .mp4, naturalDuration: movie.naturalDuration, tracks: SourceTrackLayout(durations: durations))
        } catch {
            throw .mp4(error)
        }
    }

    /// Probes every source of `schedule` once: what is known, and why the rest is not.
    public static func probeAll(
        _ schedule: Schedule
    ) -> (results: [MediaSource: SourceProbeResult], failures: [MediaSource: SourceProbeError]) {
        var results: [MediaSource: SourceProbeResult] = [:], failures: [MediaSource: SourceProbeError] = [:]
        let sources = schedule.content.map(\.source) + schedule.breaks.flatMap { $0.ads.map(\.source) }
        for source in sources where results[source] == nil && failures[source] == nil {
            do { results[source] = try probe(source) } catch { failures[source] = error }
        }
        return (results, failures)
    }

    /// Whether the file starts with `#EXTM3U` (after an optional UTF-8 byte order mark).
    private static func isPlaylist(_ path: String) -> Bool {
        guard let file = try? ReadableFile(path: path) else { return false }
        let length = Int(min(file.size, 10))
        guard let head = try? file.read(at: 0, count: length) else { return false }
        let bytes = head.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(head.dropFirst(3)) : Array(head)
        return bytes.starts(with: Array("#EXTM3U".utf8))
    }
}
