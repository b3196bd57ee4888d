import CompositorCore
import CompositorHLS

/// The renditions stitched beside the variants.
struct HLSStitchedRenditions {
    /// One stitched media playlist per rendition.
    let playlists: [HLSStitchedVariantPlaylist]
    /// The renditions as the multivariant playlist lists them, at their stitched playlists.
    let listed: [HLSRendition]
    /// The empty WebVTT segment, when a subtitle rendition shows it while a source has none.
    let files: [HLSExport.File]
}

extension HLSExportStages {
    // MARK: Renditions

    /// How far a rendition's cut may land from its video's: AAC frames (21-23 ms) and packagers'
    /// rounding put an audio segment boundary a few hundredths of a second from the video one, which
    /// a player absorbs at the discontinuity; further apart, the renditions are not aligned and no
    /// one timeline describes them.
    static let renditionCutTolerance = MediaTime(value: 1, timescale: 10)

    /// The renditions stitched beside the variants: every `AUDIO` and `SUBTITLES` rendition with
    /// its own playlist (`URI`) in a group that a variant names. Video renditions (camera angles)
    /// and closed captions (carried in the video) are not.
    static func stitchedRenditions(of multivariant: HLSMultivariantPlaylist) -> [HLSRendition] {
        multivariant.renditions.filter { rendition in
            guard rendition.resolvedURI != nil else { return false }
            switch rendition.type {
            case "AUDIO": return multivariant.variants.contains { $0.audioGroup == rendition.groupID }
            case "SUBTITLES": return multivariant.variants.contains { $0.subtitlesGroup == rendition.groupID }
            default: return false
            }
        }
    }

    /// Each rendition stitched with the cuts of `video` (every cut at its own segment boundary
    /// nearest the video's, within `renditionCutTolerance`), as `stitched-audio-N.m3u8` and
    /// `stitched-subtitles-N.m3u8` beside `output`, and listed again with that `URI`:
    ///
    /// ```
    /// video        |C 0-4       |ad 0-4          |C 4-12      |
    /// audio en     |C en 0-4    |ad en (or muxed)|C en 4-12   |
    /// subtitles en |C en 0-4    |ad en (or empty)|C en 4-12   |   stitched-empty.vtt while nothing is said
    /// ```
    ///
    /// Returns the stitched playlists, the renditions as listed, and the empty WebVTT segment
    /// when a subtitle rendition needs it.
    mutating func stitchRenditions(
        _ renditions: [HLSRendition], of composition: Composition, video: HLSStitchedVariantPlaylist, sources: HLSLoadedSources,
        playing: Playing
    ) throws(HLSExportError) -> HLSStitchedRenditions {
        var stitched: [HLSStitchedVariantPlaylist] = []
        var listed: [HLSRendition] = []
        var numbers: [String: Int] = [:]
        let emptyCues = output.sibling("-empty.vtt")
        var needsEmptyCues = false
        for rendition in renditions {
            let url = output.rendition(rendition, numbers: &numbers)
            var segmentPlaylists: [HLSMediaPlaylist] = []
            for (segment, videoPiece) in zip(composition.segments, video.result.pieces) {
                if let playlist = try renditionPlaylist(of: segment.source, for: rendition, sources: sources) {
                    segmentPlaylists.append(playlist)
                } else {
                    segmentPlaylists.append(Self.emptySubtitles(through: videoPiece.sourceRange, cues: emptyCues))
                    needsEmptyCues = true
                }
            }
            let result = try stitchVariant(
                composition, playlists: segmentPlaylists, outputURL: url, anchoredTo: video, requiresOneSegmentFormat: playing == .inOneStream)
            try Self.checkAligned(result, url: url, with: video)
            stitched.append(HLSStitchedVariantPlaylist(
                url: url, contentVariant: nil, interstitialVariants: [], sourcePlaylistURLs: segmentPlaylists.map(\.url), result: result))
            listed.append(output.relisting(rendition, at: url))
        }
        let files = needsEmptyCues ? [HLSExport.File(url: emptyCues, text: "WEBVTT\n")] : []
        return HLSStitchedRenditions(playlists: stitched, listed: listed, files: files)
    }

    /// The playlist a source plays in the stitched `rendition`: the content's own rendition
    /// playlist for the first content source; for another source, its rendition of the same type
    /// and `LANGUAGE`, else `NAME`; for audio, else its default, its first, or its media playlist,
    /// whose segments carry the audio muxed. `nil` when a source has no such subtitles. A
    /// multivariant source plays its variant nearest in bandwidth to the first content variant of
    /// the rendition's group.
    mutating func renditionPlaylist(
        of source: MediaLocation, for rendition: HLSRendition, sources: HLSLoadedSources
    ) throws(HLSExportError) -> HLSMediaPlaylist? {
        let isAudio = rendition.type == "AUDIO"
        if source == sources.primary, let uri = rendition.resolvedURI { return try playlists.mediaPlaylist(at: uri) }
        switch sources.playlists[source] {
        case .media(let media)?:
            return isAudio ? media : nil
        case .multivariant(let multivariant)?:
            func group(_ variant: HLSVariantStream) -> String? { isAudio ? variant.audioGroup : variant.subtitlesGroup }
            let listing = sources.primaryVariants.first { group($0) == rendition.groupID } ?? sources.primaryVariants.first
            guard let bandwidth = listing?.bandwidth,
                  let chosen = HLSVariantMatching.nearest(toBandwidth: bandwidth, in: multivariant.variants) else {
                throw HLSExportError(.unsupported(url: multivariant.url, reason: "a multivariant playlist without variants"))
            }
            let variant = multivariant.variants[chosen]
            let own = multivariant.renditions.filter { $0.type == rendition.type && $0.groupID == group(variant) && $0.resolvedURI != nil }
            var match = own.first { $0.language != nil && $0.language == rendition.language } ?? own.first { $0.name == rendition.name }
            // Any audio beats silence; subtitles in another language do not beat none.
            if isAudio { match = match ?? own.first(where: \.isDefault) ?? own.first }
            if let uri = match?.resolvedURI { return try playlists.mediaPlaylist(at: uri) }
            return isAudio ? try playlists.mediaPlaylist(at: variant.resolvedURI) : nil
        case nil:
            return nil
        }
    }

    /// The content's audio rendition an audio-only variant plays (packagers list each audio
    /// rendition again as a variant): the one with the variant's URI, else its group's first.
    static func audioRendition(playedBy variant: HLSVariantStream, in multivariant: HLSMultivariantPlaylist) -> HLSRendition? {
        let group = multivariant.renditions.filter { $0.type == "AUDIO" && $0.groupID == variant.audioGroup }
        return group.first { $0.resolvedURI == variant.resolvedURI } ?? group.first
    }

    /// A subtitle playlist with no cues through `range`'s end: boundaries at 0, at `range.start`,
    /// and every 6 s from there (a typical target duration), so `range` is cut exactly. It plays
    /// while a source without subtitles does.
    static func emptySubtitles(through range: MediaTimeRange, cues: String) -> HLSMediaPlaylist {
        let step = MediaTime(value: 6, timescale: 1)
        var boundaries = range.start > .zero ? [MediaTime.zero, range.start] : [MediaTime.zero]
        while let last = boundaries.last, last < range.end {
            let next = (try? last.adding(step)) ?? range.end
            boundaries.append(min(next, range.end))
        }
        let segments = zip(boundaries, boundaries.dropFirst()).map { start, end in
            HLSMediaSegment(duration: end - start, uri: cues, resolvedURI: cues)
        }
        return HLSMediaPlaylist(url: cues, targetDuration: 6, playlistType: .vod, hasEndList: true, segments: segments)
    }

    /// Every cut of a rendition (or audio-only variant) within `renditionCutTolerance` of its video's.
    static func checkAligned(
        _ result: HLSStitchResult, url: String, with video: HLSStitchedVariantPlaylist
    ) throws(HLSExportError) {
        for (piece, videoPiece) in zip(result.pieces, video.result.pieces)
        where !isNear(piece.sourceRange.start, videoPiece.sourceRange.start) || !isNear(piece.sourceRange.end, videoPiece.sourceRange.end) {
            throw HLSExportError(.variantsDisagree(
                item: piece.item ?? "?", variantURL: url, range: piece.sourceRange,
                firstVariantURL: video.url, firstRange: videoPiece.sourceRange))
        }
    }

    /// Whether a rendition's cut at `time` is within `renditionCutTolerance` of its video's `videoTime`.
    static func isNear(_ time: MediaTime, _ videoTime: MediaTime) -> Bool {
        guard let later = try? videoTime.adding(renditionCutTolerance), let earlier = try? videoTime.subtracting(renditionCutTolerance) else {
            return time == videoTime
        }
        return earlier <= time && time <= later
    }
}
