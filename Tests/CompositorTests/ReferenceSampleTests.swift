import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// The reference product's own sample app (REFERENCE.md), compiled.
///
/// ```
/// composition 0  5       28   45   62      82    107     128  143     169       249   294
///             |pre|A 0-23 |pod1|pod2|A 23-43|once |A 43-64|stky|A 64-90|B 0-80   |post |
/// content     0   0      23   23   23      43    43      64   64      90       170   170
/// ```
@Suite("Reference sample app")
struct ReferenceSampleTests {
    let composition: Composition

    init() throws {
        composition = try Composition(schedule: try fixtureSchedule("reference-sample.json"))
    }

    @Test("plays in the reference order")
    func playOrder() {
        #expect(composition.segments.map(\.id) == [
            "pre-ad", "A", "pod-1", "pod-2", "A", "once-ad", "A", "sticky-ad", "A", "B", "post-ad",
        ])
        #expect(composition.segments.map(\.sourceRange) == [
            range(s(0), s(5)), range(s(0), s(23)), range(s(0), s(17)), range(s(0), s(17)), range(s(23), s(43)),
            range(s(0), s(25)), range(s(43), s(64)), range(s(0), s(15)), range(s(64), s(90)), range(s(0), s(80)),
            range(s(0), s(45)),
        ])
    }

    @Test("places every segment in composition time")
    func compositionTimes() {
        let starts: [Int64] = [0, 5, 28, 45, 62, 82, 107, 128, 143, 169, 249]
        #expect(composition.segments.map(\.compositionRange.start) == starts.map(s))
        #expect(composition.duration == s(294))
        #expect(composition.breaks.map(\.compositionRange) == [
            range(s(0), s(5)), range(s(28), s(62)), range(s(82), s(107)), range(s(128), s(143)), range(s(249), s(294)),
        ])
    }

    @Test("the main seek bar is 170 s of content with a marker per break")
    func mainBar() {
        let bar = composition.seekBar(at: s(50), playedBreakIDs: ["pre"])
        #expect(bar.main.duration == s(170))
        #expect(bar.main.position == s(23))
        #expect(bar.main.label == "00:23/02:50")
        #expect(bar.main.markers.map(\.position) == [s(0), s(23), s(43), s(64), s(170)])
        #expect(bar.main.markers.map(\.played) == [true, false, false, false, false])
        #expect(bar.ad?.title == "Ad 2 of 2")
        #expect(bar.ad?.label == "00:05/00:17")
    }

    @Test("after one pass the play-once ad is gone and A[23, 64) is one piece again")
    func onceBreakLeaves() throws {
        let after = try Composition(schedule: try fixtureSchedule("reference-sample.json"), excludingBreaks: ["once"])
        #expect(after.segments.map(\.id) == ["pre-ad", "A", "pod-1", "pod-2", "A", "sticky-ad", "A", "B", "post-ad"])
        #expect(after.segments[4].sourceRange == range(s(23), s(64)))
        #expect(after.duration == s(269))
        #expect(after.contentDuration == s(170))
        #expect(after.compositionTime(forContentTime: s(50)) == s(62 + 27))
    }
}
