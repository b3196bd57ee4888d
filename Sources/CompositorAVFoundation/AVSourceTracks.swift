import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// The first video and audio track of each source of a composition, loaded with precise timing
/// (`AVURLAssetPreferPreciseDurationAndTimingKey`, which compositions need for exact edits), and
/// the layout, video geometry and audio levels the portable planners need. Nothing is decided here.
///
/// The assets are kept: an `AVAssetTrack` holds its asset weakly, and a composition cannot read
/// media through a track whose asset is gone.
package struct AVSourceTracks: @unchecked Sendable {
    let assets: [MediaLocation: AVURLAsset]
    let tracks: [MediaLocation: [TrackKind: AVAssetTrack]]
    package let layouts: [MediaLocation: SourceTrackLayout]
    package let geometry: [MediaLocation: VideoGeometry]
    /// Each source's audio level (`preferredVolume`), for sources with audio.
    package let levels: [MediaLocation: Float]
    /// The shortest frame duration of the video sources (a video composition's frame rate); 1/30 s
    /// when none reports one.
    let frameDuration: CMTime

    /// Loads the tracks of every source `composition` uses. HLS playlists are refused (they play
    /// through the queue path, `QueueSessionController`), and so is a source without a video or
    /// audio track, rather than becoming a silent black gap. What a source is comes from
    /// `catalog` when it loaded it (a remote MP4 need not be named `.mp4`), else from its name or
    /// first bytes.
    package static func load(for composition: Composition, catalog: SourceCatalog? = nil) async throws -> AVSourceTracks {
        var assets: [MediaLocation: AVURLAsset] = [:]
        var tracks: [MediaLocation: [TrackKind: AVAssetTrack]] = [:]
        var layouts: [MediaLocation: SourceTrackLayout] = [:]
        var geometry: [MediaLocation: VideoGeometry] = [:]
        var levels: [MediaLocation: Float] = [:]
        var frameDuration: CMTime?
        var seen = Set<MediaLocation>()
        for source in composition.segments.map(\.source) where seen.insert(source).inserted {
            let isPlaylist = catalog?.entries[source].map { $0.kind != .mp4 } ?? SourceProbe.isPlaylist(source)
            if isPlaylist { throw AVCompositionError.playlistSource(source) }
            let asset = AVURLAsset(url: source.foundationURL, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
            var byKind: [TrackKind: AVAssetTrack] = [:]
            var durations: [TrackKind: MediaTime] = [:]
            for (kind, type) in [(TrackKind.video, AVMediaType.video), (.audio, .audio)] {
                guard let track = try await asset.loadTracks(withMediaType: type).first else { continue }
                let range = try await track.load(.timeRange)
                guard let end = MediaTime(range.end), end > .zero else { continue }
                byKind[kind] = track
                durations[kind] = end
                if kind == .video {
                    let size = try await track.load(.naturalSize)
                    let t = try await track.load(.preferredTransform)
                    let frame = try await track.load(.minFrameDuration)
                    if frame.isNumeric, frame > .zero, frameDuration.map({ frame < $0 }) ?? true { frameDuration = frame }
                    geometry[source] = VideoGeometry(
                        width: Double(size.width), height: Double(size.height),
                        transform: AffineTransform2D(a: Double(t.a), b: Double(t.b), c: Double(t.c), d: Double(t.d),
                                                   tx: Double(t.tx), ty: Double(t.ty)))
                } else {
                    levels[source] = try await track.load(.preferredVolume)
                }
            }
            guard !byKind.isEmpty else { throw AVCompositionError.noTracks(source) }
            assets[source] = asset
            tracks[source] = byKind
            layouts[source] = SourceTrackLayout(durations: durations)
        }
        return AVSourceTracks(assets: assets, tracks: tracks, layouts: layouts, geometry: geometry, levels: levels,
                              frameDuration: frameDuration ?? CMTime(value: 1, timescale: 30))
    }
}

/// Why a composition cannot be built as an `AVMutableComposition`.
public enum AVCompositionError: Error, Equatable, CustomStringConvertible {
    /// The source is an HLS playlist: AVFoundation cannot compose streams.
    case playlistSource(MediaLocation)
    /// AVFoundation found no video or audio track in the source.
    case noTracks(MediaLocation)
    /// `AVMutableComposition` refused to add a track of this kind.
    case cannotAddTrack(TrackKind)
    /// The planner asked for a track the source does not have (a bug, reported rather than trapped).
    case noSourceTrack(MediaLocation, TrackKind)

    public var description: String {
        switch self {
        case .playlistSource(let source):
            return "\(source) is an HLS playlist: a composition plays MP4 and QuickTime files; play playlists with "
                + "QueueSessionController, or stitch them into one playlist (hls)"
        case .noTracks(let source): return "\(source) has no video or audio track AVFoundation can read"
        case .cannotAddTrack(let kind): return "AVMutableComposition refused a \(kind) track"
        case .noSourceTrack(let source, let kind): return "\(source) has no \(kind) track"
        }
    }
}
