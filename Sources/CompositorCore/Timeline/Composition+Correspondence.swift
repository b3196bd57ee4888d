extension Composition {
    /// The time in `other` that shows what this composition shows at `time`, when `other` is the
    /// same timeline with its cuts moved (a stitched playlist's cuts on segment boundaries): segment
    /// `i` here is segment `i` there, from the same source.
    ///
    /// - A segment's start is the other segment's start, so a boundary crossed here is crossed there.
    /// - Inside a segment the answer shows the same source frame (`sourceRange.start` + offset),
    ///   kept inside the other segment: before its start, its start; at or past its end, its last
    ///   tick (`other.timescale`), where it still shows.
    /// - At or past the end, `other.duration`; before 0, 0.
    ///
    /// ```
    /// here   |feature 0-8.5        |ad 0-4|feature 8.5-12 |
    /// other  |feature 0-8      |ad 0-4|feature 8-12       |
    ///         3 -> 3    8.2 -> the last tick before 8    content 10 (here 14) -> content 10 (there 14)
    /// ```
    ///
    /// `other.correspondingTime(_:in: self)` is its inverse for every time whose frame both show.
    package func correspondingTime(_ time: MediaTime, in other: Composition) -> MediaTime {
        guard time >= .zero else { return .zero }
        guard let index = segmentIndex(at: time), index < other.segments.count else { return other.duration }
        let here = segments[index]
        let there = other.segments[index].compositionRange
        guard time > here.compositionRange.start else { return there.start }
        let shown = there.start + (here.sourceRange.start + (time - here.compositionRange.start) - other.segments[index].sourceRange.start)
        if shown < there.start { return there.start }
        if shown < there.end { return shown }
        return MediaTime.max(there.start, there.end - MediaTime(value: 1, timescale: other.timescale))
    }
}
