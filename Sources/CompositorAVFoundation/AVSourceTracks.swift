import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation

/// The first video and audio track of each source, loaded with the async loading API, and the
/// layout the portable planner needs. Nothing is decided here.
public struct AVSourceTracks: @unchecked Sendable {
    public let tracks: [MediaLocation: [TrackKind: AVAssetTrack]]
    package let layouts: [MediaLocation: SourceTrackLayout]

    /// Loads the tracks of every source `composition` uses.
    public static func load(for composition: Composition) async throws -> AVSourceTracks {
        var tracks: [MediaLocation: [TrackKind: AVAssetTrack]] = [:]
        var layouts: [MediaLocation: SourceTrackLayout] = [:]
        for source in Set(composition.segments.map(\.source)) {
            let asset = AVURLAsset(url: source.foundationURL)
            var byKind: [TrackKind: AVAssetTrack] = [:]
            var durations: [TrackKind: MediaTime] = [:]
            for (kind, type) in [(TrackKind.video, AVMediaType.video), (.audio, .audio)] {
                guard let track = try await asset.loadTracks(withMediaType: type).first else { continue }
                let range = try await track.load(.timeRange)
                byKind[kind] = track
                durations[kind] = MediaTime(range.end) ?? .zero
            }
            tracks[source] = byKind
            layouts[source] = SourceTrackLayout(durations: durations)
        }
        return AVSourceTracks(tracks: tracks, layouts: layouts)
    }
}
#endif
