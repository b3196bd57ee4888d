import CompositorCore

/// A span a media playlist's own cue markers mark as a break (an ad avail), on the playlist's clock.
///
/// ```
/// segments  |  4  |  4  |  4  |  4  |  4  |
/// markers         CUE-OUT:DURATION=8    CUE-IN          -> [4, 12)
///                 SCTE35-OUT date range, DURATION=8     -> [4, 12)
/// ```
package struct HLSMarkedSpan: Hashable, Sendable {
    /// Where it is marked.
    package enum Marker: Hashable, Sendable {
        /// `EXT-X-CUE-OUT` on the segment with this index (from 0).
        case cueOut(segment: Int)
        /// An `EXT-X-DATERANGE` with `SCTE35-OUT`, by its ID.
        case scte35(id: String)
    }

    package let range: MediaTimeRange
    package let marker: Marker
}

/// A marker that marks no span, and why: reported, never a trap, so one bad cue in a long
/// playlist neither stops the rest nor passes unnoticed.
package struct HLSIgnoredMarker: Hashable, Sendable, CustomStringConvertible {
    package enum Reason: Hashable, Sendable {
        /// Its end is before its start (a negative `DURATION`, an `END-DATE` before `START-DATE`).
        case endsBeforeStart(start: MediaTime, end: MediaTime)
        /// It lies wholly outside the playlist's `[0, duration)`, or touches it only at one instant.
        case outsidePlaylist(start: MediaTime, end: MediaTime, playlistDuration: MediaTime)
        /// A date range with `SCTE35-OUT` but no `DURATION`, `PLANNED-DURATION`, `END-DATE` or `SCTE35-IN`.
        case noEnd
        /// A date range with `SCTE35-OUT` and no `START-DATE`.
        case noStart
        /// It starts inside a span an earlier marker already marks.
        case overlaps(HLSMarkedSpan.Marker)
    }

    package let marker: HLSMarkedSpan.Marker
    package let reason: Reason

    package var description: String {
        let what: String
        switch reason {
        case .endsBeforeStart(let start, let end): what = "it ends (\(end) s) before it starts (\(start) s)"
        case .outsidePlaylist(let start, let end, let total):
            what = "it spans \(start) s to \(end) s, outside the playlist's 0 to \(total) s"
        case .noEnd: what = "it has no DURATION, PLANNED-DURATION, END-DATE or SCTE35-IN"
        case .noStart: what = "it has no START-DATE"
        case .overlaps(let earlier): what = "it starts inside the span \(earlier) marks"
        }
        return "\(marker) marks no break: \(what)"
    }
}

extension HLSMarkedSpan.Marker: CustomStringConvertible {
    package var description: String {
        switch self {
        case .cueOut(let segment): "EXT-X-CUE-OUT on segment \(segment) (from 0)"
        case .scte35(let id): "the SCTE35-OUT date range \(quoted(id))"
        }
    }
}

extension HLSMediaPlaylist {
    /// The spans its markers mark, in order, each starting after the previous one ends (a span
    /// marked twice, by a cue tag and a date range, counts once; the first marked wins), and the
    /// markers that mark none, with why.
    ///
    /// - `EXT-X-CUE-OUT` starts a span at its segment; the next `EXT-X-CUE-IN` ends it, or else
    ///   its duration (`30`, `DURATION=30`), or else the playlist's end. A `CUE-OUT` while one is
    ///   open (before its `CUE-IN` or the end of its duration) is part of it.
    /// - An `EXT-X-DATERANGE` with `SCTE35-OUT` starts one at its `START-DATE` (on the clock of the
    ///   first `EXT-X-PROGRAM-DATE-TIME`); `DURATION`, else `PLANNED-DURATION`, else `END-DATE`, else
    ///   the segment with the same ID's `SCTE35-IN`, ends it. Without a program date-time no date
    ///   range is read.
    ///
    /// Spans are clamped to the playlist; one that clamps to nothing, or ends before it starts,
    /// is ignored (`HLSIgnoredMarker`).
    ///
    /// ```
    /// segments  |  4  |  4  |  4  |
    /// CUE-OUT:DURATION=-5 on segment 1     -> ignored: ends (-1) before it starts (4)
    /// SCTE35-OUT in the year 9999          -> ignored: outside the playlist's 0 to 12
    /// ```
    package var markers: (spans: [HLSMarkedSpan], ignored: [HLSIgnoredMarker]) {
        get throws(MediaTimeError) {
            let boundaries = try segmentBoundaries
            let total = boundaries[boundaries.count - 1]
            var spans: [HLSMarkedSpan] = [], ignored: [HLSIgnoredMarker] = []
            func add(_ start: MediaTime, _ end: MediaTime, _ marker: HLSMarkedSpan.Marker) {
                guard start <= end else {
                    return ignored.append(HLSIgnoredMarker(marker: marker, reason: .endsBeforeStart(start: start, end: end)))
                }
                let clamped = (start: MediaTime.max(.zero, start), end: MediaTime.min(total, end))
                guard clamped.start < clamped.end else {
                    return ignored.append(HLSIgnoredMarker(
                        marker: marker, reason: .outsidePlaylist(start: start, end: end, playlistDuration: total)))
                }
                spans.append(HLSMarkedSpan(range: MediaTimeRange(start: clamped.start, end: clamped.end), marker: marker))
            }

            // The open cue: where it starts, its segment, and where its duration ends it.
            var open: (start: MediaTime, index: Int, end: MediaTime?)?
            for (index, segment) in segments.enumerated() {
                if let span = open, let end = span.end, end <= boundaries[index] {
                    // Its duration has passed: over, and a later CUE-OUT may start another.
                    add(span.start, end, .cueOut(segment: span.index))
                    open = nil
                }
                if segment.isCueIn, let span = open {
                    add(span.start, boundaries[index], .cueOut(segment: span.index))
                    open = nil
                }
                if let cue = segment.cueOut, open == nil {
                    let start = boundaries[index]
                    open = (start, index, try cue.duration.map { duration throws(MediaTimeError) in try start.adding(duration) })
                }
            }
            if let span = open { add(span.start, span.end ?? total, .cueOut(segment: span.index)) }

            if let clock = try dateClock {
                let tagged = segments.indices.flatMap { index in segments[index].dateRanges.map { (index, $0) } }
                for (_, range) in tagged where range.attributes["SCTE35-OUT"] != nil {
                    let marker = HLSMarkedSpan.Marker.scte35(id: range.id)
                    guard let startDate = range.startDate else {
                        ignored.append(HLSIgnoredMarker(marker: marker, reason: .noStart))
                        continue
                    }
                    let start = try clock.time(of: startDate)
                    if let duration = range.duration ?? range.plannedDuration {
                        add(start, try start.adding(duration), marker)
                    } else if let endDate = range.endDate {
                        add(start, try clock.time(of: endDate), marker)
                    } else if let back = tagged.first(where: { $0.1.id == range.id && $0.1.attributes["SCTE35-IN"] != nil }) {
                        add(start, boundaries[back.0], marker)
                    } else {
                        ignored.append(HLSIgnoredMarker(marker: marker, reason: .noEnd))
                    }
                }
            }

            // By start; at one start, in the order found (cue tags first).
            let ordered = spans.enumerated().sorted { ($0.element.range.start, $0.offset) < ($1.element.range.start, $1.offset) }.map(\.element)
            var kept: [HLSMarkedSpan] = []
            for span in ordered {
                if let last = kept.last, span.range.start < last.range.end {
                    // The same span marked both ways is one break, not a clash.
                    if span.range != last.range { ignored.append(HLSIgnoredMarker(marker: span.marker, reason: .overlaps(last.marker))) }
                    continue
                }
                kept.append(span)
            }
            return (kept, ignored)
        }
    }

    /// The spans of `markers`, without the markers that mark none.
    package var markedSpans: [HLSMarkedSpan] {
        get throws(MediaTimeError) { try markers.spans }
    }
}

/// A media playlist's wall clock: where on the playlist's own time a date falls, by the first
/// `EXT-X-PROGRAM-DATE-TIME` (RFC 8216 4.3.2.6: later segments' dates follow from their durations).
package struct HLSDateClock: Sendable {
    /// The first dated segment's date and its start on the playlist's time.
    let date: MediaTime
    let start: MediaTime

    /// The playlist time of `date` (before 0 or past the end when the date is).
    package func time(of date: HLSDateTime) throws(MediaTimeError) -> MediaTime {
        try start.adding(try date.secondsSinceEpoch.subtracting(self.date))
    }
}

extension HLSMediaPlaylist {
    /// The playlist's clock, or `nil` when no segment has a program date-time.
    package var dateClock: HLSDateClock? {
        get throws(MediaTimeError) {
            var start = MediaTime.zero
            for segment in segments {
                if let date = segment.programDateTime { return HLSDateClock(date: date.secondsSinceEpoch, start: start) }
                start = try start.adding(segment.duration)
            }
            return nil
        }
    }
}
