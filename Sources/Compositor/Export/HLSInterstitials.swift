import CompositorCore
import CompositorHLS

extension HLSExporter {
    /// The `CLASS` of an HLS interstitial date range (draft-pantos-hls-rfc8216bis, appendix D).
    public static let interstitialClass = "com.apple.hls.interstitial"

    /// The schedule as HLS Interstitials: the content alone in the playlists at `outputURL`, and
    /// one `EXT-X-DATERANGE` of class `com.apple.hls.interstitial` per break, which a client
    /// (AVPlayer since iOS 15, hls.js 1.6) plays as a separate item while the content waits:
    ///
    /// ```
    /// content    |feature 0 ........ 8 ........ 12|extra 1-8 ......|      the playlist: content time
    /// breaks     ^pre  CUE="PRE"     ^mid1  ONCE                   ^post  CUE="POST"
    /// assets     interstitial-1-1.m3u8 | interstitial-2.json -> interstitial-2-1.m3u8, interstitial-2-2.m3u8 | ...
    /// ```
    ///
    /// The playlists' time is content time: a break's `START-DATE` is `programDateTime` plus its
    /// position, and `X-RESUME-OFFSET` is the content it replaces (its `resumeOffset`; 0 inserts).
    /// Every cut snaps to a segment boundary by the rules `stitch(_:)` follows, so the result's
    /// `composition` is what plays. Each ad is its own playlist beside the output, whole segments of
    /// its source, named by `X-ASSET-URI` (a break of one ad) or by the JSON asset list that
    /// `X-ASSET-LIST` names (a pod, `{"ASSETS": [{"URI": …, "DURATION": …}]}`). Where those segments
    /// run past what was scheduled, `X-PLAYOUT-LIMIT` ends the break on time. Also written:
    /// - `CUE`: `PRE` on pre-rolls, `POST` on post-rolls, `ONCE` on `once` breaks.
    /// - `X-RESTRICT`: `SKIP` where an ad may not be skipped at once (the attribute has no "after",
    ///   so an ad skippable after a while cannot be skipped at all, nor seeked forward in), and
    ///   `JUMP` on sticky breaks when `restrictingJumps` (a seek over the break plays it first).
    /// - `X-SNAP="OUT,IN"` on mid-rolls, so a client leaves and rejoins the content at the segment
    ///   boundary the break was placed on, whatever its own rounding of the playlist's clock.
    /// - `DURATION`: how long the break plays.
    ///
    /// The ads' segments need not be in the content's format: each interstitial is its own item.
    /// `excludedBreakIDs` leaves breaks out, as `Composition(schedule:naturalDurations:excludingBreaks:)`.
    ///
    /// - Parameters:
    ///   - schedule: The schedule; its content's sources are HLS playlists or local MP4 files.
    ///   - naturalDurations: The natural duration of each source, for clips without `end`.
    ///   - excludedBreakIDs: Breaks to leave out, such as `once` breaks that have played.
    ///   - restrictingJumps: Whether sticky breaks get `X-RESTRICT="JUMP"` (off by default).
    /// - Returns: The content playlists with a date range per break, each ad's playlists and asset
    ///   lists, and the composition that plays.
    /// - Throws: `HLSExportError`: a schedule that cannot be laid out, a playlist that cannot
    ///   be read or stitched, a cut that snapping refuses, or `packagesEveryPiece` set.
    public func stitchInterstitials(
        _ schedule: Schedule, naturalDurations: [MediaLocation: MediaTime] = [:],
        excludingBreaks excludedBreakIDs: Set<String> = [], restrictingJumps: Bool = false
    ) throws(HLSExportError) -> HLSExport {
        guard !options.packagesEveryPiece else {
            throw HLSExportError(.unsupported(url: outputURL, reason: "interstitials keep every ad in playlists of its own, while packaging every piece "
                               + "makes one stream of them all: stitch with one or the other"))
        }
        let composition: Composition, content: Composition
        do {
            composition = try Composition(schedule: schedule, naturalDurations: naturalDurations, excludingBreaks: excludedBreakIDs)
            content = try Composition(
                schedule: schedule, naturalDurations: naturalDurations, excludingBreaks: Set(schedule.breaks.map(\.id)))
        } catch {
            throw HLSExportError(.schedule(error))
        }
        var export = HLSExportStages(self)
        // Every cut decided as for one spliced playlist whose pieces each play as an item of
        // their own: the composition that plays.
        let spliced = try export.stitch(composition, packaged: try export.package(composition), playing: .asSeparateItems)
        // The content playlist lists the segment files of that packaging (cut at the breaks too),
        // so each file holds what both say it does.
        let primary = try export.stitch(content, packaged: spliced.packagedSources, playing: .inOneStream)
        let plan = try InterstitialPlan(
            spliced: spliced, primary: primary.composition,
            primaryPlaylists: (primary.variants + primary.renditions).map(\.result.playlist), outputURL: primary.outputURL,
            restrictingJumps: restrictingJumps, assetBaseURL: options.assetBaseURL, playlists: export.playlists)

        let anchor: HLSDateTime
        do { anchor = try HLSDateTime(parsing: options.programDateTime) } catch {
            throw HLSExportError(.stitch(item: nil, reason: HLSStitchError.invalidProgramDateTime(text: options.programDateTime, reason: error.reason).description))
        }
        var variants: [HLSStitchedVariantPlaylist] = []
        for variant in primary.variants {
            let result: HLSStitchResult
            do {
                let dateRanges = try plan.events.map { (event) throws(MediaTimeError) in
                    (try event.dateRange(anchor: anchor, playlistURL: variant.url, assetBaseURL: options.assetBaseURL), event.time)
                }
                result = try variant.result.addingDateRanges(dateRanges)
            } catch {
                throw HLSExportError(.stitch(item: nil, reason: HLSStitchError.timeOverflow(error).description))
            }
            variants.append(HLSStitchedVariantPlaylist(
                url: variant.url, contentVariant: variant.contentVariant, interstitialVariants: variant.interstitialVariants,
                sourcePlaylistURLs: variant.sourcePlaylistURLs, result: result))
        }
        return HLSExport(
            reconciled: plan.reconciled, queuePlan: QueuePlan(composition: composition),
            variants: variants, renditions: primary.renditions, multivariantPlaylist: primary.multivariantPlaylist, assets: primary.assets + plan.assets,
            packagedSources: plan.packagedSources, interstitialEvents: plan.events, outputURL: primary.outputURL)
    }
}

/// The breaks of a spliced stitch turned into interstitials: the events on the content playlist's
/// clock, the ad playlists and asset lists they name, and the composition that plays.
private struct InterstitialPlan {
    var events: [HLSInterstitialEvent] = []
    var assets: [HLSExport.File] = []
    /// The schedule's composition and the one that plays: the spliced stitch's, with the cuts
    /// the interstitials move at the content's edges.
    var reconciled: ReconciledComposition
    /// The MP4 sources packaged for the content playlist and the ads' playlists, with the
    /// segments they play.
    var packagedSources: [HLSPackagedSource]
    private var playedPlaylists: [HLSMediaPlaylist] = []

    private let primary: Composition
    private let output: HLSOutputLocation
    /// Where the output's folder is served, for the asset lists' URIs (`HLSExportOptions.assetBaseURL`).
    private let assetBaseURL: String?
    private var sources: HLSSourcePlaylists

    init(
        spliced: HLSExport, primary: Composition, primaryPlaylists: [HLSMediaPlaylist], outputURL: String,
        restrictingJumps: Bool, assetBaseURL: String?, playlists: HLSSourcePlaylists
    ) throws(HLSExportError) {
        self.primary = primary
        self.assetBaseURL = assetBaseURL
        self.output = HLSOutputLocation(outputURL)
        self.sources = playlists
        let requested = spliced.requested, played = spliced.composition
        reconciled = spliced.reconciled
        // The spliced stitch packaged every MP4 source (content and ads) with the cuts it plays.
        self.packagedSources = spliced.packagedSources
        playedPlaylists = primaryPlaylists

        var playedRanges = played.segments.map(\.sourceRange)
        for (index, placed) in played.breaks.enumerated() {
            // `played` is `requested` with its cuts moved: the same breaks, in the same order.
            try addEvent(
                for: placed, number: index + 1, scheduled: requested.breaks[index].compositionRange, in: played,
                playedRanges: &playedRanges, restrictingJumps: restrictingJumps)
        }
        HLSPackagedSource.markUsed(&packagedSources, by: playedPlaylists)
        if playedRanges != played.segments.map(\.sourceRange) {
            do { reconciled = try ReconciledComposition(requested: requested, playedSourceRanges: playedRanges) } catch { throw HLSExportError(.snapping(error)) }
        }
    }

    /// The interstitial of break `placed` (the `number`th): its ads' playlists written, its asset
    /// list for a pod, and its last ad cut in `playedRanges` where `X-PLAYOUT-LIMIT` stops it
    /// before its whole segments end.
    private mutating func addEvent(
        for placed: PlacedBreak, number: Int, scheduled: MediaTimeRange, in played: Composition,
        playedRanges: inout [MediaTimeRange], restrictingJumps: Bool
    ) throws(HLSExportError) {
        let (start, resume) = try contentTimes(of: placed, in: played)
        var assetFiles: [(name: String, duration: MediaTime)] = []
        for (adIndex, segmentIndex) in placed.segmentIndices.enumerated() {
            let name = "interstitial-\(number)-\(adIndex + 1).m3u8"
            assetFiles.append((name, try writeAd(played.segments[segmentIndex], named: name)))
        }
        let (plays, asked) = try Self.time(placed.id) { () throws(MediaTimeError) in
            (try placed.compositionRange.end.subtracting(placed.compositionRange.start), try scheduled.end.subtracting(scheduled.start))
        }
        if plays > asked {
            try Self.trim(&playedRanges, of: placed, by: try Self.time(placed.id) { () throws(MediaTimeError) in try plays.subtracting(asked) })
        }
        var assetListURL: String?
        if assetFiles.count > 1 {
            let url = output.beside("interstitial-\(number).json")
            var root = JSONObject()
            root.append("ASSETS", .array(assetFiles.map { .object(JSONObject(["URI": .string((assetBaseURL ?? "") + $0.name), "DURATION": .seconds($0.duration)])) }))
            assets.append(HLSExport.File(url: url, text: JSONValue.object(root).serialized + "\n"))
            assetListURL = url
        }
        let cue: HLSInterstitialEvent.Cue = placed.placement == .preroll ? .join : placed.placement == .postroll ? .leave : .none
        events.append(HLSInterstitialEvent(
            id: placed.id, time: start, duration: MediaTime.min(plays, asked), cue: cue, playsOnce: placed.policy == .once,
            assetURLs: assetFiles.map { output.beside($0.name) }, assetListURL: assetListURL,
            resumptionOffset: try Self.time(placed.id) { () throws(MediaTimeError) in try resume.subtracting(start) },
            playoutLimit: plays > asked ? asked : nil, restrictsSkipping: placed.restrictions.skipping != .anytime,
            restrictsJumping: restrictingJumps && placed.policy == .sticky))
    }

    /// Where break `placed` sits in the content playlist's time, and where the content resumes
    /// after it (later, by what it replaces).
    private func contentTimes(of placed: PlacedBreak, in played: Composition) throws(HLSExportError) -> (start: MediaTime, resume: MediaTime) {
        let before = played.segments[..<placed.segmentIndices.lowerBound].last { !$0.isAd }
        var start = MediaTime.zero
        switch placed.placement {
        case .preroll: break
        case .postroll: start = primary.duration
        case .midroll: if let before { start = try primaryTime(before, at: before.sourceRange.end) }
        }
        // Breaks at one position play one after another; the content resumes after the last.
        var resume = start
        let after = placed.segmentIndices.upperBound < played.segments.count ? played.segments[placed.segmentIndices.upperBound] : nil
        if let after, !after.isAd { resume = try primaryTime(after, at: after.sourceRange.start) }
        // The timeline's content time is the playlist's: a clip is timed from where it is first
        // cut, so content replaced across a clip's edge would shift everything after it.
        guard before.map({ $0.contentRange.end == start }) ?? true, after.map({ $0.isAd || $0.contentRange.start == resume }) ?? true else {
            throw HLSExportError(.stitch(item: placed.id, reason: "the content it replaces crosses a clip boundary, so content after it "
                + "would play at other times in the content playlist than in the timeline; end its resumeOffset within the clip"))
        }
        return (start, resume)
    }

    /// The content playlist's time of `sourceTime` of a content segment's source.
    private func primaryTime(_ segment: Segment, at sourceTime: MediaTime) throws(HLSExportError) -> MediaTime {
        guard let piece = primary.segments.first(where: { $0.role == segment.role }),
              piece.sourceRange.start <= sourceTime, sourceTime <= piece.sourceRange.end else {
            throw HLSExportError(.stitch(item: segment.id, reason: "its cut at \(sourceTime) s lies outside its part of the content playlist; "
                + "a break with its own snapping rule at a clip's edge moves the clip's cut, which the content playlist cannot follow"))
        }
        return try Self.time(segment.id) { () throws(MediaTimeError) in
            try piece.compositionRange.start.adding(try sourceTime.subtracting(piece.sourceRange.start))
        }
    }

    /// Writes one ad's playlist (a multivariant one, with one media playlist per variant and per
    /// audio or subtitle rendition, for a multivariant source): whole segments of `segment`'s
    /// snapped range, each rendition cut nearest its video's cuts. Returns its duration.
    private mutating func writeAd(_ segment: Segment, named name: String) throws(HLSExportError) -> MediaTime {
        let url = output.beside(name)
        let source: HLSPlaylist
        if let packaged = packagedSources.first(where: { $0.location == segment.source }) {
            source = .media(packaged.playlist)
        } else {
            source = try sources.playlist(at: HLSSourcePlaylists.absolute(hlsURL(segment.source)))
        }
        switch source {
        case .media(let playlist):
            let result = try stitchAd(playlist, segment.sourceRange, at: url, item: segment.id)
            assets.append(HLSExport.File(url: url, text: result.text))
            return result.duration
        case .multivariant(let multivariant):
            return try writeAd(segment, of: multivariant, at: url)
        }
    }

    /// One ad's media playlist: the whole segments of `playlist` nearest `range`.
    private mutating func stitchAd(
        _ playlist: HLSMediaPlaylist, _ range: MediaTimeRange, at url: String, item: String
    ) throws(HLSExportError) -> HLSStitchResult {
        let piece = HLSStitchPiece(
            playlist: playlist, sourceRange: range, kind: .interstitial, plannedCompositionStart: .zero,
            startSnapping: .nearest, endSnapping: .nearest)
        do {
            let result = try HLSStitcher(outputURL: url).stitch([piece])
            playedPlaylists.append(result.playlist)
            return result
        } catch {
            throw HLSExportError(.stitch(item: item, reason: error.description))
        }
    }

    /// `writeAd` of a multivariant source: a media playlist per variant and per audio or subtitle
    /// rendition, each rendition and audio-only variant cut nearest the first variant's cuts, and
    /// the multivariant playlist listing them at `url`. Returns the first variant's duration.
    private mutating func writeAd(
        _ segment: Segment, of multivariant: HLSMultivariantPlaylist, at url: String
    ) throws(HLSExportError) -> MediaTime {
        let ad = HLSOutputLocation(url)
        let renditions = HLSExportStages.stitchedRenditions(of: multivariant)
        var listed: [HLSStitchedVariant] = []
        var first: (url: String, result: HLSStitchResult)?
        for (index, variant) in multivariant.variants.enumerated() {
            try HLSExportStages.checkMuxed(variant, in: multivariant, audioStitched: renditions.contains { $0.type == "AUDIO" })
            let variantURL = ad.variant(index)
            let result = try stitchAd(try sources.mediaPlaylist(at: variant.resolvedURI), segment.sourceRange, at: variantURL, item: segment.id)
            // Audio-only variants, like renditions, may cut a few AAC frames from the video.
            if let first {
                let (range, firstRange) = (result.pieces[0].sourceRange, first.result.pieces[0].sourceRange)
                let aligned = variant.isAudioOnly
                    ? HLSExportStages.isNear(range.start, firstRange.start) && HLSExportStages.isNear(range.end, firstRange.end)
                    : range == firstRange
                guard aligned else {
                    throw HLSExportError(.variantsDisagree(
                        item: segment.id, variantURL: variant.resolvedURI, range: range,
                        firstVariantURL: multivariant.variants[0].resolvedURI, firstRange: firstRange))
                }
            }
            first = first ?? (variantURL, result)
            listed.append(HLSStitchedVariant(content: variant, interstitials: [], playlistURL: variantURL))
            assets.append(HLSExport.File(url: variantURL, text: result.text))
        }
        guard let first else { throw HLSExportError(.unsupported(url: multivariant.url, reason: "a multivariant playlist without variants")) }
        let videoRange = first.result.pieces[0].sourceRange
        var numbers: [String: Int] = [:]
        var listedRenditions: [HLSRendition] = []
        for rendition in renditions {
            guard let uri = rendition.resolvedURI else { continue }
            let renditionURL = ad.rendition(rendition, numbers: &numbers)
            let result = try stitchAd(try sources.mediaPlaylist(at: uri), videoRange, at: renditionURL, item: segment.id)
            let range = result.pieces[0].sourceRange
            guard HLSExportStages.isNear(range.start, videoRange.start), HLSExportStages.isNear(range.end, videoRange.end) else {
                throw HLSExportError(.variantsDisagree(item: segment.id, variantURL: uri, range: range, firstVariantURL: first.url, firstRange: videoRange))
            }
            listedRenditions.append(ad.relisting(rendition, at: renditionURL))
            assets.append(HLSExport.File(url: renditionURL, text: result.text))
        }
        let playlist = HLSStitcher.multivariantPlaylist(
            for: listed, renditions: listedRenditions, url: url, independentSegments: multivariant.hasIndependentSegments)
        assets.append(HLSExport.File(url: url, text: playlist.text))
        return first.result.duration
    }

    /// Shortens a break's last ad by `excess`, as `X-PLAYOUT-LIMIT` stops the break.
    private static func trim(_ ranges: inout [MediaTimeRange], of placed: PlacedBreak, by excess: MediaTime) throws(HLSExportError) {
        let last = placed.segmentIndices.upperBound - 1
        let range = ranges[last]
        let end = try time(placed.id) { () throws(MediaTimeError) in try range.end.subtracting(excess) }
        guard end > range.start else {
            throw HLSExportError(.stitch(item: placed.id, reason: "its ads' whole segments run \(excess) s past what was scheduled, "
                + "more than its last ad lasts; schedule its ads to end nearer their segment boundaries"))
        }
        ranges[last] = MediaTimeRange(start: range.start, end: end)
    }

    private static func time<T>(_ item: String, _ body: () throws(MediaTimeError) -> T) throws(HLSExportError) -> T {
        do { return try body() } catch { throw HLSExportError(.stitch(item: item, reason: HLSStitchError.timeOverflow(error).description)) }
    }
}
