import Compositor
import CompositorCore
import CompositorHLS

/// The work of the `markers` fuzz target (Tests/Fuzz/MarkersFuzz.swift), shared with the tests
/// that replay its seeds and regressions: a media playlist's cue markers (`EXT-X-CUE-OUT`/`-CONT`/
/// `-IN`, `SCTE35-OUT` date ranges) read as break spans, and those spans placed as breaks that
/// replace them, as a schedule's `"at": "markers"` does.
///
/// Input: the playlist's text. Whatever it says, reading the markers gives spans and ignored
/// markers or a typed time error, and a composition of the spans places every one; a crash, a
/// hang, or a span that breaks the rules below is a bug:
///
/// ```
/// playlist  0 ................................... total
/// spans        [a    )   [b  )      [c         )          sorted, apart, non-empty, inside
/// breaks       ^a replaces [a)  ^b ...                    one per span, at its start
/// ```
package enum MarkersFuzzHarness {
    /// What became of one input.
    package struct Outcome: Sendable {
        /// How many spans and ignored markers the playlist gave, or why it was not read.
        package var summary = ""
        /// Invariants broken. Empty unless there is a bug.
        package var broken: [String] = []
    }

    package static func run(_ input: [UInt8]) -> Outcome {
        var outcome = Outcome()
        let media: HLSMediaPlaylist
        do { media = try HLSPlaylistParser().parseMediaPlaylist(input, url: "/fuzz/content.m3u8") } catch {
            outcome.summary = "not read: \(error)"
            return outcome
        }
        let total: MediaTime, markers: (spans: [HLSMarkedSpan], ignored: [HLSIgnoredMarker])
        do {
            total = try media.segmentBoundaries.last ?? .zero
            markers = try media.markers
        } catch {
            outcome.summary = "time error: \(error)"
            return outcome
        }
        outcome.summary = "\(markers.spans.count) spans, \(markers.ignored.count) ignored"
        for ignored in markers.ignored where ignored.description.isEmpty { outcome.broken.append("an ignored marker without a reason") }

        var previousEnd = MediaTime.zero
        for span in markers.spans {
            let range = span.range
            if range.isEmpty || range.start < previousEnd || range.start < .zero || range.end > total {
                outcome.broken.append("span \(range) of \(span.marker) after \(previousEnd), in a playlist of \(total)")
            }
            previousEnd = range.end
        }
        guard outcome.broken.isEmpty, !markers.spans.isEmpty, total > .zero else { return outcome }

        // The spans as breaks replacing them, as `"at": "markers"` makes them.
        var schedule = Schedule()
        do {
            try schedule.appendContentClip(ContentClip(id: "content", source: "content.m3u8", end: total))
            for (index, span) in markers.spans.enumerated() {
                try schedule.appendBreak(AdBreak(
                    id: "m-\(index + 1)", placement: .midroll(at: span.range.start), ads: [Ad(id: "m-\(index + 1)-ad", source: "ad.mp4", end: .init(seconds: 1))],
                    resumeOffset: span.range.duration))
            }
        } catch {
            outcome.broken.append("the spans make no schedule: \(error)")
            return outcome
        }
        // A composition may refuse times no timescale holds (a typed error); it must not trap, and
        // when it is made it must place every span's break at the span.
        guard let composition = try? Composition(schedule: schedule, naturalDurations: [:]), composition.diagnostics.isEmpty else {
            return outcome   // (times rounded to a common timescale are reported, and move)
        }
        if composition.breaks.count != markers.spans.count {
            outcome.broken.append("\(markers.spans.count) spans made \(composition.breaks.count) breaks")
        }
        for (placed, span) in zip(composition.breaks, markers.spans) where placed.position != span.range.start || placed.resumeContentTime != span.range.end {
            outcome.broken.append("break \(placed.id) at \(placed.position) resuming at \(placed.resumeContentTime), for span \(span.range)")
        }
        return outcome
    }
}
