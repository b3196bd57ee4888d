import CompositorCore
import CompositorHLS

extension HLSExportStages {
    /// The variant a multivariant source plays in output variant `index`: the content's own for
    /// the first content source; for another, its variant nearest in bandwidth to `contentVariant`,
    /// or its first when the output has no variants (a client starts with the first listed).
    static func variant(
        of multivariant: HLSMultivariantPlaylist, isPrimary: Bool, index: Int, matching contentVariant: HLSVariantStream?
    ) throws(HLSExportError) -> HLSVariantStream {
        let chosen: Int?
        if isPrimary {
            chosen = index
        } else if let contentVariant {
            chosen = HLSVariantMatching.nearest(toBandwidth: contentVariant.bandwidth, in: multivariant.variants)
        } else {
            chosen = 0
        }
        guard let chosen, multivariant.variants.indices.contains(chosen) else {
            throw HLSExportError(.unsupported(url: multivariant.url, reason: "a multivariant playlist without variants"))
        }
        return multivariant.variants[chosen]
    }

    /// One media playlist: one piece per segment, ads marked by break. `anchor` (a rendition's or
    /// audio-only variant's video) gives every cut instead: each moves to the nearest boundary of
    /// this playlist's own.
    func stitchVariant(
        _ composition: Composition, playlists: [HLSMediaPlaylist], outputURL: String, anchoredTo anchor: HLSStitchedVariantPlaylist?,
        requiresOneSegmentFormat: Bool
    ) throws(HLSExportError) -> HLSStitchResult {
        var pieces: [HLSStitchPiece] = []
        let rules = anchor == nil ? cutRules(composition.segments) : composition.segments.map { _ in (HLSCutSnapping.nearest, HLSCutSnapping.nearest) }
        for (index, ((segment, playlist), rule)) in zip(zip(composition.segments, playlists), rules).enumerated() {
            let range = anchor?.result.pieces[index].sourceRange ?? segment.sourceRange
            try precheck(segment, range, playlist, rule: rule)
            var marker: HLSStitchMarker?
            if let ad = segment.adPosition, let placed = composition.placedBreak(id: ad.breakID) {
                marker = HLSStitchMarker(
                    id: placed.id, className: options.markerClass,
                    attributes: [HLSAttribute("X-AD-IDS", .quotedString(placed.adIDs.joined(separator: ",")))])
            }
            pieces.append(HLSStitchPiece(
                playlist: playlist, sourceRange: range, kind: segment.isAd ? .interstitial : .content,
                marker: marker, plannedCompositionStart: segment.compositionRange.start,
                startSnapping: rule.start, endSnapping: rule.end, item: segment.id))
        }
        let result: HLSStitchResult
        do {
            var stitcher = HLSStitcher(outputURL: outputURL, programDateTime: options.programDateTime, snapping: options.snapping)
            stitcher.requiresOneSegmentFormat = requiresOneSegmentFormat
            stitcher.cueMarkers = options.cueMarkers
            result = try stitcher.stitch(pieces)
        } catch {
            throw Self.explain(error, pieces: pieces)
        }
        // The prechecks refuse what would be dropped, so every piece is placed, in order.
        if let dropped = result.droppedPieces.first {
            throw HLSExportError(.snapsToNothing(
                item: dropped.item ?? "?", url: dropped.url, requested: dropped.requestedSourceRange, snapped: dropped.snappedSourceRange))
        }
        return result
    }

    /// The rule of each segment's start and end cut: a break's own rule (`breakSnapping`) for its
    /// ads' cuts and for the content cuts next to it, `snapping` for every other cut.
    func cutRules(_ segments: [Segment]) -> [(start: HLSCutSnapping, end: HLSCutSnapping)] {
        func breakRule(_ index: Int) -> HLSCutSnapping? {
            guard segments.indices.contains(index), let id = segments[index].adPosition?.breakID else { return nil }
            return options.breakSnapping[id]
        }
        return segments.indices.map { index in
            if segments[index].isAd {
                let rule = breakRule(index) ?? options.snapping
                return (rule, rule)
            }
            return (breakRule(index - 1) ?? options.snapping, breakRule(index + 1) ?? options.snapping)
        }
    }

    /// Refuses, naming the item, what the engine would refuse or drop without saying which item it was.
    private func precheck(
        _ segment: Segment, _ range: MediaTimeRange, _ playlist: HLSMediaPlaylist, rule: (start: HLSCutSnapping, end: HLSCutSnapping)
    ) throws(HLSExportError) {
        guard playlist.isFinite else {
            throw HLSExportError(.unsupported(url: playlist.url, reason: "a live playlist (no EXT-X-ENDLIST, not PLAYLIST-TYPE VOD) has no fixed segments to stitch"))
        }
        guard !playlist.isIFramesOnly else { throw HLSExportError(.unsupported(url: playlist.url, reason: "an I-frame playlist cannot be stitched")) }
        let boundaries: [MediaTime]
        do { boundaries = try playlist.segmentBoundaries } catch { throw HLSExportError(.stitch(item: segment.id, reason: HLSStitchError.timeOverflow(error).description)) }
        let (first, last) = HLSStitcher.snap(range, to: boundaries, start: rule.start, end: rule.end)
        guard last > first else {
            throw HLSExportError(.snapsToNothing(
                item: segment.id, url: playlist.url, requested: range,
                snapped: MediaTimeRange(start: boundaries[first], end: boundaries[max(first, last)])))
        }
    }

    /// An engine error with the items it concerns named.
    private static func explain(_ error: HLSStitchError, pieces: [HLSStitchPiece]) -> HLSExportError {
        switch error {
        case .incompatibleSegmentFormats(let piece, let url, let format, let expected):
            // The nearest earlier piece of the other format is the one this one cannot follow.
            let previous = (0..<piece).last { index in
                pieces[index].playlist.segments.first.map(HLSSegmentFormat.init(segment:)) == expected
            }
            return HLSExportError(.mixedSegmentFormats(
                item: pieces[piece].item ?? "?", url: url, format: format.description,
                previousItem: previous.flatMap { pieces[$0].item } ?? "?", previousURL: previous.map { pieces[$0].playlist.url } ?? "?",
                previousFormat: expected.description))
        case .sourceNotFinite(_, let url):
            return HLSExportError(.unsupported(url: url, reason: "a live playlist (no EXT-X-ENDLIST, not PLAYLIST-TYPE VOD) has no fixed segments to stitch"))
        case .unsupportedSource(_, let url, let reason):
            return HLSExportError(.unsupported(url: url, reason: reason))
        case .invalidSourceRange(let piece, _), .markerGroupSplit(_, let piece), .conflictingMarker(_, let piece),
             .dateRangeIDTaken(_, let piece):
            return HLSExportError(.stitch(item: pieces[piece].item, reason: error.description))
        case .nothingToStitch, .markerNeedsProgramDateTime, .invalidProgramDateTime, .timeOverflow:
            return HLSExportError(.stitch(item: nil, reason: error.description))
        }
    }

    /// A variant whose audio or video lives only in separate rendition playlists would lose that
    /// media in a stitched media playlist, so it is refused rather than stitched without sound,
    /// unless its audio is stitched into the output's own audio renditions (`audioStitched`). A
    /// group with a rendition without `URI` has its media muxed in the variant (RFC 8216 4.3.4.2.1):
    /// that plays; its other renditions are not carried over.
    static func checkMuxed(
        _ variant: HLSVariantStream, in multivariant: HLSMultivariantPlaylist, audioStitched: Bool = false
    ) throws(HLSExportError) {
        for (type, group) in [("AUDIO", audioStitched ? nil : variant.audioGroup), ("VIDEO", variant.videoGroup)] {
            guard let group else { continue }
            let renditions = multivariant.renditions.filter { $0.type == type && $0.groupID == group }
            if !renditions.isEmpty, renditions.allSatisfy({ $0.resolvedURI != nil }) {
                throw HLSExportError(.unsupported(
                    url: multivariant.url,
                    reason: "variant \(variant.uri) takes its \(type.lowercased()) from rendition group \(quoted(group)); "
                        + "alternate renditions are not stitched (use variants with muxed audio)"))
            }
        }
    }
}
