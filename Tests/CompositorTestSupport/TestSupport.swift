import Foundation
import CompositorCore

// CompositorTestSupport: the helpers every test target shares (fixtures and scratch folders, the
// ffmpeg judges, the child processes, deadlines). It sits on CompositorCore alone, so a test target
// that uses it reaches no layer above its own; the judges that need a higher layer are in
// CompositorHLSTestSupport, CompositorMP4TestSupport and CompositorUmbrellaTestSupport.

/// Whole or fractional seconds, for readable tests: `s(23)`, `s(8.5)` is not allowed (no Double);
/// use `t("8.5")` or `t("1001/30000")`.
package func s(_ seconds: Int64) -> MediaTime { MediaTime(seconds: seconds) }

/// A time parsed exactly from text.
package func t(_ text: String) -> MediaTime {
    do { return try MediaTime(parsing: text) } catch { fatalError("bad test time '\(text)': \(error)") }
}

package func range(_ start: MediaTime, _ end: MediaTime) -> MediaTimeRange { MediaTimeRange(start: start, end: end) }

/// A deterministic random number generator (SplitMix64), so property tests are reproducible.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The package's root folder, from this file's location (Tests/CompositorTestSupport/TestSupport.swift).
package let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
