import CompositorCore

/// One input of the stitched-playlist engine: a range of a media playlist to play at a place.
///
/// The engine knows nothing of ads as policy; a piece is `content` or `interstitial` only so the
/// report can say which is which.
package struct HLSStitchPiece: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable {
        case content
        case interstitial
    }

    /// The source media playlist (its `url` is where its URIs resolve).
    package var playlist: HLSMediaPlaylist
    /// The range wanted, in the playlist's own time: 0 is the start of its first segment.
    package var sourceRange: MediaTimeRange
    package var kind: Kind
    /// The marker group this piece belongs to; consecutive pieces with the same marker ID (an ad pod,
    /// say) share one `EXT-X-DATERANGE`.
    package var marker: HLSStitchMarker?
    /// Where the caller's plan puts the piece on the stitched timeline; the report compares it with
    /// where the piece really starts after snapping.
    package var plannedCompositionStart: MediaTime
    /// The rule for the start cut when it is not the stitcher's (a cut next to a break with its own rule).
    package var startSnapping: HLSCutSnapping?
    /// The rule for the end cut when it is not the stitcher's.
    package var endSnapping: HLSCutSnapping?
    /// What the piece plays in the caller's terms (a schedule item's ID): the report and the
    /// caller's errors name it, so no one maps a piece back to its item by position.
    package var item: String?

    package init(
        playlist: HLSMediaPlaylist, sourceRange: MediaTimeRange, kind: Kind, marker: HLSStitchMarker? = nil,
        plannedCompositionStart: MediaTime, startSnapping: HLSCutSnapping? = nil, endSnapping: HLSCutSnapping? = nil,
        item: String? = nil
    ) {
        self.item = item
        self.playlist = playlist
        self.sourceRange = sourceRange
        self.kind = kind
        self.marker = marker
        self.plannedCompositionStart = plannedCompositionStart
        self.startSnapping = startSnapping
        self.endSnapping = endSnapping
    }
}

/// The `EXT-X-DATERANGE` a group of pieces is marked with.
package struct HLSStitchMarker: Hashable, Sendable {
    /// The date range's `ID`; pieces with the same ID form one group.
    package var id: String
    /// `CLASS` (for example `"com.apple.hls.interstitial"` or a reverse-DNS ad class).
    package var className: String?
    /// Further attributes, normally client-defined `X-` ones (`X-AD-ID="a1"`).
    package var attributes: [HLSAttribute]

    package init(id: String, className: String? = nil, attributes: [HLSAttribute] = []) {
        self.id = id
        self.className = className
        self.attributes = attributes
    }
}

/// How a requested cut moves to a segment boundary of its source, since a playlist can only
/// start and end at whole segments.
///
/// ```
/// segments   0 ------- 9 -------- 18 ---   a break asked at 13
/// nearest              ^                   lands at 9 (4 away, against 5)
/// next                            ^        lands at 18
/// previous             ^                   lands at 9
/// ```
public enum HLSCutSnapping: Sendable, Equatable {
    /// Each cut moves to the nearest boundary; a cut exactly between two goes to the earlier one.
    case nearest
    /// Each cut moves to the first boundary at or after it: a break plays at the next boundary
    /// (hls-splice's rule), the content before it plays up to there.
    case next
    /// Each cut moves to the last boundary at or before it: a break plays at the previous boundary.
    case previous
    /// Start moves earlier and end later: everything requested plays, and maybe more.
    case covering
    /// Start moves later and end earlier: nothing unrequested plays, maybe less.
    case within
}

/// Where a piece really landed.
package struct HLSStitchedPiece: Sendable, Equatable {
    /// The piece's index in the input.
    package let index: Int
    /// The piece's `item`.
    package let item: String?
    package let kind: HLSStitchPiece.Kind
    package let markerID: String?
    package let url: String
    package let requestedSourceRange: MediaTimeRange
    /// The source range that plays: the requested one snapped to segment boundaries.
    package let sourceRange: MediaTimeRange
    /// Where it plays in the stitched playlist.
    package let compositionRange: MediaTimeRange
    package let plannedCompositionStart: MediaTime
    /// The indices of its segments in the stitched playlist.
    package let segments: Range<Int>

    /// How much later than planned the piece starts (negative: earlier).
    package var drift: MediaTime { compositionRange.start - plannedCompositionStart }
}

/// A piece left out because its snapped range is empty (shorter than half a segment, say, or past
/// the end of its playlist).
package struct HLSDroppedPiece: Sendable, Equatable {
    package let index: Int
    /// The piece's `item`.
    package let item: String?
    package let url: String
    package let requestedSourceRange: MediaTimeRange
    /// The empty range it snapped to.
    package let snappedSourceRange: MediaTimeRange
}

/// One marker group as written: its `EXT-X-DATERANGE` and where the group plays.
package struct HLSStitchedMarker: Sendable, Equatable {
    package let id: String
    package let compositionRange: MediaTimeRange
    /// The indices of the input pieces in the group that were placed.
    package let pieces: [Int]
    /// The group's segments in the output playlist.
    package let segments: Range<Int>
    package let dateRange: HLSDateRange
}

/// What the engine produced.
package struct HLSStitchResult: Sendable, Equatable {
    /// The stitched media playlist (its `url` is the output URL).
    package let playlist: HLSMediaPlaylist
    /// `playlist` as text.
    package let text: String
    /// The placed pieces, in order.
    package let pieces: [HLSStitchedPiece]
    package let droppedPieces: [HLSDroppedPiece]
    package let markers: [HLSStitchedMarker]
    /// The stitched playlist's duration: the exact sum of its `EXTINF`.
    package let duration: MediaTime

    /// The same stitch with its playlist changed by `change`, the text written again: for
    /// segments written beside the playlist in place of the sources'.
    package func changingPlaylist(_ change: (inout HLSMediaPlaylist) -> Void) -> HLSStitchResult {
        var relocated = playlist
        change(&relocated)
        return HLSStitchResult(
            playlist: relocated, text: relocated.text, pieces: pieces, droppedPieces: droppedPieces, markers: markers, duration: duration)
    }
}

/// Why pieces could not be stitched.
package enum HLSStitchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No pieces, or every piece snapped to nothing.
    case nothingToStitch
    /// A piece's playlist may still grow, so its range cannot be trusted to exist.
    case sourceNotFinite(piece: Int, url: String)
    /// A piece's source range starts before 0.
    case invalidSourceRange(piece: Int, range: MediaTimeRange)
    /// A source this engine does not stitch (an I-frame playlist).
    case unsupportedSource(piece: Int, url: String, reason: String)
    /// Segments of formats one playlist cannot carry together (MPEG-TS after fragmented MP4, say).
    case incompatibleSegmentFormats(piece: Int, url: String, format: HLSSegmentFormat, expected: HLSSegmentFormat)
    /// Markers need a program date-time anchor: `EXT-X-DATERANGE` requires a `START-DATE`.
    case markerNeedsProgramDateTime(id: String)
    /// The program date-time anchor is not an ISO 8601 date-time.
    case invalidProgramDateTime(text: String, reason: String)
    /// Pieces of one marker group are not next to each other.
    case markerGroupSplit(id: String, piece: Int)
    /// Pieces of one marker group give different attributes.
    case conflictingMarker(id: String, piece: Int)
    /// A content piece's own date range has a marker's ID (RFC 8216: one ID, one set of attributes).
    case dateRangeIDTaken(id: String, piece: Int)
    case timeOverflow(MediaTimeError)

    package var description: String {
        switch self {
        case .nothingToStitch: return "nothing to stitch: no pieces, or all of them snapped to empty ranges"
        case .sourceNotFinite(let piece, let url):
            return "piece \(piece) (\(url)): a live playlist (no EXT-X-ENDLIST, not VOD) cannot be stitched"
        case .invalidSourceRange(let piece, let range): return "piece \(piece): source range \(range) starts before 0"
        case .unsupportedSource(let piece, let url, let reason): return "piece \(piece) (\(url)): \(reason)"
        case .incompatibleSegmentFormats(let piece, let url, let format, let expected):
            return "piece \(piece) (\(url)) has \(format) segments, but the playlist already carries \(expected) segments; one playlist cannot mix them"
        case .markerNeedsProgramDateTime(let id):
            return "marker \(quoted(id)) needs a program date-time anchor (EXT-X-DATERANGE requires START-DATE)"
        case .invalidProgramDateTime(let text, let reason): return "program date-time anchor \(quoted(text)): \(reason)"
        case .markerGroupSplit(let id, let piece): return "marker group \(quoted(id)) is split: piece \(piece) is not next to the others"
        case .conflictingMarker(let id, let piece): return "piece \(piece) gives marker \(quoted(id)) other attributes than the group's first piece"
        case .dateRangeIDTaken(let id, let piece):
            return "piece \(piece) keeps its own date range \(quoted(id)), the ID of a marker too; give the marker another ID"
        case .timeOverflow(let error): return error.description
        }
    }
}

extension HLSStitchResult {
    /// The result with `dateRanges` added to its playlist, each on the segment where it starts
    /// (the last segment starting at or before `start`; a date range applies by its `START-DATE`,
    /// wherever it is written, but players and readers look for it near its time), text rewritten.
    package func addingDateRanges(_ dateRanges: [(dateRange: HLSDateRange, start: MediaTime)]) throws(MediaTimeError) -> HLSStitchResult {
        var playlist = self.playlist
        let starts = try playlist.segmentBoundaries.dropLast()
        for (dateRange, start) in dateRanges {
            let index = starts.lastIndex { $0 <= start } ?? 0
            playlist.segments[index].dateRanges.append(dateRange)
        }
        return HLSStitchResult(
            playlist: playlist, text: playlist.text, pieces: pieces, droppedPieces: droppedPieces, markers: markers,
            duration: duration)
    }
}
