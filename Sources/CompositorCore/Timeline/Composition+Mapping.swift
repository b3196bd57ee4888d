extension Composition {
    /// Which side of the breaks at a content position a mapping lands on.
    public enum BreakBias: Hashable, Sendable {
        /// Where content resumes after the breaks (IMA's rule, the default).
        case afterBreaks
        /// Where the first break at that position starts.
        case beforeBreaks
    }
}

extension Composition {
    /// Where content time `contentTime` is shown in the composition. O(log n).
    ///
    /// At a break's position the answer is after the break (content resumes there), or, with
    /// `.beforeBreaks`, the start of the first break at that position. Content replaced by a break's
    /// `resumeOffset` maps to where content resumes, or with `.beforeBreaks` to where the replacing
    /// break starts. Times outside `0...contentDuration` are clamped to it, then taken at the tick of
    /// `timescale` at or before them; the answer is on that grid too.
    ///
    /// Inverse: `contentTime(forCompositionTime:)`, exactly, for every content time on the grid that
    /// is shown.
    ///
    /// - Parameters:
    ///   - contentTime: A content time.
    ///   - bias: Which side of the breaks at that position to answer (after them by default).
    /// - Returns: The composition time, on the composition's grid.
    public func compositionTime(forContentTime contentTime: MediaTime, bias: BreakBias = .afterBreaks) -> MediaTime {
        let t = onGrid(contentTime, clampedTo: contentDuration)
        if bias == .beforeBreaks, let start = startOfBreaks(at: t) { return start }
        // The first content segment that ends after t shows t, or content resumes at its start.
        let i = contentSegmentEndIndex.firstIndex(after: t)
        guard i < contentSegmentLookup.count else { return duration }
        let entry = contentSegmentLookup[i]
        // One timescale: exact, and within the composition.
        return entry.compositionStart + MediaTime.max(.zero, t - entry.contentStart)
    }

    /// The start of the first break at content time `t`, or of the breaks whose replaced content
    /// holds `t`; `nil` when no break is there.
    private func startOfBreaks(at t: MediaTime) -> MediaTime? {
        let next = breakPositionIndex.firstIndex(atOrAfter: t)
        if next < breaks.count, breaks[next].position == t { return breaks[next].compositionRange.start }
        // Only the group just before t can replace it: a later break may not sit in replaced content,
        // and the group's last break carries the group's furthest resume time.
        guard next > 0, breaks[next - 1].resumeContentTime > t else { return nil }
        let groupStart = breakPositionIndex.firstIndex(atOrAfter: breaks[next - 1].position)
        return breaks[groupStart].compositionRange.start
    }

    /// The content time at composition time `compositionTime`. O(log n).
    ///
    /// Exact inside content; inside a break it is the break's content position, as IMA and Media3
    /// answer. Times outside `0...duration` are clamped to it; the composition's end maps to the
    /// content's end. A time between two ticks of `timescale` is taken at the tick before it (the
    /// instant on screen), so the answer is on that grid.
    ///
    /// ```
    /// timescale 300000000: composition 12345678901/1000000000 is taken as 3703703670/300000000
    /// ```
    ///
    /// - Parameter compositionTime: A composition time, such as a player's position.
    /// - Returns: The content time, on the composition's grid.
    public func contentTime(forCompositionTime compositionTime: MediaTime) -> MediaTime {
        guard compositionTime < duration else { return contentDuration }
        let c = onGrid(compositionTime, clampedTo: duration)
        let entry = segmentLookup[segmentStartIndex.firstIndex(after: c) - 1]
        return entry.isAd ? entry.contentStart : entry.contentStart + (c - entry.compositionStart)
    }

    /// The index of the segment playing at `compositionTime`, or `nil` outside `[0, duration)`. O(log n).
    ///
    /// - Parameter compositionTime: A composition time.
    /// - Returns: An index into `segments`, or `nil`.
    public func segmentIndex(at compositionTime: MediaTime) -> Int? {
        guard compositionTime >= .zero, compositionTime < duration else { return nil }
        return segmentStartIndex.firstIndex(after: compositionTime) - 1
    }

    /// Everything about the instant `compositionTime`: the segment, source time, content time and,
    /// in a break, which ad of the pod and how far into the ad and the break. `nil` outside
    /// `[0, duration)`. O(log n).
    ///
    /// A time between two ticks of `timescale` is taken at the tick before it (the instant on
    /// screen): `Location.compositionTime` is that tick, and every offset is exact from it.
    ///
    /// - Parameter time: A composition time.
    /// - Returns: What plays there, or `nil` outside the composition.
    public func locate(_ time: MediaTime) -> Location? {
        guard time >= .zero, time < duration else { return nil }
        let compositionTime = onGrid(time, clampedTo: duration)
        guard let index = segmentIndex(at: compositionTime) else { return nil }
        let segment = segments[index]
        let offset = compositionTime - segment.compositionRange.start
        var ad: AdLocation?
        if let position = segment.adPosition {
            let breakIndex = breakStartIndex.firstIndex(after: compositionTime) - 1
            let placed = breaks[breakIndex]
            ad = AdLocation(
                position: position, breakIndex: breakIndex, timeInAd: offset,
                adDuration: segment.compositionRange.duration,
                timeInBreak: compositionTime - placed.compositionRange.start,
                breakDuration: placed.compositionRange.duration)
        }
        return Location(
            compositionTime: compositionTime, segmentIndex: index, segment: segment,
            sourceTime: segment.sourceRange.start + offset,
            contentTime: segment.isAd ? segment.contentRange.start : segment.contentRange.start + offset,
            ad: ad)
    }

}

extension Composition {
    /// What plays at one instant of a composition.
    public struct Location: Hashable, Sendable {
        /// The instant located: the query, on the composition's grid (see `Composition.timescale`).
        public let compositionTime: MediaTime
        public let segmentIndex: Int
        public let segment: Segment
        /// The time inside the segment's source.
        public let sourceTime: MediaTime
        /// The content time; inside a break, the break's position.
        public let contentTime: MediaTime
        /// Where in its break the instant is; `nil` in content.
        public let ad: AdLocation?
    }
}

extension Composition {
    /// Where an instant is inside a break.
    public struct AdLocation: Hashable, Sendable {
        public let position: AdPosition
        /// The index of the break in `Composition.breaks`.
        public let breakIndex: Int
        public let timeInAd: MediaTime
        public let adDuration: MediaTime
        public let timeInBreak: MediaTime
        public let breakDuration: MediaTime
    }
}
