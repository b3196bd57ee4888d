import CompositorCore

/// Joins ranges of media playlists into one media playlist that any HLS client plays as one item.
///
/// Each piece's cut points snap to segment boundaries of its source (a playlist can only carry
/// whole segments), and the result reports where every piece really is, in source and in
/// composition time, so a caller can rebuild an exact timeline for what plays.
///
/// The output has `EXT-X-DISCONTINUITY` at every switch between pieces (and only where the sources
/// already had one inside a piece), `EXT-X-MAP` and `EXT-X-KEY` again after every discontinuity, a
/// target duration recomputed from the segments, media and discontinuity sequences 0,
/// `EXT-X-PROGRAM-DATE-TIME` at the start of every piece (when an anchor is given), one
/// `EXT-X-DATERANGE` per marker group, `EXT-X-ENDLIST`, and the lowest `EXT-X-VERSION` its tags need.
/// URIs are written relative to the output URL where they can be.
///
/// ```swift
/// let stitcher = HLSStitcher(outputURL: "file:///out/stitched.m3u8", programDateTime: "2024-05-01T12:00:00Z")
/// let result = try stitcher.stitch([contentPiece, adPiece, contentPiece2])
/// result.pieces[1].compositionRange   // where the ad really plays
/// ```
package struct HLSStitcher: Sendable {
    /// Where the stitched playlist will live: URIs are written relative to it.
    package var outputURL: String
    /// The wall-clock time of composition time 0 (ISO 8601), for `EXT-X-PROGRAM-DATE-TIME` and
    /// the `START-DATE` of markers; `nil` writes neither (and then markers are an error).
    package var programDateTime: String?
    package var snapping: HLSCutSnapping
    /// Whether every piece must have one segment format, as one playlist needs. Off only where
    /// the pieces are played as separate items (interstitials), so the stitch decides cuts only.
    package var requiresOneSegmentFormat = true
    /// Cue markers written around each marker group, beside its date range.
    package var cueMarkers: Set<HLSCueMarker> = []

    package init(outputURL: String, programDateTime: String? = nil, snapping: HLSCutSnapping = .nearest) {
        self.outputURL = outputURL
        self.programDateTime = programDateTime
        self.snapping = snapping
    }

    package func stitch(_ pieces: [HLSStitchPiece]) throws(HLSStitchError) -> HLSStitchResult {
        try stitchPieces(pieces)
    }

    /// `body`, with a time overflow reported as the stitch's error.
    private static func time<T>(_ body: () throws(MediaTimeError) -> T) throws(HLSStitchError) -> T {
        do { return try body() } catch { throw .timeOverflow(error) }
    }

    private func stitchPieces(_ pieces: [HLSStitchPiece]) throws(HLSStitchError) -> HLSStitchResult {
        var anchor: HLSDateTime?
        if let text = programDateTime {
            do { anchor = try HLSDateTime(parsing: text) } catch {
                throw HLSStitchError.invalidProgramDateTime(text: text, reason: error.reason)
            }
        }
        var output = Growing()
        var placed: [HLSStitchedPiece] = []
        var dropped: [HLSDroppedPiece] = []
        var allIndependent = true
        // The content's own date ranges kept so far: their IDs, and the piece that first kept each.
        var keptIDs: [String: Int] = [:]

        for (index, piece) in pieces.enumerated() {
            let source = piece.playlist
            let (boundaries, first, last) = try snappedSegments(of: piece, index: index)
            let snapped = MediaTimeRange(start: boundaries[first], end: boundaries[max(first, last)])
            guard last > first else {
                dropped.append(HLSDroppedPiece(
                    index: index, item: piece.item, url: source.url, requestedSourceRange: piece.sourceRange, snappedSourceRange: snapped))
                continue
            }
            allIndependent = allIndependent && source.hasIndependentSegments
            let pieceStart = output.compositionTime
            let firstOutput = output.segments.count
            try append(first..<last, of: piece, index: index, switching: !placed.isEmpty, anchor: anchor, to: &output)
            if piece.kind == .content, let anchor {
                try keepDateRanges(
                    of: source, boundaries: boundaries, kept: first..<last, at: pieceStart, anchor: anchor,
                    into: &output.segments, firstOutput: firstOutput, piece: index, keptIDs: &keptIDs)
            }
            placed.append(HLSStitchedPiece(
                index: index, item: piece.item, kind: piece.kind, markerID: piece.marker?.id, url: source.url,
                requestedSourceRange: piece.sourceRange, sourceRange: snapped,
                compositionRange: MediaTimeRange(start: pieceStart, end: output.compositionTime),
                plannedCompositionStart: piece.plannedCompositionStart, segments: firstOutput..<output.segments.count))
        }
        guard !placed.isEmpty else { throw HLSStitchError.nothingToStitch }

        var segments = output.segments
        let markers = try markerGroups(placed: placed, pieces: pieces, anchor: anchor)
        for marker in markers {
            if let piece = keptIDs[marker.id] { throw HLSStitchError.dateRangeIDTaken(id: marker.id, piece: piece) }
        }
        for (number, marker) in markers.enumerated() {
            segments[marker.segments.lowerBound].dateRanges.append(marker.dateRange)
            try addCueMarkers(to: &segments, marker: marker, eventID: UInt32(truncatingIfNeeded: number + 1))
        }
        let longest = segments.map(\.duration.roundedToNearestSecond).max() ?? 0
        let playlist = HLSMediaPlaylist(
            url: outputURL, version: HLSStitcher.requiredVersion(for: segments), targetDuration: max(1, longest),
            mediaSequence: 0, discontinuitySequence: 0, playlistType: .vod, hasEndList: true,
            hasIndependentSegments: allIndependent, segments: segments)
        return HLSStitchResult(
            playlist: playlist, text: playlist.text, pieces: placed, droppedPieces: dropped, markers: markers,
            duration: output.compositionTime)
    }

    /// The stitched playlist's segments as they are appended, and the composition time at their end.
    private struct Growing {
        var segments: [HLSMediaSegment] = []
        var compositionTime = MediaTime.zero
        /// The segment format so far, which every piece must share when `requiresOneSegmentFormat`.
        var format: HLSSegmentFormat?
    }

    /// A piece's source checked, its segment boundaries, and the segments its cuts snap to
    /// (`first..<last`, empty when snapping leaves nothing).
    private func snappedSegments(
        of piece: HLSStitchPiece, index: Int
    ) throws(HLSStitchError) -> (boundaries: [MediaTime], first: Int, last: Int) {
        let source = piece.playlist
        guard source.isFinite else { throw HLSStitchError.sourceNotFinite(piece: index, url: source.url) }
        guard !source.isIFramesOnly else {
            throw HLSStitchError.unsupportedSource(piece: index, url: source.url, reason: "I-frame playlists cannot be stitched")
        }
        guard !piece.sourceRange.start.isNegative else {
            throw HLSStitchError.invalidSourceRange(piece: index, range: piece.sourceRange)
        }
        let boundaries = try HLSStitcher.time { () throws(MediaTimeError) in try source.segmentBoundaries }
        let (first, last) = HLSStitcher.snap(
            piece.sourceRange, to: boundaries, start: piece.startSnapping ?? snapping, end: piece.endSnapping ?? snapping)
        return (boundaries, first, last)
    }

    /// Appends segments `range` of `piece`'s source, URIs relative to the output, a discontinuity
    /// where the piece starts (`switching`: after another piece) and where its source has one.
    private func append(
        _ range: Range<Int>, of piece: HLSStitchPiece, index: Int, switching: Bool, anchor: HLSDateTime?, to output: inout Growing
    ) throws(HLSStitchError) {
        let source = piece.playlist
        for sourceIndex in range {
            let original = source.segments[sourceIndex]
            let segmentFormat = HLSSegmentFormat(segment: original)
            if requiresOneSegmentFormat, let format = output.format, format != segmentFormat {
                throw HLSStitchError.incompatibleSegmentFormats(piece: index, url: source.url, format: segmentFormat, expected: format)
            }
            output.format = segmentFormat
            let startsPiece = sourceIndex == range.lowerBound
            var segment = original
            segment.uri = URIReference.relativize(original.resolvedURI, from: outputURL)
            // A switch between pieces is a discontinuity; inside a piece, only the source's own are kept.
            segment.isDiscontinuity = startsPiece ? switching : original.isDiscontinuity
            segment.map = original.map.map(relocated)
            segment.keys = original.keys.map(relocated)
            let startTime = output.compositionTime
            segment.programDateTime = startsPiece ? try HLSStitcher.time { () throws(MediaTimeError) in try anchor?.adding(startTime) } : nil
            // Content keeps its cue tags and unknown (vendor) tags, which travel with their
            // segments, and its date ranges, moved to the stitched clock by `keepDateRanges`; an
            // ad's own markers would mark the content wrongly.
            segment.dateRanges = []
            if piece.kind != .content {
                segment.cueOut = nil
                segment.cueOutContinuation = nil
                segment.cueIn = nil
                segment.unknownLines = []
            }
            output.segments.append(segment)
            output.compositionTime = try HLSStitcher.time { () throws(MediaTimeError) in try startTime.adding(original.duration) }
        }
    }

    /// One date range per marker group, over the composition range of the group's placed pieces.
    private func markerGroups(
        placed: [HLSStitchedPiece], pieces: [HLSStitchPiece], anchor: HLSDateTime?
    ) throws(HLSStitchError) -> [HLSStitchedMarker] {
        var groups: [(marker: HLSStitchMarker, pieces: [Int], range: MediaTimeRange, segments: Range<Int>)] = []
        var previousID: String?
        for piece in placed {
            defer { previousID = piece.markerID }
            guard let marker = pieces[piece.index].marker else { continue }
            if let last = groups.last, last.marker.id == marker.id {
                guard previousID == marker.id else { throw HLSStitchError.markerGroupSplit(id: marker.id, piece: piece.index) }
                guard last.marker == marker else { throw HLSStitchError.conflictingMarker(id: marker.id, piece: piece.index) }
                groups[groups.count - 1].pieces.append(piece.index)
                groups[groups.count - 1].range = MediaTimeRange(start: last.range.start, end: piece.compositionRange.end)
                groups[groups.count - 1].segments = last.segments.lowerBound..<piece.segments.upperBound
            } else {
                if groups.contains(where: { $0.marker.id == marker.id }) {
                    throw HLSStitchError.markerGroupSplit(id: marker.id, piece: piece.index)
                }
                groups.append((marker, [piece.index], piece.compositionRange, piece.segments))
            }
        }
        return try groups.map { (group) throws(HLSStitchError) in
            guard let anchor else { throw HLSStitchError.markerNeedsProgramDateTime(id: group.marker.id) }
            let dateRange = HLSDateRange(
                id: group.marker.id, class: group.marker.className,
                startDate: try HLSStitcher.time { () throws(MediaTimeError) in try anchor.adding(group.range.start) },
                duration: group.range.duration, clientAttributes: group.marker.attributes)
            return HLSStitchedMarker(
                id: group.marker.id, compositionRange: group.range, pieces: group.pieces, segments: group.segments, dateRange: dateRange)
        }
    }

    /// Keeps a content piece's own date ranges that start in it (by the source's program
    /// date-times), their `START-DATE` and `END-DATE` moved to the stitched clock, each on the
    /// output segment where it starts. A tag without `START-DATE` (an `SCTE35-IN` following its
    /// `SCTE35-OUT`) stays on its segment when that is kept. Content played twice keeps its date
    /// ranges twice, the second time with `-2` after their IDs (one ID, one set of attributes).
    private func keepDateRanges(
        of source: HLSMediaPlaylist, boundaries: [MediaTime], kept: Range<Int>, at pieceStart: MediaTime, anchor: HLSDateTime,
        into segments: inout [HLSMediaSegment], firstOutput: Int, piece: Int, keptIDs: inout [String: Int]
    ) throws(HLSStitchError) {
        let clock = try HLSStitcher.time { () throws(MediaTimeError) in try source.dateClock }
        var renamed: [String: String] = [:]
        for (sourceIndex, segment) in source.segments.enumerated() {
            for range in segment.dateRanges {
                var moved = range
                var at = boundaries[sourceIndex]
                if let start = range.startDate {
                    guard let clock else { continue }
                    at = try HLSStitcher.time { () throws(MediaTimeError) in try clock.time(of: start) }
                    guard boundaries[kept.lowerBound] <= at, at < boundaries[kept.upperBound] else { continue }
                    let (newStart, newEnd) = try HLSStitcher.time { () throws(MediaTimeError) in
                        let compositionTime = try pieceStart.adding(try at.subtracting(boundaries[kept.lowerBound]))
                        let newStart = try anchor.adding(compositionTime)
                        return (newStart, try range.endDate.map { end throws(MediaTimeError) in
                            try newStart.adding(try end.secondsSinceEpoch.subtracting(start.secondsSinceEpoch)) })
                    }
                    moved.attributes["START-DATE"] = .quotedString(newStart.description)
                    if let newEnd { moved.attributes["END-DATE"] = .quotedString(newEnd.description) }
                } else if !kept.contains(sourceIndex) {
                    continue
                }
                let id = range.id
                let newID: String
                if let known = renamed[id] {
                    newID = known
                } else {
                    var candidate = id, count = 1
                    while keptIDs[candidate] != nil { count += 1; candidate = "\(id)-\(count)" }
                    (newID, renamed[id], keptIDs[candidate]) = (candidate, candidate, piece)
                }
                moved.attributes["ID"] = .quotedString(newID)
                let containing = min(max(HLSStitcher.atOrBefore(at, boundaries), kept.lowerBound), kept.upperBound - 1)
                segments[firstOutput + containing - kept.lowerBound].dateRanges.append(moved)
            }
        }
    }

    /// `cueMarkers` for one marker group; the in markers go on the segment after it, when there is one.
    private func addCueMarkers(to segments: inout [HLSMediaSegment], marker: HLSStitchedMarker, eventID: UInt32) throws(HLSStitchError) {
        let span = marker.segments
        let duration = marker.compositionRange.duration
        if cueMarkers.contains(.cueTags) {
            segments[span.lowerBound].cueOut = HLSCueTag(value: "DURATION=" + duration.hlsDecimalString)
            var elapsed = segments[span.lowerBound].duration
            for index in span.dropFirst() {
                segments[index].cueOutContinuation = HLSCueTag(
                    value: "ElapsedTime=\(elapsed.hlsDecimalString),Duration=\(duration.hlsDecimalString)")
                let before = elapsed
                elapsed = try HLSStitcher.time { () throws(MediaTimeError) in try before.adding(segments[index].duration) }
            }
            if span.upperBound < segments.count { segments[span.upperBound].cueIn = HLSCueTag(value: nil) }
        }
        if cueMarkers.contains(.scte35) {
            let ticks = try HLSStitcher.time { () throws(MediaTimeError) in try duration.converted(to: 90_000, rounding: .toNearestOrAwayFromZero) }
            let out = SCTE35SpliceInsert(eventID: eventID, outOfNetwork: true, breakDuration: UInt64(clamping: ticks.value))
            let index = segments[span.lowerBound].dateRanges.count - 1
            segments[span.lowerBound].dateRanges[index].attributes["SCTE35-OUT"] = .hexadecimal(out.hexDigits)
            if span.upperBound < segments.count {
                var attributes = HLSAttributeList()
                attributes["ID"] = .quotedString(marker.id)
                attributes["START-DATE"] = marker.dateRange.attributes["START-DATE"]
                let back = SCTE35SpliceInsert(eventID: eventID, outOfNetwork: false)
                attributes["SCTE35-IN"] = .hexadecimal(back.hexDigits)
                segments[span.upperBound].dateRanges.append(HLSDateRange(attributes: attributes))
            }
        }
    }

    /// The map with its `URI` written relative to the output.
    private func relocated(_ map: HLSMap) -> HLSMap {
        var map = map
        map.attributes["URI"] = .quotedString(URIReference.relativize(map.resolvedURI, from: outputURL))
        return map
    }

    private func relocated(_ key: HLSKey) -> HLSKey {
        guard let resolved = key.resolvedURI else { return key }
        var key = key
        key.attributes["URI"] = .quotedString(URIReference.relativize(resolved, from: outputURL))
        return key
    }

    /// The boundary indices a range's start and end snap to; `boundaries` is `[0, ..., total]`.
    package static func snap(_ range: MediaTimeRange, to boundaries: [MediaTime], rule: HLSCutSnapping) -> (start: Int, end: Int) {
        snap(range, to: boundaries, start: rule, end: rule)
    }

    /// The same, with a rule for each cut.
    package static func snap(
        _ range: MediaTimeRange, to boundaries: [MediaTime], start: HLSCutSnapping, end: HLSCutSnapping
    ) -> (start: Int, end: Int) {
        (snap(range.start, to: boundaries, rule: start, isStart: true), snap(range.end, to: boundaries, rule: end, isStart: false))
    }

    /// The boundary index one cut snaps to; `covering` and `within` move a start and an end opposite ways.
    static func snap(_ t: MediaTime, to boundaries: [MediaTime], rule: HLSCutSnapping, isStart: Bool) -> Int {
        switch rule {
        case .nearest: return nearest(t, boundaries)
        case .next: return atOrAfter(t, boundaries)
        case .previous: return atOrBefore(t, boundaries)
        case .covering: return isStart ? atOrBefore(t, boundaries) : atOrAfter(t, boundaries)
        case .within: return isStart ? atOrAfter(t, boundaries) : atOrBefore(t, boundaries)
        }
    }

    /// The first index whose boundary is at or after `t` (the last index when none is).
    static func atOrAfter(_ t: MediaTime, _ boundaries: [MediaTime]) -> Int {
        boundaries.dropLast().partitioningIndex { $0 >= t }
    }

    static func atOrBefore(_ t: MediaTime, _ boundaries: [MediaTime]) -> Int {
        let after = atOrAfter(t, boundaries)
        return boundaries[after] > t && after > 0 ? after - 1 : after
    }

    /// The nearest boundary; halfway between two goes to the earlier. Decided exactly, without
    /// subtracting: `t` and the boundaries may share no timescale within `Int32` (a cut at
    /// `1/2147483647` against `EXTINF` decimals).
    static func nearest(_ t: MediaTime, _ boundaries: [MediaTime]) -> Int {
        let after = atOrAfter(t, boundaries)
        guard after > 0, boundaries[after] > t else { return after }
        return MediaTime.signOfOffset(t, fromMidpointOf: boundaries[after - 1], and: boundaries[after]) > 0 ? after : after - 1
    }

    /// The lowest protocol version that carries these segments' tags (RFC 8216 section 7).
    static func requiredVersion(for segments: [HLSMediaSegment]) -> Int64 {
        var version: Int64 = 3  // decimal EXTINF durations
        for segment in segments {
            if segment.byteRange != nil { version = max(version, 4) }
            if segment.map != nil { version = max(version, 6) }
            for key in segment.keys {
                if key.method == "SAMPLE-AES" || key.method == "SAMPLE-AES-CTR" || key.attributes["KEYFORMAT"] != nil
                    || key.attributes["KEYFORMATVERSIONS"] != nil {
                    version = max(version, 5)
                }
            }
        }
        return version
    }
}
