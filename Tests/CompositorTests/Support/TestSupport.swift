import Foundation
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Whole or fractional seconds, for readable tests: `s(23)`, `s(8.5)` is not allowed (no Double);
/// use `t("8.5")` or `t("1001/30000")`.
func s(_ seconds: Int64) -> MediaTime { MediaTime(seconds: seconds) }

/// A time parsed exactly from text.
func t(_ text: String) -> MediaTime {
    do { return try MediaTime(parsing: text) } catch { fatalError("bad test time '\(text)': \(error)") }
}

func range(_ start: MediaTime, _ end: MediaTime) -> MediaTimeRange { MediaTimeRange(start: start, end: end) }

/// A deterministic random number generator (SplitMix64), so property tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The package's root folder, from this file's location.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Reads a schedule file from `Fixtures/`.
func fixtureSchedule(_ name: String) throws -> Schedule {
    let url = packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    return try ScheduleDocument.decode(try Data(contentsOf: url))
}
