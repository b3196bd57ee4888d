import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// Builds the `AVPlayerItem` of a composition (`makePlayerItem(for:)`); inside, it is the
/// `MutableCompositionPort` on an `AVMutableComposition`: every call forwarded as it is.
public final class AVMutableCompositionAdapter: MutableCompositionPort {
    package final class Track: MutableCompositionTrackPort {
        package let track: AVMutableCompositionTrack
        let kind: TrackKind
        let sources: AVSourceTracks

        init(track: AVMutableCompositionTrack, kind: TrackKind, sources: AVSourceTracks) {
            self.track = track
            self.kind = kind
            self.sources = sources
        }

        package func insertTimeRange(_ range: MediaTimeRange, of source: MediaLocation, at startTime: MediaTime) throws {
            guard let sourceTrack = sources.tracks[source]?[kind] else { throw AVCompositionError.noSourceTrack(source, kind) }
            try track.insertTimeRange(range.cmTimeRange, of: sourceTrack, at: startTime.cmTime)
        }

        package func insertEmptyTimeRange(_ range: MediaTimeRange) {
            track.insertEmptyTimeRange(range.cmTimeRange)
        }
    }

    package let composition: AVMutableComposition
    let sources: AVSourceTracks

    package init(composition: AVMutableComposition = AVMutableComposition(), sources: AVSourceTracks) {
        self.composition = composition
        self.sources = sources
    }

    package func addMutableTrack(kind: TrackKind) throws -> Track {
        let type: AVMediaType = kind == .video ? .video : .audio
        guard let track = composition.addMutableTrack(withMediaType: type, preferredTrackID: kCMPersistentTrackID_Invalid)
        else { throw AVCompositionError.cannotAddTrack(kind) }
        return Track(track: track, kind: kind, sources: sources)
    }

    package func removeTimeRange(_ range: MediaTimeRange) {
        composition.removeTimeRange(range.cmTimeRange)
    }

    /// An `AVPlayerItem` playing `composition`: loads the sources' tracks, plans the edits and the
    /// video framing portably, replays them on a new `AVMutableComposition`, and gives the item an
    /// immutable copy of it, with a video composition when the sources differ in size or
    /// orientation, and an audio mix when a source's audio asks for a level other than full
    /// (`preferredVolume`, which a composition track does not take from its sources).
    /// `AVPlayerItem` is main-actor isolated, so this is too.
    ///
    /// Remote MP4 sources (http and https) go in as `AVURLAsset`s of their URLs, which
    /// AVFoundation reads by ranges; give the `catalog` that loaded them, so that what each source
    /// is comes from what was read, not from its name.
    ///
    /// - Parameters:
    ///   - composition: A composition of MP4 sources, local or remote.
    ///   - catalog: The catalog its sources were loaded with, if any.
    /// - Returns: The item, ready to give to an `AVPlayer`.
    /// - Throws: `AVCompositionError` for a playlist source, a source without a video or audio
    ///   track, or a track `AVMutableComposition` refuses; or what loading a source throws.
    @MainActor
    public static func makePlayerItem(for composition: Composition, catalog: SourceCatalog? = nil) async throws -> AVPlayerItem {
        let sources = try await AVSourceTracks.load(for: composition, catalog: catalog)
        let adapter = AVMutableCompositionAdapter(sources: sources)
        let edits = try CompositionEditPlanner.edits(for: composition) { sources.layouts[$0] }
        try CompositionEditPlanner.apply(edits, to: adapter)
        let videoTrack = adapter.composition.tracks.first { $0.mediaType == .video }
        let framing = VideoFraming.plan(for: composition) { sources.geometry[$0] }
        if case .uniform(let transform) = framing { videoTrack?.preferredTransform = transform.cgAffineTransform }

        // `copy()` of an `AVMutableComposition` is an `AVComposition`; the mutable one is the
        // (equally playable) fallback should that ever not hold.
        let asset: AVAsset = (adapter.composition.copy() as? AVComposition) ?? adapter.composition
        let item = AVPlayerItem(asset: asset)
        if case .composed(let width, let height, let layers) = framing, let videoTrack {
            item.videoComposition = videoComposition(width: width, height: height, layers: layers,
                                                     trackID: videoTrack.trackID, frameDuration: sources.frameDuration)
        }
        if let levels = AudioLevels.plan(for: composition, level: { sources.levels[$0] }),
           let audioTrack = adapter.composition.tracks.first(where: { $0.mediaType == .audio }) {
            item.audioMix = audioMix(levels, trackID: audioTrack.trackID)
        }
        return item
    }

    /// The copy keeps the mutable composition's track IDs, so parameters by ID apply to it.
    private static func audioMix(_ levels: [AudioLevels.Change], trackID: CMPersistentTrackID) -> AVAudioMix {
        let parameters = AVMutableAudioMixInputParameters()
        parameters.trackID = trackID
        for change in levels { parameters.setVolume(change.volume, at: change.start.cmTime) }
        let mix = AVMutableAudioMix()
        mix.inputParameters = [parameters]
        return mix
    }

    private static func videoComposition(
        width: Double, height: Double, layers: [VideoFraming.Layer], trackID: CMPersistentTrackID, frameDuration: CMTime
    ) -> AVVideoComposition {
        let video = AVMutableVideoComposition()
        video.renderSize = CGSize(width: width, height: height)
        video.frameDuration = frameDuration
        video.instructions = layers.map { layer in
            let instruction = AVMutableVideoCompositionInstruction()
            instruction.timeRange = layer.range.cmTimeRange
            if let transform = layer.transform {
                let layerInstruction = AVMutableVideoCompositionLayerInstruction()
                layerInstruction.trackID = trackID
                layerInstruction.setTransform(transform.cgAffineTransform, at: layer.range.start.cmTime)
                instruction.layerInstructions = [layerInstruction]
            }
            return instruction
        }
        return video
    }
}

extension AffineTransform2D {
    var cgAffineTransform: CGAffineTransform {
        CGAffineTransform(a: CGFloat(a), b: CGFloat(b), c: CGFloat(c), d: CGFloat(d), tx: CGFloat(tx), ty: CGFloat(ty))
    }
}
