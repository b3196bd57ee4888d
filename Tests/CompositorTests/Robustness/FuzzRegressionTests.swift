import Foundation
import Testing
@testable import Compositor

/// Every crash, hang or oversized allocation the fuzzers (Tests/Fuzz) found, fed back byte for
/// byte from Tests/Fuzz/regressions/TARGET/, with what must happen instead.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// A movie whose audio track presents nowhere inside the piece's range (its presentation
    /// ends before the range starts). Keyframe-aligned planning crashed looking for another piece's audio
    /// description to make silence with; the piece's own audio description serves.
    @Test("keyframe cuts of a piece whose audio misses its range fill it with silence")
    func keyframeAudioOutsideRange() throws {
        let bytes = try Robust.regression("mp4", "keyframe-audio-outside-range-856d11fc")
        let outcome = try Robust.withFile(bytes) { Robust.exerciseMP4($0) }
        #expect(outcome.readError == nil)
        #expect(outcome.planOutcomes.count == 4)
        #expect(outcome.planOutcomes.contains { $0.hasPrefix("keyframeAligned: planned") }, "\(outcome.planOutcomes)")
    }
}
