import CompositorCore

/// Where a live playlist's own markers start a break, in media sequence numbers: what a live
/// stitcher opens a break at as the segments appear.
///
/// ```
/// seq 40 |  40  |  41  |  42  |  43  |
///        CUE-OUT:DURATION=6 on 41                  -> starts at 41, 6 s
///        SCTE35-OUT date range, START-DATE of 42   -> starts at 42, its DURATION
/// seq 50 |  50  |  51  |                           (joined under way)
///        CUE-OUT-CONT:ElapsedTime=4,Duration=10 on 50, no CUE-OUT before it
///                                                  -> starts at 50, 4 s in, 10 s in all
/// ```
package struct LiveMarkedBreak: Hashable, Sendable {
    /// The first segment of the break.
    package var sequence: UInt64
    /// The whole break's length, when the marker gives it (`nil`: until `EXT-X-CUE-IN`).
    package var duration: MediaTime?
    /// How far into the break `sequence` already is: nonzero only for a break under way at the
    /// window's first segment (`EXT-X-CUE-OUT-CONT` with an elapsed time).
    package var elapsed: MediaTime
    /// The marker, for reports.
    package var marker: HLSMarkedSpan.Marker
}

extension HLSMediaPlaylist {
    /// The breaks its markers start, in order: each `EXT-X-CUE-OUT`; each `EXT-X-DATERANGE` with
    /// `SCTE35-OUT` at the first segment starting at or after its `START-DATE` within the window;
    /// and a break under way at the window's first segment (an `EXT-X-CUE-OUT-CONT` there with an
    /// elapsed time). A date range without a start, or whose start is outside the window, starts none.
    package var liveMarkedBreaks: [LiveMarkedBreak] {
        let first = mediaSequence ?? 0
        var found: [LiveMarkedBreak] = []
        if let opening = segments.first?.cueOutContinuation, segments.first?.cueOut == nil, let elapsed = opening.elapsed, elapsed > .zero {
            found.append(LiveMarkedBreak(sequence: first, duration: opening.duration, elapsed: elapsed, marker: .cueOut(segment: 0)))
        }
        for (index, segment) in segments.enumerated() {
            if let cue = segment.cueOut {
                found.append(LiveMarkedBreak(sequence: first + UInt64(index), duration: cue.duration, elapsed: .zero, marker: .cueOut(segment: index)))
            }
        }
        let dates = (try? LiveStitcher.programDates(of: self)) ?? []
        for segment in segments {
            for range in segment.dateRanges where range.attributes["SCTE35-OUT"] != nil {
                guard let start = range.startDate?.secondsSinceEpoch,
                      let index = dates.firstIndex(where: { $0.map { $0.secondsSinceEpoch >= start } ?? false }),
                      index > 0 || dates[0]?.secondsSinceEpoch == start else { continue }
                found.append(LiveMarkedBreak(
                    sequence: first + UInt64(index), duration: range.duration ?? range.plannedDuration, elapsed: .zero,
                    marker: .scte35(id: range.id)))
            }
        }
        return found.sorted { $0.sequence < $1.sequence }
    }

    /// The media sequence number of the first segment starting at or after `date` (seconds since
    /// 1970), when the window has program date-times and such a segment.
    package func firstSegment(startingAtOrAfter date: MediaTime) -> UInt64? {
        guard let dates = try? LiveStitcher.programDates(of: self),
              let index = dates.firstIndex(where: { $0.map { $0.secondsSinceEpoch >= date } ?? false }) else { return nil }
        return (mediaSequence ?? 0) + UInt64(index)
    }
}
