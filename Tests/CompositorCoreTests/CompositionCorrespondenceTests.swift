import Testing
import CompositorTestSupport
@testable import CompositorCore

/// A schedule and the same schedule with its cuts moved to segment boundaries, as a stitched
/// playlist plays it: a session keeps the schedule's times, the player the stitched ones.
///
/// ```
/// requested 0        8.5       12.5           16
///           |C 0-8.5  |ad 0-4   |C 8.5-12      |
/// played    0      8        11.8           15.8
///           |C 0-8  |ad 0.2-4|C 8-12         |        (the ad's first cut moved to 0.2)
/// ```
@Suite("Corresponding times between a composition and the same one with cuts moved")
struct CompositionCorrespondenceTests {
    let requested: Composition
    let played: Composition

    init() throws {
        func composition(break position: MediaTime, adStart: MediaTime) throws -> Composition {
            try Composition(schedule: Schedule(
                content: [ContentClip(id: "C", source: "c.m3u8", end: s(12))],
                breaks: [AdBreak(id: "mid", placement: .midroll(at: position), ads: [Ad(id: "ad", source: "ad.mp4", start: adStart, end: s(4))])]))
        }
        requested = try composition(break: t("8.5"), adStart: .zero)
        played = try composition(break: s(8), adStart: t("0.2"))
    }

    /// The played composition's last tick before `time`.
    func lastTick(before time: MediaTime) -> MediaTime { time - MediaTime(value: 1, timescale: played.timescale) }

    @Test("a segment's start is the other's start: every boundary is crossed in both")
    func segmentStarts() {
        for (asked, plays) in zip(requested.segments, played.segments) {
            #expect(requested.correspondingTime(asked.compositionRange.start, in: played) == plays.compositionRange.start)
            #expect(played.correspondingTime(plays.compositionRange.start, in: requested) == asked.compositionRange.start)
        }
        #expect(requested.correspondingTime(requested.duration, in: played) == played.duration)
        #expect(played.correspondingTime(played.duration, in: requested) == requested.duration)
    }

    @Test("inside a segment, the same source frame")
    func sameFrame() {
        #expect(requested.correspondingTime(s(3), in: played) == s(3))
        #expect(requested.correspondingTime(t("10.5"), in: played) == t("9.8"), "the ad at 2 s")
        #expect(requested.correspondingTime(s(14), in: played) == t("13.8"), "content 10")
        for time in [s(3), t("10.5"), s(14), t("15.9")] {
            #expect(played.correspondingTime(requested.correspondingTime(time, in: played), in: requested) == time)
        }
    }

    @Test("a frame the other cut leaves out: the nearest one the other segment shows")
    func framesLeftOut() {
        // Requested content 8.2 is past the played content's end: its last tick.
        #expect(requested.correspondingTime(t("8.2"), in: played) == lastTick(before: s(8)))
        // Requested ad 0.1 is before the played ad's first frame (0.2): the played ad's start.
        #expect(requested.correspondingTime(t("8.6"), in: played) == s(8))
        // Played content 8.4 (at 12.2) is before the requested content's start (8.5): its start.
        #expect(played.correspondingTime(t("12.2"), in: requested) == t("12.5"))
    }

    @Test("times outside the composition clamp to its ends")
    func outside() {
        #expect(requested.correspondingTime(-s(1), in: played) == .zero)
        #expect(requested.correspondingTime(s(100), in: played) == played.duration)
        #expect(played.correspondingTime(s(100), in: requested) == requested.duration)
    }
}
