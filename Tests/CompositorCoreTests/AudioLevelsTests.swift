import Testing
import CompositorTestSupport
@testable import CompositorCore

/// ```
/// composition 0      10     15     20     22            32
///             |C 0-10 |ad1   |ad2   |bump  |C 10-20       |
/// level        1.0     0.5    0.5    none   1.0
/// changes             0.5 at 10            1.0 at 22 (the bumper has no audio: nothing set there)
/// ```
@Suite("Audio levels: each source at its own level in one composition track")
struct AudioLevelsTests {
    let composition: Composition

    init() throws {
        composition = try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: s(20))],
            breaks: [AdBreak(id: "mid", placement: .midroll(at: s(10)), ads: [
                Ad(id: "ad1", source: "quiet.mp4", end: s(5)), Ad(id: "ad2", source: "quiet.mp4", end: s(5)),
                Ad(id: "bump", source: "bumper.mp4", end: s(2)),
            ])]))
    }

    func plan(_ levels: [MediaLocation: Float]) -> [AudioLevels.Change]? {
        AudioLevels.plan(for: composition) { source in source == "bumper.mp4" ? nil : levels[source] ?? 1 }
    }

    @Test("a level is set where it changes, and back where full level resumes; a source without audio sets nothing")
    func changes() {
        #expect(plan(["quiet.mp4": 0.5]) == [.init(start: s(10), volume: 0.5), .init(start: s(22), volume: 1)])
    }

    @Test("every source at full level: no mix at all")
    func fullLevel() {
        #expect(plan([:]) == nil)
    }

    @Test("a level from the first instant is set at 0; levels outside 0...1 are clamped, NaN is full")
    func edges() {
        #expect(plan(["c.mp4": 0.25, "quiet.mp4": 2]) == [.init(start: .zero, volume: 0.25), .init(start: s(10), volume: 1), .init(start: s(22), volume: 0.25)])
        #expect(plan(["quiet.mp4": -1]) == [.init(start: s(10), volume: 0), .init(start: s(22), volume: 1)])
        #expect(plan(["quiet.mp4": .nan]) == nil)
    }
}
