import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// The reference sample as mutable-composition calls. Sources: content and most ads have both
/// tracks; `ad5.mp4` (the pre-roll) has no audio; `ad17b.mp4`'s audio ends 0.5 s before its video.
///
/// ```
/// composition 0  5       28   45   62      82    107     128  143     169       249   294
/// video       |pre|A 0-23 |pod1|pod2|A 23-43|once |A 43-64|stky|A 64-90|B 0-80   |post |
/// audio       |...|A 0-23 |pod1|pod2|.A 23-43 ...                  (. = empty)
/// ```
@Suite("Composition edits (the AVMutableComposition port)")
struct CompositionEditsTests {
    let composition: Composition
    static let layouts: [String: SourceTrackLayout] = [
        "A.mp4": SourceTrackLayout(durations: [.video: s(90), .audio: s(90)]),
        "B.mp4": SourceTrackLayout(durations: [.video: s(80), .audio: s(80)]),
        "ad5.mp4": SourceTrackLayout(durations: [.video: s(5)]),
        "ad17a.mp4": SourceTrackLayout(durations: [.video: s(17), .audio: s(17)]),
        "ad17b.mp4": SourceTrackLayout(durations: [.video: s(17), .audio: t("16.5")]),
        "ad25.mp4": SourceTrackLayout(durations: [.video: s(25), .audio: s(25)]),
        "ad15.mp4": SourceTrackLayout(durations: [.video: s(15), .audio: s(15)]),
        "ad45.mp4": SourceTrackLayout(durations: [.video: s(45), .audio: s(45)]),
    ]
    static func layout(_ source: MediaLocation) -> SourceTrackLayout? { layouts[source.description] }

    init() throws {
        composition = try Composition(schedule: try fixtureSchedule("reference-sample.json"))
    }

    func built(_ composition: Composition) throws -> RecordingComposition {
        let recording = RecordingComposition()
        try CompositionEditPlanner.apply(try CompositionEditPlanner.edits(for: composition, tracks: Self.layout), to: recording)
        return recording
    }

    @Test("every track is contiguous from 0 and lasts exactly the composition")
    func contiguous() throws {
        let recording = try built(composition)
        #expect(recording.tracks.map(\.kind) == [.video, .audio])
        for track in recording.tracks {
            var cursor = MediaTime.zero
            for segment in track.segments {
                #expect(segment.target.start == cursor)
                cursor = segment.target.end
            }
            #expect(cursor == composition.duration)
        }
    }

    @Test("the video track matches the composition's segments exactly: replaying the calls reproduces the mapping")
    func videoMatches() throws {
        let video = try #require(try built(composition).track(.video))
        #expect(video.segments.count == composition.segments.count)
        for (recorded, segment) in zip(video.segments, composition.segments) {
            #expect(recorded.source == segment.source)
            #expect(recorded.sourceStart == segment.sourceRange.start)
            #expect(recorded.target == segment.compositionRange)
        }
    }

    @Test("audio: empty where a source has no audio or its audio ends early")
    func audioGaps() throws {
        let audio = try #require(try built(composition).track(.audio))
        #expect(audio.segments[0] == .init(source: nil, sourceStart: .zero, target: range(s(0), s(5))))
        #expect(audio.segments[3].source == "ad17b.mp4")
        #expect(audio.segments[3].target == range(s(45), t("61.5")))
        #expect(audio.segments[4] == .init(source: nil, sourceStart: .zero, target: range(t("61.5"), s(62))))
        // Media first, back to back from 0, then the empty ranges between media: "you cannot add
        // empty time ranges to the end of a composition track" (AVCompositionTrack.h).
        #expect(audio.calls.first == "insert A.mp4 [0, 23) at 0")
        #expect(audio.calls.contains("empty [0, 5)"))
        #expect(audio.ruleBreaks.isEmpty)
    }

    /// The post-roll without audio: nothing can fill the audio track's last 45 s, so it ends at 249.
    ///
    /// ```
    /// composition ...  169       249   294
    /// video       ...  |B 0-80   |post |
    /// audio       ...  |B 0-80   |            (ends: no empty range at a track's end)
    /// ```
    @Test("a track whose sources end before the composition ends there, with no call at or past its end")
    func trailingGap() throws {
        let recording = RecordingComposition()
        let edits = try CompositionEditPlanner.edits(for: composition) { source in
            source == "ad45.mp4" ? SourceTrackLayout(durations: [.video: s(45)]) : Self.layout(source)
        }
        try CompositionEditPlanner.apply(edits, to: recording)
        let video = try #require(recording.track(.video)), audio = try #require(recording.track(.audio))
        #expect(video.duration == composition.duration)
        #expect(audio.duration == s(249))
        #expect(video.ruleBreaks.isEmpty && audio.ruleBreaks.isEmpty)
        #expect(!edits.contains(.insertEmpty(track: .audio, range: range(s(249), s(294)))))
    }

    /// The order the planner used to emit (each segment's media or emptiness in turn) breaks both
    /// rules on a track that starts empty: the double sees it.
    @Test("the recording double reports an empty range at a track's end and media past it")
    func doubleEnforcesTrackRules() throws {
        let recording = RecordingComposition()
        let audio = try recording.addMutableTrack(kind: .audio)
        audio.insertEmptyTimeRange(range(s(0), s(5)))
        try audio.insertTimeRange(range(s(0), s(23)), of: "A.mp4", at: s(5))
        #expect(audio.ruleBreaks.count == 2)
        #expect(audio.duration == s(28))  // the empty range did nothing; the insert left a gap
    }

    @Test("when the once break leaves: a removal, and the result equals building the new composition")
    func removal() throws {
        let after = try Composition(schedule: try fixtureSchedule("reference-sample.json"), excludingBreaks: ["once"])
        let removals = try #require(CompositionEditPlanner.removals(from: composition, to: after))
        #expect(removals == [.removeTimeRange(range(s(82), s(107)))])
        let recording = try built(composition)
        try CompositionEditPlanner.apply(removals, to: recording)
        let fresh = try built(after)
        for kind in TrackKind.allCases {
            #expect(recording.track(kind)?.merged == fresh.track(kind)?.merged, "\(kind)")
        }
    }

    @Test("several breaks leaving at once are removed latest first")
    func severalRemovals() throws {
        let after = try Composition(schedule: try fixtureSchedule("reference-sample.json"), excludingBreaks: ["pod", "sticky"])
        let removals = try #require(CompositionEditPlanner.removals(from: composition, to: after))
        #expect(removals == [.removeTimeRange(range(s(128), s(143))), .removeTimeRange(range(s(28), s(62)))])
        let recording = try built(composition)
        try CompositionEditPlanner.apply(removals, to: recording)
        #expect(recording.track(.video)?.merged == (try built(after)).track(.video)?.merged)
    }

    @Test("a change that is not a removal needs a new composition")
    func notARemoval() throws {
        var schedule = try fixtureSchedule("reference-sample.json")
        try schedule.appendAd(Ad(id: "extra", source: "ad15.mp4", end: s(15)), after: "pod-2")
        #expect(CompositionEditPlanner.removals(from: composition, to: try Composition(schedule: schedule)) == nil)
        #expect(CompositionEditPlanner.removals(from: composition, to: composition) == [])
    }

    @Test("a source without a layout is a typed error")
    func unknownLayout() {
        #expect(throws: CompositionEditError.unknownTracks("ad5.mp4")) {
            try CompositionEditPlanner.edits(for: composition) { _ in nil }
        }
    }
}
