extension Composition {
    /// The composition that really plays when each segment's source range is moved to `actual`
    /// (cuts snapped to keyframes or segment boundaries by a stitcher): segments back to back again,
    /// content times re-derived clip by clip, each break placed where the content before it now
    /// ends. The mapping stays exact for what plays.
    ///
    /// ```
    /// asked     |C 0-10   |ad 0-5|C 10-20  |     a break at content 10
    /// actual    |C 0-9.6  |ad 0-5|C 9.6-20 |     the cut snapped to 9.6
    /// reported  the break at content 9.6; composition 0 9.6 14.6 25
    /// ```
    ///
    /// `actual` has one range per segment, in order (another count is an error). A range that is
    /// empty is an error naming the item, and so is one that makes a clip's pieces overlap or run
    /// backwards (`ScheduleError.overlappingPieces`). The new composition's timescale is chosen
    /// from the actual ranges by the rule `timescale` states (their times are rounded, and
    /// reported, only when they share no timescale within `Int32`). Ranges all as they were, where
    /// no break replaces content, give the composition itself, timescale and all (a sample-accurate
    /// render moves nothing, and a composition of 10,000 breaks is megabytes).
    ///
    /// - Parameter requested: The source range each segment really plays (`actual` above): one per
    ///   segment, in order.
    /// - Returns: The composition of those ranges.
    /// - Throws: `ScheduleError.sourceRangeCount` for another count of ranges, `.overlappingPieces`
    ///   for pieces that overlap or run backwards, or another `ScheduleError` for a range that cannot
    ///   be placed (empty, or overflowing).
    public func replacingSourceRanges(_ requested: [MediaTimeRange]) throws(ScheduleError) -> Composition {
        guard requested.count == segments.count else { throw .sourceRangeCount(given: requested.count, segments: segments.count) }
        if breaks.allSatisfy({ $0.resumeContentTime == $0.position }),
           zip(segments, requested).allSatisfy({ $0.sourceRange.start.isIdentical(to: $1.start) && $0.sourceRange.end.isIdentical(to: $1.end) }) {
            return self
        }
        var diagnostics = self.diagnostics
        // Where each clip keeps its anchor: a break replaced content before its first piece (a
        // pre-roll's or a clip-edge break's `resumeOffset`). That content is still content time,
        // so the clip's content time stays counted from the source time it was asked to start at.
        var keptAnchors: [String: MediaTime] = [:], seenClips: Set<String> = []
        var previousContentEnd = MediaTime(value: 0, timescale: timescale)
        for segment in segments {
            guard case .content(let clipID) = segment.role else { continue }
            if seenClips.insert(clipID).inserted, segment.contentRange.start > previousContentEnd {
                keptAnchors[clipID] = try Composition.subtract(
                    segment.sourceRange.start, try Composition.subtract(segment.contentRange.start, previousContentEnd, item: clipID), item: clipID)
            }
            previousContentEnd = segment.contentRange.end
        }
        var times: [MediaTime] = []
        times.reserveCapacity(2 * requested.count + keptAnchors.count + 2)
        for range in requested {
            times.append(range.start)
            times.append(range.end)
        }
        times += keptAnchors.values
        // Content replaced after the last piece (a break whose `resumeOffset` runs to the end).
        let replacedAtEnd = try Composition.subtract(contentDuration, previousContentEnd, item: "content")
        times.append(replacedAtEnd)
        let grid = TimeGrid(times)
        var actual: [MediaTimeRange] = []
        actual.reserveCapacity(requested.count)
        for (segment, range) in zip(segments, requested) {
            guard !range.isEmpty else { throw .emptyRange(item: segment.id, start: range.start, end: range.end) }
            actual.append(try Composition.place(
                range, on: grid, item: segment.id, fields: ("actual start", "actual end"), diagnostics: &diagnostics))
        }
        let zero = MediaTime(value: 0, timescale: grid.timescale)
        // Each clip's pieces as they now are: its first piece's start anchors its content time,
        // or the anchor it keeps (above).
        var clipStart: [String: MediaTime] = [:], clipEnd: [String: MediaTime] = [:], clipOrder: [String] = []
        for (segment, range) in zip(segments, actual) {
            guard case .content(let clipID) = segment.role else { continue }
            if let end = clipEnd[clipID], range.start < end {
                throw .overlappingPieces(item: clipID, end: end, nextStart: range.start)
            }
            if clipStart[clipID] == nil {
                clipStart[clipID] = try keptAnchors[clipID].map { (anchor) throws(ScheduleError) in
                    try grid.place(anchor, item: clipID, field: "content anchor", diagnostics: &diagnostics)
                } ?? range.start
                clipOrder.append(clipID)
            }
            clipEnd[clipID] = range.end
        }
        var clipContentStart: [String: MediaTime] = [:], contentDuration = zero
        for clipID in clipOrder {
            clipContentStart[clipID] = contentDuration
            contentDuration = try Composition.add(contentDuration, try Composition.subtract(clipEnd[clipID]!, clipStart[clipID]!, item: clipID), item: clipID)
        }
        contentDuration = try Composition.add(
            contentDuration, try grid.place(replacedAtEnd, item: "content", field: "replaced at the end", diagnostics: &diagnostics), item: "content")

        var postrollSegments = Set<Int>()
        for placed in breaks where placed.placement == .postroll { postrollSegments.formUnion(placed.segmentIndices) }
        var newSegments: [Segment] = []
        newSegments.reserveCapacity(segments.count)
        var cursor = zero, contentCursor = zero
        for (segment, range) in zip(segments, actual) {
            let contentRange: MediaTimeRange
            if case .content(let clipID) = segment.role {
                let start = try Composition.add(clipContentStart[clipID]!, try Composition.subtract(range.start, clipStart[clipID]!, item: clipID), item: clipID)
                contentRange = MediaTimeRange(start: start, end: try Composition.add(start, try Composition.duration(of: range, item: clipID), item: clipID))
                contentCursor = contentRange.end
            } else if postrollSegments.contains(newSegments.count) {
                contentRange = MediaTimeRange(start: contentDuration, end: contentDuration)
            } else {
                contentRange = MediaTimeRange(start: contentCursor, end: contentCursor)
            }
            let end = try Composition.add(cursor, try Composition.duration(of: range, item: segment.id), item: segment.id)
            newSegments.append(Segment(
                role: segment.role, source: segment.source, sourceRange: range,
                compositionRange: MediaTimeRange(start: cursor, end: end), contentRange: contentRange))
            cursor = end
        }
        let newBreaks = breaks.map { placed in
            let first = newSegments[placed.segmentIndices.lowerBound], last = newSegments[placed.segmentIndices.upperBound - 1]
            let next = newSegments[placed.segmentIndices.upperBound...].first { !$0.isAd }
            return PlacedBreak(
                id: placed.id, placement: placed.placement, position: first.contentRange.start,
                compositionRange: MediaTimeRange(start: first.compositionRange.start, end: last.compositionRange.end),
                policy: placed.policy, restrictions: placed.restrictions,
                resumeContentTime: next?.contentRange.start ?? contentDuration,
                adIDs: placed.adIDs, segmentIndices: placed.segmentIndices)
        }
        return Composition(
            segments: newSegments, breaks: newBreaks, contentDuration: contentDuration, duration: cursor,
            diagnostics: diagnostics, timescale: grid.timescale)
    }

}

private extension MediaTime {
    /// The same value in the same timescale (`==` also equates 1/2 and 2/4).
    func isIdentical(to other: MediaTime) -> Bool { value == other.value && timescale == other.timescale }
}
