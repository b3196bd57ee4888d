import CompositorCore
import CompositorHLS

/// Exports a composition as a static multi-period MPEG-DASH presentation (`DASHExport`): one
/// `Period` per piece, over fragmented MP4 segments made from its sources by passthrough.
///
/// The cuts are placed as the HLS export places them with every piece packaged: each moves to a
/// keyframe next to it (`snapping`), and the composition is rebuilt from where they landed, so
/// `DASHExport.reconciled` is exact for the periods. The sources are MP4 files and HLS playlists;
/// the other renditions `renditions` names of a source (`Schedule.renditions`) are representations
/// of its periods, as is every variant of a multivariant playlist that names no variant (their
/// keyframes must be aligned with the source's); the played variant's audio renditions are audio
/// adaptation sets by language.
///
/// ```swift
/// let presentation = try DASHExporter(renditions: schedule.renditions).export(composition)
/// try presentation.write(into: FilePath("out"))   // out/stitched.mpd and its segments
/// ```
public struct DASHExporter: Sendable {
    /// How cuts move to keyframes: `.nearest` (the default), `.next`, `.previous`, `.covering` or `.within`.
    public var snapping: HLSCutSnapping
    /// Rules for particular breaks, by break ID, in place of `snapping` (see `HLSExportOptions.breakSnapping`).
    public var breakSnapping: [String: HLSCutSnapping]
    /// Other encodings of sources, by source (`Schedule.renditions`): each is a representation of
    /// the periods its source plays, packaged at the same cuts (its keyframes must be aligned).
    public var renditions: [MediaLocation: [MediaLocation]]
    /// Reads the HLS source playlists (local files by default).
    public var loader: HLSPlaylistLoader
    private var catalog: SourceCatalog?

    /// Creates an exporter.
    ///
    /// - Parameters:
    ///   - snapping: How cuts move to keyframes (`.nearest` by default).
    ///   - breakSnapping: Rules for particular breaks, by break ID (none by default).
    ///   - renditions: Other encodings of sources, by source (`Schedule.renditions`; none by default).
    ///   - loader: Reads the HLS source playlists (local files by default).
    public init(
        snapping: HLSCutSnapping = .nearest, breakSnapping: [String: HLSCutSnapping] = [:],
        renditions: [MediaLocation: [MediaLocation]] = [:], loader: HLSPlaylistLoader = .fileSystem
    ) {
        self.snapping = snapping
        self.breakSnapping = breakSnapping
        self.renditions = renditions
        self.loader = loader
    }

    /// This exporter, reading its sources as `catalog` loaded them (remote MP4 sources by ranges,
    /// remote playlists and segments through its transport). Its `export(_:)` blocks while it
    /// fetches: call `export(_:catalog:)` from async code.
    ///
    /// - Parameter catalog: The sources, loaded.
    /// - Returns: The exporter, reading through `catalog`.
    public func readingSources(from catalog: SourceCatalog) -> DASHExporter {
        var exporter = self
        exporter.catalog = catalog
        return exporter
    }

    /// `export(_:)` of a composition whose sources `catalog` loaded, off the caller's thread.
    ///
    /// - Parameters:
    ///   - composition: The composition to export.
    ///   - catalog: Its sources, loaded.
    /// - Returns: The presentation to write, and the composition that plays in it.
    /// - Throws: `DASHExportError`, as `export(_:)`.
    public func export(_ composition: Composition, catalog: SourceCatalog) async throws(DASHExportError) -> DASHExport {
        let exporter = readingSources(from: catalog)
        return try await runOffCooperativePool {
            Result { () throws(DASHExportError) in try exporter.export(composition) }
        }.get()
    }

    /// Exports the composition: packages each source's tracks (every variant of a multivariant
    /// one) into segments with boundaries at the keyframes next to its cuts, and lists them in
    /// one period per piece.
    ///
    /// - Parameter composition: The composition to export; its sources are MP4 files or HLS playlists.
    /// - Returns: The presentation to write, and the composition that plays in it.
    /// - Throws: `DASHExportError`: `.stitch` for a source that cannot be read or a cut that
    ///   snapping empties or refuses (`hlsError` says which), `.unaligned` for variants whose
    ///   keyframes differ at a cut, `.unsupported` for a codec the MPD cannot name.
    public func export(_ composition: Composition) throws(DASHExportError) -> DASHExport {
        let options: HLSExportOptions
        do {
            options = try HLSExportOptions(
                snapping: snapping, breakSnapping: breakSnapping, segmentContainer: .fragmentedMP4, packagesEveryPiece: true)
        } catch {
            // Nothing these options hold is refused; kept typed all the same.
            throw DASHExportError(.stitch, item: "the options", reason: error.description)
        }
        var hls = HLSExporter(outputURL: DASHExport.manifestName, options: options, loader: loader)
        if let catalog { hls = hls.readingSources(from: catalog) }
        let stitched: HLSExport
        let alternates: [Int: DASHSourceAlternates]
        do throws(HLSExportError) {
            var stages = HLSExportStages(hls)
            let packaged = try stages.package(composition)
            stitched = try stages.stitch(composition, packaged: packaged, playing: .inOneStream)
            alternates = try stages.packageAlternates(stitched.composition, packaged: stitched.packagedSources, renditions: renditions)
        } catch {
            throw DASHExportError(error)
        }
        return try DASHExport(stitched, alternates: alternates)
    }
}
