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

extension HLSMediaPlaylist {
    /// The spans its markers mark, in order, each starting after the previous one ends (a span
    /// marked twice, by a cue tag and a date range, counts once; the first marked wins).
    ///
    /// - `EXT-X-CUE-OUT` starts a span at its segment; the next `EXT-X-CUE-IN` ends it, or else
    ///   its duration (`30`, `DURATION=30`), or else the playlist's end.
    /// - An `EXT-X-DATERANGE` with `SCTE35-OUT` starts one at its `START-DATE` (on the clock of the
    ///   first `EXT-X-PROGRAM-DATE-TIME`); `DURATION`, else `PLANNED-DURATION`, else `END-DATE`, else
    ///   the segment with the same ID's `SCTE35-IN`, ends it. Without a program date-time, or with
    ///   no end at all, it is not a span.
    ///
    /// Spans are clamped to the playlist.
    package var markedSpans: [HLSMarkedSpan] {
        get throws(MediaTimeError) {
            let boundaries = try segmentBoundaries
            let total = boundaries[boundaries.count - 1]
            var spans: [HLSMarkedSpan] = []
            func add(_ start: MediaTime, _ end: MediaTime, _ marker: HLSMarkedSpan.Marker) {
                let range = MediaTimeRange(start: MediaTime.max(.zero, start), end: MediaTime.min(total, end))
                if !range.isEmpty { spans.append(HLSMarkedSpan(range: range, marker: marker)) }
            }

            var open: (start: MediaTime, index: Int, duration: MediaTime?)?
            for (index, segment) in segments.enumerated() {
                if segment.isCueIn, let span = open {
                    add(span.start, boundaries[index], .cueOut(segment: span.index))
                    open = nil
                }
                if let cue = segment.cueOut, open == nil { open = (boundaries[index], index, cue.duration) }
            }
            if let span = open {
                var end = total
                if let duration = span.duration { end = try span.start.adding(duration) }
                add(span.start, end, .cueOut(segment: span.index))
            }

            if let clock = try dateClock {
                let tagged = segments.indices.flatMap { index in segments[index].dateRanges.map { (index, $0) } }
                for (_, range) in tagged where range.attributes["SCTE35-OUT"] != nil {
                    guard let startDate = range.startDate else { continue }
                    let start = try clock.time(of: startDate)
                    if let duration = range.duration ?? range.plannedDuration {
                        add(start, try start.adding(duration), .scte35(id: range.id))
                    } else if let endDate = range.endDate {
                        add(start, try clock.time(of: endDate), .scte35(id: range.id))
                    } else if let back = tagged.first(where: { $0.1.id == range.id && $0.1.attributes["SCTE35-IN"] != nil }) {
                        add(start, boundaries[back.0], .scte35(id: range.id))
                    }
                }
            }

            // By start; at one start, in the order found (cue tags first).
            let ordered = spans.enumerated().sorted { ($0.element.range.start, $0.offset) < ($1.element.range.start, $1.offset) }.map(\.element)
            var kept: [HLSMarkedSpan] = []
            for span in ordered where kept.last.map({ span.range.start >= $0.range.end }) ?? true { kept.append(span) }
            return kept
        }
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
