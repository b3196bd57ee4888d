import Compositor
import CompositorCore
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// What `PlaybackSessionController` plays a session's composition as: one `AVPlayerItem`, made
/// again whenever the composition changes (a `once` break played, ads inserted now).
public enum CompositionPlayback: Sendable {
    /// An `AVMutableComposition` of the MP4 sources, every cut exact to the frame (the default).
    case mutableComposition
    /// The composition stitched into HLS playlists by `stitcher` (cuts on segment boundaries, MP4
    /// sources packaged into segments) and played by URL: HLS content with MP4 ads in one player.
    ///
    /// Each composition is written into a new folder inside `folder` (`1`, `2`, …), its playlist
    /// named as `stitcher.outputURL`'s last component; a folder is removed once its item is
    /// replaced. Give each controller a folder of its own.
    ///
    /// The session keeps the schedule's times. Player times and seeks are mapped to where the cuts
    /// landed (`ReconciledComposition.requestedTime(forPlayedTime:)` and its inverse), so events
    /// come when the stitched item crosses a boundary, and a seek shows the frame asked for.
    case stitchedPlaylist(folder: FilePath, stitcher: HLSExporter = HLSExporter(outputURL: "stitched.m3u8"))
}

extension CompositionPlayback {
    /// An item playing `composition`, and the stitch it plays when it plays playlists (`nil`: it
    /// plays `composition` itself, at its times). `generation` numbers the item (from 1). Sources
    /// are read as `catalog` loaded them, when it is given.
    @MainActor
    func makeItem(for composition: Composition, generation: Int, catalog: SourceCatalog?) async throws -> (AVPlayerItem, HLSExport?) {
        switch self {
        case .mutableComposition:
            return (try await AVMutableCompositionAdapter.makePlayerItem(for: composition, catalog: catalog), nil)
        case .stitchedPlaylist(let folder, var stitcher):
            if let catalog { stitcher = stitcher.readingSources(from: catalog) }
            let output = folder.appending(String(generation))
            guard let playlist = output.appending(FilePath(stitcher.outputURL).lastComponent.string ?? "stitched.m3u8").string else {
                throw HLSExportError(.cannotWrite(folder: folder, reason: "its path is not UTF-8, which a playlist URL must be"))
            }
            stitcher.outputURL = playlist
            let stitched = try await Self.stitch(composition, with: stitcher, into: output)
            return (AVPlayerItem(url: URL(fileURLWithPath: stitched.outputURL)), stitched)
        }
    }

    /// Stitches and writes on threads of the library's blocking work (reading sources, remote ones
    /// too, and packaging MP4 sources block), never the main actor's or a cooperative one; a
    /// cancelled task stops the write, leaving nothing.
    private static func stitch(
        _ composition: Composition, with stitcher: HLSExporter, into folder: FilePath
    ) async throws(HLSExportError) -> HLSExport {
        let stitched = try await stitcher.stitchOffCooperativePool(composition)
        try await stitched.writeCancellably(into: folder).get()
        return stitched
    }

    /// Removes the folder `stitched` was written into, now that no item plays it.
    static func remove(_ stitched: HLSExport) throws {
        try FileManager.default.removeItem(atPath: URL(fileURLWithPath: stitched.outputURL).deletingLastPathComponent().path)
    }
}
