import CompositorCore

/// A media playlist: the list of segments of one rendition.
///
/// Parse with `HLSPlaylistParser` (or `HLSMediaPlaylist(parsing:url:)`), write with `text`.
/// Parsing the written text gives back an equal value.
package struct HLSMediaPlaylist: Hashable, Sendable {
    /// The playlist's own URL: the base every relative URI in it was resolved against.
    package var url: String
    /// `EXT-X-VERSION`, when present.
    package var version: Int64?
    /// `EXT-X-TARGETDURATION`: every `EXTINF`, rounded to the nearest integer, is at most this.
    package var targetDuration: Int64
    /// `EXT-X-MEDIA-SEQUENCE`, when present (absent means 0).
    package var mediaSequence: UInt64?
    /// `EXT-X-DISCONTINUITY-SEQUENCE`, when present (absent means 0).
    package var discontinuitySequence: UInt64?
    /// `EXT-X-PLAYLIST-TYPE`, when present.
    package var playlistType: HLSPlaylistType?
    /// `EXT-X-ENDLIST`: no segments will be added.
    package var hasEndList: Bool
    /// `EXT-X-I-FRAMES-ONLY`.
    package var isIFramesOnly: Bool
    /// `EXT-X-INDEPENDENT-SEGMENTS`.
    package var hasIndependentSegments: Bool
    /// `EXT-X-START`, when present.
    package var start: HLSStart?
    package var segments: [HLSMediaSegment]
    /// Unknown tags and comments before the first segment's own lines, kept verbatim.
    package var headerLines: [String]
    /// Lines after the last segment that belong to no segment (unknown tags, comments, and tags that
    /// would apply to a next segment that is not there yet, such as a final `EXT-X-CUE-IN`), verbatim.
    package var trailingLines: [String]

    package init(
        url: String, version: Int64? = nil, targetDuration: Int64, mediaSequence: UInt64? = nil,
        discontinuitySequence: UInt64? = nil, playlistType: HLSPlaylistType? = nil, hasEndList: Bool = false,
        isIFramesOnly: Bool = false, hasIndependentSegments: Bool = false, start: HLSStart? = nil,
        segments: [HLSMediaSegment] = [], headerLines: [String] = [], trailingLines: [String] = []
    ) {
        self.url = url
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.playlistType = playlistType
        self.hasEndList = hasEndList
        self.isIFramesOnly = isIFramesOnly
        self.hasIndependentSegments = hasIndependentSegments
        self.start = start
        self.segments = segments
        self.headerLines = headerLines
        self.trailingLines = trailingLines
    }

    /// Parses a media playlist; a multivariant playlist is an error.
    package init(parsing bytes: [UInt8], url: String, limits: HLSParseLimits = .default) throws(HLSParseError) {
        self = try HLSPlaylistParser(limits: limits).parseMediaPlaylist(bytes, url: url)
    }

    /// Whether the playlist is complete: it has `EXT-X-ENDLIST` or is of type `VOD`. A playlist that
    /// is not may still grow (live or event), so it has no natural duration.
    package var isFinite: Bool { hasEndList || playlistType == .vod }

    /// The exact sum of the `EXTINF` durations.
    package var totalDuration: MediaTime {
        get throws(MediaTimeError) {
            var total = MediaTime.zero
            for segment in segments { total = try total.adding(segment.duration) }
            return total
        }
    }

    /// Segment boundaries in playlist time, from 0: `[0, d0, d0 + d1, ...]`, one more than the segments.
    package var segmentBoundaries: [MediaTime] {
        get throws(MediaTimeError) {
            var boundaries = [MediaTime.zero]
            boundaries.reserveCapacity(segments.count + 1)
            var total = MediaTime.zero
            for segment in segments {
                total = try total.adding(segment.duration)
                boundaries.append(total)
            }
            return boundaries
        }
    }

    /// The playlist as canonical text.
    package var text: String { HLSPlaylistWriter.write(self) }
}
