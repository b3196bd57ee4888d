/// What `HLSCompositionStitcher` produced: the playlists to write, the composition that plays in
/// them, and the exact-cut queue plan of the same schedule.
public struct HLSStitchedComposition: Sendable, Equatable {
    /// The composition as scheduled (exact cuts).
    public let requested: Composition
    /// The composition that plays in the stitched playlists: every cut where it snapped, so
    /// `timeline` and mapping on it are exact for the output.
    public let composition: Composition
    /// The scheduled composition as a queue of per-segment items, as `AVQueuePlayer` plays HLS
    /// sources: cuts exact (a seek and `forwardPlaybackEndTime`), not snapped.
    public let queuePlan: QueuePlan
    /// One stitched media playlist per variant of the content (one when the content is a media playlist).
    public let variants: [HLSStitchedVariantPlaylist]
    /// The multivariant playlist listing `variants`, when the content is a multivariant playlist.
    public let multivariantPlaylist: HLSMultivariantPlaylist?
    /// Where the main playlist lives (absolute when a relative path was given).
    public let outputURL: String

    /// Every file to write, the one at `outputURL` first.
    public var files: [HLSOutputFile] {
        if let multivariantPlaylist {
            return [HLSOutputFile(url: outputURL, text: multivariantPlaylist.text)]
                + variants.map { HLSOutputFile(url: $0.url, text: $0.result.text) }
        }
        return variants.map { HLSOutputFile(url: $0.url, text: $0.result.text) }
    }

    /// Each break, where it was scheduled and where it plays.
    public var breaks: [HLSBreakPlacement] {
        zip(requested.breaks, composition.breaks).map { asked, plays in
            HLSBreakPlacement(
                id: plays.id, requestedPosition: asked.position, position: plays.position,
                requestedCompositionRange: asked.compositionRange, compositionRange: plays.compositionRange)
        }
    }

    /// The segments whose source range moved to segment boundaries, with both ranges.
    public var movedCuts: [(segment: Segment, requested: MediaTimeRange)] {
        zip(composition.segments, requested.segments).compactMap { plays, asked in
            plays.sourceRange == asked.sourceRange ? nil : (plays, asked.sourceRange)
        }
    }
}

/// One stitched media playlist.
public struct HLSStitchedVariantPlaylist: Sendable, Equatable {
    /// Where it lives: `outputURL`, or beside it (`stitched-0.m3u8`) under a multivariant playlist.
    public let url: String
    /// The content variant it was made from; `nil` when the content is a media playlist.
    public let contentVariant: HLSVariantStream?
    /// The variants chosen from the other multivariant sources (ads nearest in bandwidth).
    public let interstitialVariants: [HLSVariantStream]
    /// For each composition segment, the media playlist its segments come from.
    public let sourcePlaylistURLs: [String]
    /// The engine's result: the playlist, its text, and where each piece and marker landed.
    public let result: HLSStitchResult
}

/// A playlist to write.
public struct HLSOutputFile: Sendable, Equatable {
    public let url: String
    public let text: String

    /// The last path component of `url`: the file's name in the output folder.
    public var name: String { String(url.split(separator: "/").last ?? Substring(url)) }
}

/// A break as scheduled and as it plays in the stitched output.
public struct HLSBreakPlacement: Sendable, Equatable {
    public let id: String
    /// The content time the schedule put it at.
    public let requestedPosition: MediaTime
    /// The content time it plays at: the segment boundary the cut before it snapped to.
    public let position: MediaTime
    public let requestedCompositionRange: MediaTimeRange
    public let compositionRange: MediaTimeRange

    /// Whether snapping moved it.
    public var moved: Bool { requestedPosition != position || requestedCompositionRange != compositionRange }
}
