import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// Stitches a composition whose sources are HLS playlists into playlists that any HLS client plays
/// as one item, and reports the composition that really plays.
///
/// A playlist carries whole segments only, so every cut moves to a segment boundary of its source
/// (the nearest, by default). The stitched composition is rebuilt from where the cuts really landed,
/// so `timeline` and mapping on it are exact for the output:
///
/// ```
/// asked     |feature 0-8.5      |a2 0-4|feature 8.5-12 |     break mid1 at content 8.5
/// segments  0  1.5 2.25  4  5.125  6.5  8  9.375  10  11.25  12   (feature's boundaries)
/// plays     |feature 0-8      |a2 0-4|feature 8-12     |     mid1 plays at content 8
/// ```
///
/// Every segment becomes one piece; an ad's pieces carry its break's marker, so each break gets one
/// `EXT-X-DATERANGE` (`CLASS` `markerClass`, `START-DATE` from `programDateTime`).
///
/// Variants follow the first content clip's source. When it is a multivariant playlist, each of its
/// variants gives one stitched media playlist (`stitched-0.m3u8`, ... beside `outputURL`), and
/// `outputURL` is a multivariant playlist listing them; every other multivariant source plays, in
/// each, its variant nearest in bandwidth to that content variant. When the first content source is
/// a media playlist there is one output, at `outputURL`, and multivariant ads play their first
/// variant (the one a client starts with). A source that names a variant (`MediaLocation.variant`)
/// plays that variant wherever it plays, as a multivariant playlist of it alone. Variants must
/// snap every cut alike (aligned segments), since one timeline describes them all. The content's audio and subtitle renditions are stitched
/// beside them (`stitched-audio-0.m3u8`, `stitched-subtitles-0.m3u8`, ...), each ad playing its
/// rendition of the same language or name; an audio cut may land up to 0.1 s from the video's.
///
/// Nothing is dropped silently: an item whose cuts snap to one boundary is an error naming it.
public struct HLSExporter: Sendable {
    /// Where the stitched playlist (media, or multivariant for multivariant content) will live;
    /// segment URIs are written relative to it where they can be. A relative path is taken against
    /// the working folder.
    public var outputURL: String
    /// How it stitches: snapping, markers, segment container, packaging (checked when made).
    public var options: HLSExportOptions
    /// Reads the source playlists (local files by default).
    public var loader: HLSPlaylistLoader
    /// How remote sources are read (`stitch(_:catalog:)`); local files only by default.
    var remote = RemoteReads(nil)

    /// Creates a stitcher.
    ///
    /// - Parameters:
    ///   - outputURL: Where the stitched playlist will live.
    ///   - options: How it stitches (every option at its default by default).
    ///   - loader: Reads the source playlists (local files by default).
    public init(outputURL: String, options: HLSExportOptions = .default, loader: HLSPlaylistLoader = .fileSystem) {
        self.outputURL = outputURL
        self.options = options
        self.loader = loader
    }

    /// `stitch(_:)` of a composition whose sources `catalog` loaded, off the caller's thread:
    /// remote HLS sources are listed at their absolute segment URLs (nothing of them is fetched
    /// but their playlists: the stitch rewrites manifests, as server-side ad insertion does), and
    /// remote MP4 sources are packaged into segments of the output folder, read by ranges. The
    /// playlists are read through the catalog's transport; `loader` is not used.
    ///
    /// ```swift
    /// let catalog = try await SourceCatalog.load(schedule)
    /// let composition = try Composition.loading(schedule, catalog: catalog)
    /// let stitched = try await HLSExporter(outputURL: "out/stitched.m3u8").stitch(composition, catalog: catalog)
    /// ```
    ///
    /// - Parameters:
    ///   - composition: The composition to stitch.
    ///   - catalog: Its sources, loaded.
    /// - Returns: The playlists and segment files to write, and the composition that plays.
    /// - Throws: `HLSExportError`, as `stitch(_:)`; a remote playlist or segment that
    ///   cannot be fetched is `.unreadable` or `.unsupported`, naming its URL.
    public func stitch(_ composition: Composition, catalog: SourceCatalog) async throws(HLSExportError) -> HLSExport {
        try await readingSources(from: catalog).stitchOffCooperativePool(composition)
    }

    /// `stitch(_:)` on a thread of the library's blocking work: what an async caller runs, since
    /// reading (and fetching) sources blocks.
    package func stitchOffCooperativePool(_ composition: Composition) async throws(HLSExportError) -> HLSExport {
        let stitcher = self
        return try await runOffCooperativePool {
            Result { () throws(HLSExportError) in try stitcher.stitch(composition) }
        }.get()
    }

    /// This stitcher, reading its sources as `catalog` loaded them: remote ones through the
    /// catalog's transport (its `loader` is replaced). Its `stitch(_:)` blocks while it fetches:
    /// call it where blocking is allowed, or call `stitch(_:catalog:)`, which runs off the
    /// caller's thread.
    ///
    /// ```swift
    /// let playback = CompositionPlayback.stitchedPlaylist(
    ///     folder: folder, stitcher: HLSExporter(outputURL: "stitched.m3u8").readingSources(from: catalog))
    /// ```
    ///
    /// - Parameter catalog: The sources, loaded.
    /// - Returns: The stitcher, reading through `catalog`.
    public func readingSources(from catalog: SourceCatalog) -> HLSExporter {
        var stitcher = self
        stitcher.remote = RemoteReads(catalog)
        stitcher.loader = stitcher.remote.playlistLoader
        return stitcher
    }

    /// Stitches the composition, stage by stage (`HLSExportStages`): packages its MP4 sources,
    /// loads every source playlist once, stitches one media playlist per output variant and one
    /// per rendition, and rebuilds the composition from the snapped cuts.
    ///
    /// - Parameter composition: The composition to stitch; its sources are HLS playlists or local MP4
    ///   files.
    /// - Returns: The playlists and segment files to write, and the composition that plays.
    /// - Throws: `HLSExportError`: a playlist that cannot be read or stitched, a cut that
    ///   snapping empties or refuses, or an MP4 source that cannot be packaged.
    public func stitch(_ composition: Composition) throws(HLSExportError) -> HLSExport {
        var export = HLSExportStages(self)
        let packaged = try export.package(composition)
        return try export.stitch(composition, packaged: packaged, playing: .inOneStream)
    }
}
