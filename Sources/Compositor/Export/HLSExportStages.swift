import CompositorCore
import CompositorHLS

/// One HLS export, stage by stage, in the order `HLSExporter.stitch(_:)` runs them:
///
/// ```
/// package     MP4 sources (every source, with packagesEveryPiece) into segments  package(_:)
/// load        each source's playlist, once                                       load(_:packaged:)
/// choose      the output's variants and renditions: the first content source's  layout(of:)
/// stitch      one media playlist per variant; the first with video cuts          stitchVariants(_:sources:layout:playing:)
/// reconcile   the composition those cuts give, every variant agreeing            reconcile(_:variants:layout:)
/// renditions  audio and subtitles, each cut nearest the video's cuts             stitchRenditions(_:of:video:...)
/// assemble    the multivariant playlist; every piece placed when packaged        assemble(...)
/// ```
///
/// `HLSExport.write` then writes the folder. Interstitials run the stages twice on
/// one packaging: the whole composition with every piece played as its own item (which decides
/// the cuts), then the content alone.
struct HLSExportStages {
    let options: HLSExportOptions
    /// Where the stitched playlist lives (absolute), and its files beside it.
    let output: HLSOutputLocation
    let remote: RemoteReads
    /// Every playlist read so far, each read once for every stage.
    var playlists: HLSSourcePlaylists

    init(_ stitcher: HLSExporter) {
        options = stitcher.options
        output = HLSOutputLocation(HLSSourcePlaylists.absolute(stitcher.outputURL))
        remote = stitcher.remote
        playlists = HLSSourcePlaylists(loader: stitcher.loader)
    }

    /// How the stitched pieces are played, which decides what they must share.
    enum Playing {
        /// One after another in one playlist: every piece in one segment format, every variant's
        /// audio muxed in it or stitched beside it.
        case inOneStream
        /// Each as an item of its own (interstitials): the stitch decides the cuts only, and each
        /// ad keeps its own segment format and playlists.
        case asSeparateItems
    }

    /// Every stage after packaging: the composition stitched from its sources and `packaged`.
    mutating func stitch(
        _ composition: Composition, packaged: [HLSPackagedSource], playing: Playing
    ) throws(HLSExportError) -> HLSExport {
        let sources = try load(composition, packaged: packaged)
        let layout = try layout(of: sources)
        let variants = try stitchVariants(composition, sources: sources, layout: layout, playing: playing)
        let reconciled = try reconcile(composition, variants: variants, layout: layout)
        let renditions = try stitchRenditions(
            layout.renditions, of: composition, video: variants[layout.reference], sources: sources, playing: playing)
        return try assemble(
            reconciled, requested: composition, variants: variants, renditions: renditions, layout: layout, packaged: packaged)
    }

    // MARK: Load

    /// Each source's playlist, once: a packaged source's own, else the one at its URL (its named
    /// variant alone, when it names one).
    mutating func load(_ composition: Composition, packaged: [HLSPackagedSource]) throws(HLSExportError) -> HLSLoadedSources {
        var sources: [(location: MediaLocation, playlist: HLSPlaylist)] = []
        var sourceIndex: [MediaLocation: Int] = [:]
        var sourceOfSegment: [Int] = []
        for segment in composition.segments {
            if let known = sourceIndex[segment.source] {
                sourceOfSegment.append(known)
                continue
            }
            let playlist: HLSPlaylist
            if let source = packaged.first(where: { $0.location == segment.source }) {
                playlist = .media(source.playlist)
            } else {
                playlist = try playlists.playlist(at: HLSSourcePlaylists.absolute(hlsURL(segment.source)), variant: segment.source.variant)
            }
            sourceIndex[segment.source] = sources.count
            sourceOfSegment.append(sources.count)
            sources.append((segment.source, playlist))
        }
        for placed in composition.breaks {
            for id in [placed.id] + placed.adIDs where id.contains(where: { $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
                throw HLSExportError(.unwritableID(id))
            }
        }
        // The output's variants are the first content source's.
        let primary = (composition.segments.first { !$0.isAd } ?? composition.segments[0]).source
        return HLSLoadedSources(sources: sources, sourceOfSegment: sourceOfSegment, primary: primary)
    }

    // MARK: Choose

    /// The output's shape: the first content source's variants (one media playlist when it is a
    /// media playlist) and its audio and subtitle renditions, and which variant decides the cuts.
    func layout(of sources: HLSLoadedSources) throws(HLSExportError) -> HLSOutputLayout {
        guard case .multivariant(let multivariant) = sources.playlists[sources.primary] else {
            return HLSOutputLayout(contentVariants: nil, renditions: [], reference: 0, anchored: [])
        }
        guard !multivariant.variants.isEmpty else {
            throw HLSExportError(.unsupported(url: multivariant.url, reason: "a multivariant playlist without variants"))
        }
        let variants = multivariant.variants
        // The first variant with video decides the cuts; audio-only variants cut their own
        // segments nearest to its cuts (see `renditionCutTolerance`).
        let reference = variants.firstIndex { !$0.isAudioOnly } ?? 0
        let anchored = Set(variants.indices.filter { $0 != reference && variants[$0].isAudioOnly })
        return HLSOutputLayout(
            contentVariants: variants, renditions: Self.stitchedRenditions(of: multivariant), reference: reference, anchored: anchored)
    }

    // MARK: Stitch

    /// One stitched media playlist per output variant, the reference variant first stitched (its
    /// cuts anchor the audio-only ones), returned in the content's order.
    mutating func stitchVariants(
        _ composition: Composition, sources: HLSLoadedSources, layout: HLSOutputLayout, playing: Playing
    ) throws(HLSExportError) -> [HLSStitchedVariantPlaylist] {
        var stitched: [Int: HLSStitchedVariantPlaylist] = [:]
        let indices = Array(0..<layout.variantCount)
        for index in [layout.reference] + indices.filter({ $0 != layout.reference }) {
            let contentVariant = layout.contentVariants?[index]
            let anchor = layout.anchored.contains(index) ? stitched[layout.reference] : nil
            let chosen = try sourcePlaylists(forVariant: index, of: sources, layout: layout, anchored: anchor != nil, playing: playing)
            let url = layout.contentVariants == nil ? output.url : output.variant(index)
            let segmentPlaylists = sources.sourceOfSegment.map { chosen[$0].playlist }
            let result = try stitchVariant(
                composition, playlists: segmentPlaylists, outputURL: url, anchoredTo: anchor, requiresOneSegmentFormat: playing == .inOneStream)
            if let anchor { try Self.checkAligned(result, url: url, with: anchor) }
            var interstitials: [HLSVariantStream] = []
            for (position, source) in sources.sources.enumerated() where source.location != sources.primary && anchor == nil {
                if let variant = chosen[position].variant, !interstitials.contains(variant) { interstitials.append(variant) }
            }
            stitched[index] = HLSStitchedVariantPlaylist(
                url: url, contentVariant: contentVariant, interstitialVariants: interstitials,
                sourcePlaylistURLs: segmentPlaylists.map(\.url), result: result)
        }
        return indices.compactMap { stitched[$0] }
    }

    /// The media playlist each source plays in output variant `index`, and the variant it is of
    /// (for a multivariant source). An `anchored` (audio-only) variant plays every other source's
    /// audio, as the rendition it repeats does.
    private mutating func sourcePlaylists(
        forVariant index: Int, of sources: HLSLoadedSources, layout: HLSOutputLayout, anchored: Bool, playing: Playing
    ) throws(HLSExportError) -> [(playlist: HLSMediaPlaylist, variant: HLSVariantStream?)] {
        let contentVariant = layout.contentVariants?[index]
        var repeated: HLSRendition?
        if anchored, let contentVariant, case .multivariant(let content)? = sources.playlists[sources.primary] {
            repeated = Self.audioRendition(playedBy: contentVariant, in: content)
        }
        // Ads' audio need not be muxed when each plays as its own item, or when it is stitched into renditions.
        let audioStitched = playing == .asSeparateItems || layout.renditions.contains { $0.type == "AUDIO" }
        var chosen: [(playlist: HLSMediaPlaylist, variant: HLSVariantStream?)] = []
        for (location, playlist) in sources.sources {
            if location != sources.primary, let repeated,
               let audio = try renditionPlaylist(of: location, for: repeated, sources: sources) {
                chosen.append((audio, nil))
                continue
            }
            switch playlist {
            case .media(let media):
                chosen.append((media, nil))
            case .multivariant(let multivariant):
                let variant = try Self.variant(of: multivariant, isPrimary: location == sources.primary, index: index, matching: contentVariant)
                try Self.checkMuxed(variant, in: multivariant, audioStitched: audioStitched)
                chosen.append((try playlists.mediaPlaylist(at: variant.resolvedURI), variant))
            }
        }
        return chosen
    }

    // MARK: Reconcile

    /// `composition` reconciled with the reference variant's snapped ranges, checked against where
    /// the engine put every piece and against every other variant with video.
    func reconcile(
        _ composition: Composition, variants: [HLSStitchedVariantPlaylist], layout: HLSOutputLayout
    ) throws(HLSExportError) -> ReconciledComposition {
        let first = variants[layout.reference]
        for (index, variant) in variants.enumerated() where index != layout.reference && !layout.anchored.contains(index) {
            for (piece, firstPiece) in zip(variant.result.pieces, first.result.pieces) where piece.sourceRange != firstPiece.sourceRange {
                throw HLSExportError(.variantsDisagree(
                    item: piece.item ?? "?", variantURL: variant.url, range: piece.sourceRange,
                    firstVariantURL: first.url, firstRange: firstPiece.sourceRange))
            }
        }
        do {
            return try ReconciledComposition(
                requested: composition, playedSourceRanges: first.result.pieces.map(\.sourceRange),
                placedRanges: first.result.pieces.map(\.compositionRange))
        } catch {
            switch error {
            case .snapping(let error): throw HLSExportError(.snapping(error))
            case .placedElsewhere(_, let item, let placed, let composition):
                throw HLSExportError(.planDisagrees(item: item, playlist: placed, composition: composition))
            }
        }
    }

    // MARK: Assemble

    /// The result: the multivariant playlist listing the variants and renditions (for multivariant
    /// content), the pieces placed in segment files of their own with `packagesEveryPiece`, and
    /// the packaged sources marked with the segments the playlists use.
    func assemble(
        _ reconciled: ReconciledComposition, requested: Composition, variants: [HLSStitchedVariantPlaylist],
        renditions: HLSStitchedRenditions, layout: HLSOutputLayout, packaged: [HLSPackagedSource]
    ) throws(HLSExportError) -> HLSExport {
        var multivariant: HLSMultivariantPlaylist?
        if let contentVariants = layout.contentVariants {
            let listed = zip(contentVariants, variants).map { variant, stitched in
                HLSStitchedVariant(content: variant, interstitials: stitched.interstitialVariants, playlistURL: stitched.url)
            }
            multivariant = HLSStitcher.multivariantPlaylist(
                for: listed, renditions: renditions.listed, url: output.url,
                independentSegments: (variants + renditions.playlists).allSatisfy(\.result.playlist.hasIndependentSegments))
        }
        var variants = variants, packaged = packaged
        var placedSegments: [HLSPlacedSegment] = []
        if options.packagesEveryPiece {
            (variants[0], placedSegments) = try Self.placingEveryPiece(
                variants[0], sources: packaged, marksEncodingChanges: options.marksEncodingChanges)
        } else {
            HLSPackagedSource.markUsed(&packaged, by: (variants + renditions.playlists).map(\.result.playlist))
        }
        return HLSExport(
            reconciled: reconciled, queuePlan: QueuePlan(composition: requested),
            variants: variants, renditions: renditions.playlists, multivariantPlaylist: multivariant,
            assets: renditions.files, packagedSources: packaged, placedSegments: placedSegments, interstitialEvents: [],
            outputURL: output.url)
    }
}

/// The sources of one stitch, loaded.
struct HLSLoadedSources {
    /// Each distinct source once, in order of first use.
    let sources: [(location: MediaLocation, playlist: HLSPlaylist)]
    /// For each composition segment, its source's position in `sources`.
    let sourceOfSegment: [Int]
    /// The first content clip's source, whose variants and renditions the output has.
    let primary: MediaLocation
    /// The playlist of each source.
    let playlists: [MediaLocation: HLSPlaylist]

    init(sources: [(location: MediaLocation, playlist: HLSPlaylist)], sourceOfSegment: [Int], primary: MediaLocation) {
        self.sources = sources
        self.sourceOfSegment = sourceOfSegment
        self.primary = primary
        playlists = Dictionary(uniqueKeysWithValues: sources.map { ($0.location, $0.playlist) })
    }

    /// The first content source's variants; none when it is a media playlist.
    var primaryVariants: [HLSVariantStream] {
        guard case .multivariant(let multivariant)? = playlists[primary] else { return [] }
        return multivariant.variants
    }
}

/// The output's shape, as the first content source gives it.
struct HLSOutputLayout {
    /// The content's variants, one output variant each; `nil` when the content is a media playlist
    /// (one output, at the output URL).
    let contentVariants: [HLSVariantStream]?
    /// The content's audio and subtitle renditions, each stitched beside the variants.
    let renditions: [HLSRendition]
    /// The variant whose cuts every other output follows: the first with video.
    let reference: Int
    /// The audio-only variants, which cut their own segments nearest the reference's cuts.
    let anchored: Set<Int>

    var variantCount: Int { contentVariants?.count ?? 1 }
}
