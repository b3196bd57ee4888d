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
public struct HLSCompositionStitcher: Sendable {
    /// The wall-clock anchor of composition time 0 used when none is given; `EXT-X-DATERANGE` needs one.
    public static let defaultProgramDateTime = "2026-01-01T00:00:00.000Z"
    public static let defaultMarkerClass = "com.compositor.ad"

    /// Where the stitched playlist (media, or multivariant for multivariant content) will live;
    /// segment URIs are written relative to it where they can be. A relative path is taken against
    /// the working folder.
    public var outputURL: String
    /// ISO 8601 time of composition time 0, for `EXT-X-PROGRAM-DATE-TIME` and the markers' `START-DATE`.
    public var programDateTime: String
    /// The `CLASS` of every break's `EXT-X-DATERANGE`.
    public var markerClass: String
    /// How cuts move to segment boundaries: `.nearest` (the default), `.next`, `.previous`,
    /// `.covering` or `.within`. With `.next` or `.previous` a break plays at the boundary after or
    /// before where it is asked. At a mid-roll, `.within` skips the content between the two snapped
    /// cuts (the reported composition resumes content later, as a `resumeOffset` would), and
    /// `.covering` would play some of it twice, which no timeline describes: refused as `.snapping`.
    public var snapping: HLSCutSnapping
    /// Rules for particular breaks, by break ID, in place of `snapping`: a break's rule moves its
    /// ads' cuts and the content cuts on either side of it (where content stops for it and where
    /// content resumes). A break that is not in the composition (left out, say) has no cuts to move.
    public var breakSnapping: [String: HLSCutSnapping] = [:]
    /// Cue markers written around each break besides its `EXT-X-DATERANGE`: `.cueTags`
    /// (`EXT-X-CUE-OUT`/`-CONT`/`-IN`), `.scte35` (`SCTE35-OUT`/`-IN` date ranges). None by default.
    public var cueMarkers: Set<HLSCueMarker> = []
    /// The container MP4 sources are packaged into (their segments written beside the playlist);
    /// `nil` (the default) follows the first HLS source's segments, or MPEG-TS when every source
    /// is an MP4 file.
    public var segmentContainer: HLSSegmentContainer?
    /// Package every piece into segments of its own, timestamped on the composition's clock
    /// (`false` by default: HLS sources' segments are listed as they are, MP4 sources packaged
    /// on their own clock).
    ///
    /// Listed as they are, each piece keeps its source's timestamps: a player meets a jump in
    /// them at every switch, and the media of a piece often runs a frame past its `EXTINF`
    /// (audio starting before video), so players drift or reset their clocks there. Packaged,
    /// the pieces make one stream whose timestamps are composition time (+ 10 s), continuity
    /// counters and sequence numbers running on, each piece's audio cut within half a frame of
    /// its picture; cuts move to the keyframes next to them (as MP4 sources' do), HLS sources
    /// are read as `render` reads them (a multivariant one plays its named variant, else its
    /// highest-bandwidth one, so the output is one media playlist), and their samples are
    /// copied, never re-encoded. Only local sources can be packaged; not with interstitials.
    public var packagesEveryPiece = false
    /// With `packagesEveryPiece` and MPEG-TS segments, whether `EXT-X-DISCONTINUITY` marks where
    /// the encoding parameters change (new SPS/PPS, another sample rate) as well as where the
    /// tracks do: `true` by default, as RFC 8216 says it SHOULD. Where the tracks change it is
    /// always marked (a MUST); fragmented MP4 announces new parameters in its new `EXT-X-MAP`.
    ///
    /// The timestamps run on across a switch, so the mark only tells a player to expect new
    /// parameters, and players differ over it (`Tests/players/matrix.py`): Chromium fails at an
    /// unmarked change, while at a mark GStreamer shows the piece late by its B-frame delay and
    /// VLC drops about a second of the piece before it. Off, for players of the second kind.
    /// Needs `packagesEveryPiece`: pieces listed as they are jump in timestamps at every switch,
    /// which is always marked.
    public var marksEncodingChanges = true
    /// Reads the source playlists (local files by default).
    public var loader: HLSPlaylistLoader
    /// On when the stitch only decides the cuts of pieces each played as its own item
    /// (interstitials): the ads need not share the content's segment format, nor carry their audio
    /// muxed, since each keeps its own playlists.
    var decidesCutsOnly = false
    /// MP4 sources already packaged (by the stitch that decided an interstitial layout's cuts),
    /// used as they are: one source, one set of segment files, whichever playlist lists them.
    var packagedSources: [HLSPackagedSource]?
    /// How remote sources are read (`stitch(_:catalog:)`); local files only by default.
    var remote = RemoteReads(nil)

    /// Creates a stitcher; the properties not given here (`breakSnapping`, `cueMarkers`,
    /// `segmentContainer`, `packagesEveryPiece`, `marksEncodingChanges`) start at their defaults.
    ///
    /// - Parameters:
    ///   - outputURL: Where the stitched playlist will live.
    ///   - programDateTime: The ISO 8601 time of composition time 0 (`defaultProgramDateTime` by default).
    ///   - markerClass: The `CLASS` of every break's `EXT-X-DATERANGE` (`defaultMarkerClass` by default).
    ///   - snapping: How cuts move to segment boundaries (`.nearest` by default).
    ///   - loader: Reads the source playlists (local files by default).
    public init(
        outputURL: String, programDateTime: String = defaultProgramDateTime, markerClass: String = defaultMarkerClass,
        snapping: HLSCutSnapping = .nearest, loader: HLSPlaylistLoader = .fileSystem
    ) {
        self.outputURL = outputURL
        self.programDateTime = programDateTime
        self.markerClass = markerClass
        self.snapping = snapping
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
    /// let stitched = try await HLSCompositionStitcher(outputURL: "out/stitched.m3u8").stitch(composition, catalog: catalog)
    /// ```
    ///
    /// - Parameters:
    ///   - composition: The composition to stitch.
    ///   - catalog: Its sources, loaded.
    /// - Returns: The playlists and segment files to write, and the composition that plays.
    /// - Throws: `HLSCompositionStitchError`, as `stitch(_:)`; a remote playlist or segment that
    ///   cannot be fetched is `.unreadable` or `.unsupported`, naming its URL.
    public func stitch(_ composition: Composition, catalog: SourceCatalog) async throws(HLSCompositionStitchError) -> HLSStitchedComposition {
        try await readingSources(from: catalog).stitchOffCooperativePool(composition)
    }

    /// `stitch(_:)` on a thread of the library's blocking work: what an async caller runs, since
    /// reading (and fetching) sources blocks.
    package func stitchOffCooperativePool(_ composition: Composition) async throws(HLSCompositionStitchError) -> HLSStitchedComposition {
        let stitcher = self
        return try await runOffCooperativePool {
            Result { () throws(HLSCompositionStitchError) in try stitcher.stitch(composition) }
        }.get()
    }

    /// This stitcher, reading its sources as `catalog` loaded them: remote ones through the
    /// catalog's transport (its `loader` is replaced). Its `stitch(_:)` blocks while it fetches:
    /// call it where blocking is allowed, or call `stitch(_:catalog:)`, which runs off the
    /// caller's thread.
    ///
    /// ```swift
    /// let playback = CompositionPlayback.stitchedPlaylist(
    ///     folder: folder, stitcher: HLSCompositionStitcher(outputURL: "stitched.m3u8").readingSources(from: catalog))
    /// ```
    ///
    /// - Parameter catalog: The sources, loaded.
    /// - Returns: The stitcher, reading through `catalog`.
    public func readingSources(from catalog: SourceCatalog) -> HLSCompositionStitcher {
        var stitcher = self
        stitcher.remote = RemoteReads(catalog)
        stitcher.loader = stitcher.remote.playlistLoader
        return stitcher
    }

    /// Loads every source playlist once, stitches one media playlist per output variant, and rebuilds
    /// the composition from the snapped cuts.
    ///
    /// - Parameter composition: The composition to stitch; its sources are HLS playlists or local MP4
    ///   files.
    /// - Returns: The playlists and segment files to write, and the composition that plays.
    /// - Throws: `HLSCompositionStitchError`: a playlist that cannot be read or stitched, a cut that
    ///   snapping empties or refuses, an MP4 source that cannot be packaged, or options that do not go
    ///   together.
    public func stitch(_ composition: Composition) throws(HLSCompositionStitchError) -> HLSStitchedComposition {
        let output = HLSSourcePlaylists.absolute(outputURL)
        guard marksEncodingChanges || packagesEveryPiece else {
            throw .unsupported(url: output, reason: "encoding changes can go unmarked only when every piece is packaged onto "
                + "one clock (packagesEveryPiece): pieces listed as they are jump in timestamps at every switch")
        }
        var playlists = HLSSourcePlaylists(loader: loader)
        var packaged: [HLSPackagedSource]
        if let packagedSources { packaged = packagedSources } else {
            packaged = try packageSources(of: composition, output: output, playlists: &playlists)
        }
        // Each distinct source once, in order of first use, and which of them each segment plays.
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
        let sourcePlaylists = Dictionary(uniqueKeysWithValues: sources.map { ($0.location, $0.playlist) })
        for placed in composition.breaks {
            for id in [placed.id] + placed.adIDs where id.contains(where: { $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
                throw .unwritableID(id)
            }
        }

        // The output's variants are the first content source's.
        let primary = (composition.segments.first { !$0.isAd } ?? composition.segments[0]).source
        let contentVariants: [HLSVariantStream]?
        // The content's audio and subtitle renditions in their own playlists: each is stitched beside the variants.
        let renditions: [HLSRendition]
        if case .multivariant(let multivariant) = sourcePlaylists[primary] {
            guard !multivariant.variants.isEmpty else {
                throw .unsupported(url: multivariant.url, reason: "a multivariant playlist without variants")
            }
            contentVariants = multivariant.variants
            renditions = Self.stitchedRenditions(of: multivariant)
        } else {
            contentVariants = nil
            renditions = []
        }
        let audioStitched = renditions.contains { $0.type == "AUDIO" }
        let renditionSources = HLSRenditionSources(primary: primary, playlists: sourcePlaylists, contentVariants: contentVariants ?? [])

        // The first variant with video decides the cuts; audio-only variants cut their own
        // segments nearest to its cuts (see `renditionCutTolerance`).
        let variantCount = contentVariants?.count ?? 1
        let reference = contentVariants?.firstIndex { !$0.isAudioOnly } ?? 0
        let anchored = Set((0..<variantCount).filter { $0 != reference && contentVariants?[$0].isAudioOnly == true })
        var stitchedVariants: [HLSStitchedVariantPlaylist?] = Array(repeating: nil, count: variantCount)
        for index in [reference] + (0..<variantCount).filter({ $0 != reference }) {
            let contentVariant = contentVariants?[index]
            let anchor = anchored.contains(index) ? stitchedVariants[reference] : nil
            // An audio-only variant plays every other source's audio, as the rendition it repeats does.
            var repeated: HLSRendition?
            if anchor != nil, let contentVariant, case .multivariant(let content)? = sourcePlaylists[primary] {
                repeated = Self.audioRendition(playedBy: contentVariant, in: content)
            }
            var chosen: [(playlist: HLSMediaPlaylist, variant: HLSVariantStream?)] = []
            for (location, playlist) in sources {
                if location != primary, let repeated,
                   let audio = try renditionPlaylist(of: location, for: repeated, sources: renditionSources, playlists: &playlists) {
                    chosen.append((audio, nil))
                    continue
                }
                switch playlist {
                case .media(let media):
                    chosen.append((media, nil))
                case .multivariant(let multivariant):
                    let variant = try Self.variant(
                        of: multivariant, isPrimary: location == primary, index: index, matching: contentVariant)
                    try Self.checkMuxed(variant, in: multivariant, audioStitched: audioStitched || decidesCutsOnly)
                    chosen.append((try playlists.mediaPlaylist(at: variant.resolvedURI), variant))
                }
            }
            let url = contentVariants == nil ? output : Self.variantURL(output, index: index)
            let segmentPlaylists = sourceOfSegment.map { chosen[$0].playlist }
            let result = try stitchVariant(composition, playlists: segmentPlaylists, outputURL: url, anchoredTo: anchor)
            if let anchor { try Self.checkAligned(result, url: url, with: anchor, composition: composition) }
            var interstitials: [HLSVariantStream] = []
            for (position, source) in sources.enumerated() where source.location != primary && anchor == nil {
                if let variant = chosen[position].variant, !interstitials.contains(variant) { interstitials.append(variant) }
            }
            stitchedVariants[index] = HLSStitchedVariantPlaylist(
                url: url, contentVariant: contentVariant, interstitialVariants: interstitials,
                sourcePlaylistURLs: segmentPlaylists.map(\.url), result: result)
        }
        let outputs = stitchedVariants.compactMap { $0 }
        let reported = try reportedComposition(composition, outputs: outputs, reference: reference, anchored: anchored)
        let stitchedRenditions = try stitchRenditions(
            renditions, of: composition, video: outputs[reference], output: output, sources: renditionSources, playlists: &playlists)
        var multivariant: HLSMultivariantPlaylist?
        if let contentVariants {
            let listed = zip(contentVariants, outputs).map { variant, stitched in
                HLSStitchedVariant(content: variant, interstitials: stitched.interstitialVariants, playlistURL: stitched.url)
            }
            multivariant = HLSStitcher.multivariantPlaylist(
                for: listed, renditions: stitchedRenditions.listed, url: output,
                independentSegments: (outputs + stitchedRenditions.playlists).allSatisfy(\.result.playlist.hasIndependentSegments))
        }
        var variants = outputs
        var placedSegments: [HLSPlacedSegment] = []
        if packagesEveryPiece {
            (variants[0], placedSegments) = try Self.placingEveryPiece(
                variants[0], sources: packaged, composition: reported.played, marksEncodingChanges: marksEncodingChanges)
        } else {
            HLSPackagedSource.markUsed(&packaged, by: (outputs + stitchedRenditions.playlists).map(\.result.playlist))
        }
        return HLSStitchedComposition(
            reconciled: reported, queuePlan: QueuePlan(composition: composition),
            variants: variants, renditions: stitchedRenditions.playlists, multivariantPlaylist: multivariant,
            assets: stitchedRenditions.files, packagedSources: packaged, placedSegments: placedSegments, interstitialEvents: [],
            outputURL: output)
    }

    /// The schedule's MP4 sources (local files that are not playlists; every source with
    /// `packagesEveryPiece`), each packaged into segments of `segmentContainer` (or of the first
    /// HLS source's format) with boundaries at the keyframes next to every cut the composition
    /// asks of it, no longer than the first HLS source's target duration (6 s without one).
    private func packageSources(
        of composition: Composition, output: String, playlists: inout HLSSourcePlaylists
    ) throws(HLSCompositionStitchError) -> [HLSPackagedSource] {
        var packagedLocations: [(location: MediaLocation, item: String, isPlaylist: Bool)] = []
        var firstPlaylist: MediaLocation?
        var seen: Set<MediaLocation> = []
        // Each source is looked at (its first bytes read) once.
        for segment in composition.segments where seen.insert(segment.source).inserted {
            let isPlaylist = remote.isPlaylist(segment.source)
            if isPlaylist { firstPlaylist = firstPlaylist ?? segment.source }
            if !isPlaylist || packagesEveryPiece { packagedLocations.append((segment.source, segment.id, isPlaylist)) }
        }
        guard !packagedLocations.isEmpty else { return [] }
        var container = segmentContainer
        var targetDuration: Int64 = 6
        if let firstPlaylist {
            var media: HLSMediaPlaylist?
            switch try playlists.playlist(at: HLSSourcePlaylists.absolute(hlsURL(firstPlaylist))) {
            case .media(let playlist): media = playlist
            case .multivariant(let multivariant):
                if let variant = multivariant.variants.first { media = try playlists.mediaPlaylist(at: variant.resolvedURI) }
            }
            if let media {
                targetDuration = max(1, media.targetDuration)
                if container == nil, let segment = media.segments.first {
                    container = HLSSegmentFormat(segment: segment) == .fragmentedMP4 ? .fragmentedMP4 : .mpegTS
                }
            }
        }
        let folderURL = Self.folderURL(of: output)
        var stems: Set<String> = []
        var packaged: [HLSPackagedSource] = []
        // The HLS sources read as a render reads them, from the playlists already loaded.
        var hlsSources = HLSRenderSources(playlists: playlists, for: .packaging, remote: remote)
        for (location, item, isPlaylist) in packagedLocations {
            let cuts = composition.segments.filter { $0.source == location }.flatMap { [$0.sourceRange.start, $0.sourceRange.end] }
            let stem = HLSPackagedSource.stem(for: location, taken: &stems)
            let packaging: MP4Packaging
            do {
                packaging = try HLSPackagedSource.packaging(
                    of: location, readPath: remote.readPath(of: location), readBefore: remote.catalog?.entries[location]?.movie,
                    item: item, playlist: isPlaylist ? try hlsSources.source(location) : nil,
                    container: container ?? .mpegTS, targetDuration: targetDuration, cuts: cuts)
            } catch {
                throw remote.inUserTerms(error)
            }
            packaged.append(try HLSPackagedSource(location, item: item, packaging: packaging, stem: stem, folderURL: folderURL))
        }
        return packaged
    }

    /// `stitched` with every segment a file of its own, each piece's on the composition's clock,
    /// and the segments to write, in play order. The timestamps run on from piece to piece, so
    /// a discontinuity is marked only where RFC 8216 asks for one: where the tracks change, and,
    /// in MPEG-TS, where the encoding parameters do (they arrive in-band only, and Chromium's
    /// player fails without the mark) unless `marksEncodingChanges` is off. Fragmented MP4
    /// announces new parameters with the new `EXT-X-MAP`, which every player measured follows
    /// unmarked, while at a mark GStreamer showed pieces' first frames late and VLC stopped. A
    /// source's own discontinuities were packaged away.
    private static func placingEveryPiece(
        _ stitched: HLSStitchedVariantPlaylist, sources: [HLSPackagedSource], composition: Composition, marksEncodingChanges: Bool
    ) throws(HLSCompositionStitchError) -> (HLSStitchedVariantPlaylist, [HLSPlacedSegment]) {
        let result = stitched.result
        var placed: [HLSPlacedSegment] = []
        var discontinuities = Set<Int>()
        // Each source's segments by URI, made once: a lookup per stitched segment.
        var segmentIndices: [Int: [String: Int]] = [:]
        var previous: (tracks: [String], descriptions: [[MP4SampleDescription]])?
        for (number, (piece, segment)) in zip(result.pieces, composition.segments).enumerated() {
            guard let source = sources.firstIndex(where: { $0.playlist.url == piece.url }) else {
                throw .stitch(item: segment.id, reason: "its source was not packaged")
            }
            let packaging = sources[source].packaging
            let indices = segmentIndices[source] ?? Dictionary(
                sources[source].playlist.segments.enumerated().map { ($1.resolvedURI, $0) }, uniquingKeysWith: { first, _ in first })
            segmentIndices[source] = indices
            let current = (tracks: packaging.trackTypes, descriptions: packaging.sampleDescriptions)
            if let previous, previous.tracks != current.tracks
                || (marksEncodingChanges && packaging.container == .mpegTS && previous.descriptions != current.descriptions) {
                discontinuities.insert(piece.segments.lowerBound)
            }
            previous = current
            for (position, output) in piece.segments.enumerated() {
                guard let index = indices[result.playlist.segments[output].resolvedURI] else {
                    throw .stitch(item: segment.id, reason: "segment \(result.playlist.segments[output].uri) is not its source's")
                }
                let name = "piece-\(number + 1)-\(position).\(packaging.container == .mpegTS ? "ts" : "m4s")"
                placed.append(HLSPlacedSegment(
                    source: source, segment: index, name: name,
                    placement: SegmentPlacement(piece: piece.sourceRange, compositionStart: piece.compositionRange.start)))
            }
        }
        guard placed.count == result.playlist.segments.count else {
            throw .stitch(item: nil, reason: "\(result.playlist.segments.count) segments stitched, \(placed.count) placed in pieces")
        }
        let folder = folderURL(of: stitched.url)
        let relocated = result.changingSegments { index, segment in
            segment.uri = placed[index].name
            segment.resolvedURI = folder + placed[index].name
            segment.isDiscontinuity = discontinuities.contains(index)
        }
        return (HLSStitchedVariantPlaylist(
            url: stitched.url, contentVariant: stitched.contentVariant, interstitialVariants: stitched.interstitialVariants,
            sourcePlaylistURLs: stitched.sourcePlaylistURLs, result: relocated), placed)
    }

    /// The variant a multivariant source plays in output variant `index`: the content's own for
    /// the first content source; for another, its variant nearest in bandwidth to `contentVariant`,
    /// or its first when the output has no variants (a client starts with the first listed).
    private static func variant(
        of multivariant: HLSMultivariantPlaylist, isPrimary: Bool, index: Int, matching contentVariant: HLSVariantStream?
    ) throws(HLSCompositionStitchError) -> HLSVariantStream {
        let chosen: Int?
        if isPrimary {
            chosen = index
        } else if let contentVariant {
            chosen = HLSVariantMatching.nearest(toBandwidth: contentVariant.bandwidth, in: multivariant.variants)
        } else {
            chosen = 0
        }
        guard let chosen, multivariant.variants.indices.contains(chosen) else {
            throw .unsupported(url: multivariant.url, reason: "a multivariant playlist without variants")
        }
        return multivariant.variants[chosen]
    }

    /// One media playlist: one piece per segment, ads marked by break. `anchor` (a rendition's or
    /// audio-only variant's video) gives every cut instead: each moves to the nearest boundary of
    /// this playlist's own.
    func stitchVariant(
        _ composition: Composition, playlists: [HLSMediaPlaylist], outputURL: String, anchoredTo anchor: HLSStitchedVariantPlaylist? = nil
    ) throws(HLSCompositionStitchError) -> HLSStitchResult {
        var pieces: [HLSStitchPiece] = []
        let rules = anchor == nil ? cutRules(composition.segments) : composition.segments.map { _ in (HLSCutSnapping.nearest, HLSCutSnapping.nearest) }
        for (index, ((segment, playlist), rule)) in zip(zip(composition.segments, playlists), rules).enumerated() {
            let range = anchor?.result.pieces[index].sourceRange ?? segment.sourceRange
            try precheck(segment, range, playlist, rule: rule)
            var marker: HLSStitchMarker?
            if let ad = segment.adPosition, let placed = composition.placedBreak(id: ad.breakID) {
                marker = HLSStitchMarker(
                    id: placed.id, className: markerClass,
                    attributes: [HLSAttribute("X-AD-IDS", .quotedString(placed.adIDs.joined(separator: ",")))])
            }
            pieces.append(HLSStitchPiece(
                playlist: playlist, sourceRange: range, kind: segment.isAd ? .interstitial : .content,
                marker: marker, plannedCompositionStart: segment.compositionRange.start,
                startSnapping: rule.start, endSnapping: rule.end))
        }
        let result: HLSStitchResult
        do {
            var stitcher = HLSStitcher(outputURL: outputURL, programDateTime: programDateTime, snapping: snapping)
            stitcher.requiresOneSegmentFormat = !decidesCutsOnly
            stitcher.cueMarkers = cueMarkers
            result = try stitcher.stitch(pieces)
        } catch {
            throw Self.explain(error, segments: composition.segments, pieces: pieces)
        }
        // The prechecks refuse what would be dropped, so every piece is placed, in order.
        if let dropped = result.droppedPieces.first {
            let segment = composition.segments[dropped.index]
            throw .snapsToNothing(
                item: segment.id, url: dropped.url, requested: dropped.requestedSourceRange, snapped: dropped.snappedSourceRange)
        }
        return result
    }

    /// The rule of each segment's start and end cut: a break's own rule (`breakSnapping`) for its
    /// ads' cuts and for the content cuts next to it, `snapping` for every other cut.
    func cutRules(_ segments: [Segment]) -> [(start: HLSCutSnapping, end: HLSCutSnapping)] {
        func breakRule(_ index: Int) -> HLSCutSnapping? {
            guard segments.indices.contains(index), let id = segments[index].adPosition?.breakID else { return nil }
            return breakSnapping[id]
        }
        return segments.indices.map { index in
            if segments[index].isAd {
                let rule = breakRule(index) ?? snapping
                return (rule, rule)
            }
            return (breakRule(index - 1) ?? snapping, breakRule(index + 1) ?? snapping)
        }
    }

    /// Refuses, naming the item, what the engine would refuse or drop without saying which item it was.
    private func precheck(
        _ segment: Segment, _ range: MediaTimeRange, _ playlist: HLSMediaPlaylist, rule: (start: HLSCutSnapping, end: HLSCutSnapping)
    ) throws(HLSCompositionStitchError) {
        guard playlist.isFinite else {
            throw .unsupported(url: playlist.url, reason: "a live playlist (no EXT-X-ENDLIST, not PLAYLIST-TYPE VOD) has no fixed segments to stitch")
        }
        guard !playlist.isIFramesOnly else { throw .unsupported(url: playlist.url, reason: "an I-frame playlist cannot be stitched") }
        let boundaries: [MediaTime]
        do { boundaries = try playlist.segmentBoundaries } catch { throw .stitch(item: segment.id, reason: HLSStitchError.timeOverflow(error).description) }
        let (first, last) = HLSStitcher.snap(range, to: boundaries, start: rule.start, end: rule.end)
        guard last > first else {
            throw .snapsToNothing(
                item: segment.id, url: playlist.url, requested: range,
                snapped: MediaTimeRange(start: boundaries[first], end: boundaries[max(first, last)]))
        }
    }

    /// `composition` reconciled with the reference output's snapped ranges, checked against where
    /// the engine put every piece and against every other variant with video.
    private func reportedComposition(
        _ composition: Composition, outputs: [HLSStitchedVariantPlaylist], reference: Int, anchored: Set<Int>
    ) throws(HLSCompositionStitchError) -> ReconciledComposition {
        let first = outputs[reference]
        for (index, output) in outputs.enumerated() where index != reference && !anchored.contains(index) {
            for (index, (piece, firstPiece)) in zip(output.result.pieces, first.result.pieces).enumerated()
            where piece.sourceRange != firstPiece.sourceRange {
                throw .variantsDisagree(
                    item: composition.segments[index].id, variantURL: output.url, range: piece.sourceRange,
                    firstVariantURL: first.url, firstRange: firstPiece.sourceRange)
            }
        }
        do {
            return try ReconciledComposition(
                requested: composition, playedSourceRanges: first.result.pieces.map(\.sourceRange),
                placedRanges: first.result.pieces.map(\.compositionRange))
        } catch {
            switch error {
            case .snapping(let error): throw .snapping(error)
            case .placedElsewhere(_, let item, let placed, let composition):
                throw .planDisagrees(item: item, playlist: placed, composition: composition)
            }
        }
    }

    /// An engine error with the items it concerns named.
    private static func explain(_ error: HLSStitchError, segments: [Segment], pieces: [HLSStitchPiece]) -> HLSCompositionStitchError {
        switch error {
        case .incompatibleSegmentFormats(let piece, let url, let format, let expected):
            // The nearest earlier piece of the other format is the one this one cannot follow.
            let previous = (0..<piece).last { index in
                pieces[index].playlist.segments.first.map(HLSSegmentFormat.init(segment:)) == expected
            }
            return .mixedSegmentFormats(
                item: segments[piece].id, url: url, format: format.description,
                previousItem: previous.map { segments[$0].id } ?? "?", previousURL: previous.map { pieces[$0].playlist.url } ?? "?",
                previousFormat: expected.description)
        case .sourceNotFinite(_, let url):
            return .unsupported(url: url, reason: "a live playlist (no EXT-X-ENDLIST, not PLAYLIST-TYPE VOD) has no fixed segments to stitch")
        case .unsupportedSource(_, let url, let reason):
            return .unsupported(url: url, reason: reason)
        case .invalidSourceRange(let piece, _), .markerGroupSplit(_, let piece), .conflictingMarker(_, let piece),
             .dateRangeIDTaken(_, let piece):
            return .stitch(item: segments[piece].id, reason: error.description)
        case .nothingToStitch, .markerNeedsProgramDateTime, .invalidProgramDateTime, .timeOverflow:
            return .stitch(item: nil, reason: error.description)
        }
    }

    /// A variant whose audio or video lives only in separate rendition playlists would lose that
    /// media in a stitched media playlist, so it is refused rather than stitched without sound,
    /// unless its audio is stitched into the output's own audio renditions (`audioStitched`). A
    /// group with a rendition without `URI` has its media muxed in the variant (RFC 8216 4.3.4.2.1):
    /// that plays; its other renditions are not carried over.
    static func checkMuxed(
        _ variant: HLSVariantStream, in multivariant: HLSMultivariantPlaylist, audioStitched: Bool = false
    ) throws(HLSCompositionStitchError) {
        for (type, group) in [("AUDIO", audioStitched ? nil : variant.audioGroup), ("VIDEO", variant.videoGroup)] {
            guard let group else { continue }
            let renditions = multivariant.renditions.filter { $0.type == type && $0.groupID == group }
            if !renditions.isEmpty, renditions.allSatisfy({ $0.resolvedURI != nil }) {
                throw .unsupported(
                    url: multivariant.url,
                    reason: "variant \(variant.uri) takes its \(type.lowercased()) from rendition group \(quoted(group)); "
                        + "alternate renditions are not stitched (use variants with muxed audio)")
            }
        }
    }

    /// `…/stitched.m3u8` -> `…/stitched-<index>.m3u8` (`…/stitched-audio-<index>.m3u8` with `kind` `audio-`).
    static func variantURL(_ url: String, index: Int, kind: String = "") -> String {
        let (stem, pathExtension) = splitExtension(url)
        return stem + "-\(kind)\(index)" + (pathExtension.isEmpty ? ".m3u8" : pathExtension)
    }

    /// `…/stitched.m3u8` -> `…/stitched<suffix>`: a file written beside the output.
    static func siblingURL(_ url: String, suffix: String) -> String { splitExtension(url).stem + suffix }

    /// `…/stitched.m3u8` -> `…/`: the folder the outputs are written into, `/` at its end.
    static func folderURL(of url: String) -> String { String(url[...(url.lastIndex(of: "/") ?? url.startIndex)]) }

    /// `…/name.ext` -> (`…/name`, `.ext`); the extension is empty when the name has none.
    private static func splitExtension(_ url: String) -> (stem: String, pathExtension: String) {
        let nameStart = url.lastIndex(of: "/").map { url.index(after: $0) } ?? url.startIndex
        guard let dot = url[nameStart...].lastIndex(of: "."), dot > nameStart else { return (url, "") }
        return (String(url[..<dot]), String(url[dot...]))
    }
}
