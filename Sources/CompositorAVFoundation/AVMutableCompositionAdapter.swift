import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation

/// `MutableCompositionPort` on an `AVMutableComposition`: every call forwarded as it is.
public final class AVMutableCompositionAdapter: MutableCompositionPort {
    public enum AdapterError: Error, CustomStringConvertible {
        case cannotAddTrack(TrackKind)
        case noSourceTrack(MediaLocation, TrackKind)

        public var description: String {
            switch self {
            case .cannotAddTrack(let kind): return "AVMutableComposition refused a \(kind) track"
            case .noSourceTrack(let source, let kind): return "\(source) has no \(kind) track"
            }
        }
    }

    public final class Track: MutableCompositionTrackPort {
        public let track: AVMutableCompositionTrack
        let kind: TrackKind
        let sources: AVSourceTracks

        init(track: AVMutableCompositionTrack, kind: TrackKind, sources: AVSourceTracks) {
            self.track = track
            self.kind = kind
            self.sources = sources
        }

        public func insertTimeRange(_ range: MediaTimeRange, of source: MediaLocation, at startTime: MediaTime) throws {
            guard let sourceTrack = sources.tracks[source]?[kind] else { throw AdapterError.noSourceTrack(source, kind) }
            try track.insertTimeRange(range.cmTimeRange, of: sourceTrack, at: startTime.cmTime)
        }

        public func insertEmptyTimeRange(_ range: MediaTimeRange) {
            track.insertEmptyTimeRange(range.cmTimeRange)
        }
    }

    public let composition: AVMutableComposition
    let sources: AVSourceTracks

    public init(composition: AVMutableComposition = AVMutableComposition(), sources: AVSourceTracks) {
        self.composition = composition
        self.sources = sources
    }

    public func addMutableTrack(kind: TrackKind) throws -> Track {
        let type: AVMediaType = kind == .video ? .video : .audio
        guard let track = composition.addMutableTrack(withMediaType: type, preferredTrackID: kCMPersistentTrackID_Invalid)
        else { throw AdapterError.cannotAddTrack(kind) }
        return Track(track: track, kind: kind, sources: sources)
    }

    public func removeTimeRange(_ range: MediaTimeRange) {
        composition.removeTimeRange(range.cmTimeRange)
    }

    /// An `AVPlayerItem` playing `composition`: loads the sources' tracks, plans the edits
    /// portably, and replays them on a new `AVMutableComposition`.
    public static func makePlayerItem(for composition: Composition) async throws -> AVPlayerItem {
        let sources = try await AVSourceTracks.load(for: composition)
        let adapter = AVMutableCompositionAdapter(sources: sources)
        let edits = try CompositionEditPlanner.edits(for: composition) { sources.layouts[$0] }
        try CompositionEditPlanner.apply(edits, to: adapter)
        return AVPlayerItem(asset: adapter.composition)
    }
}
#endif
