import Foundation
import Testing

/// `../shared` beside the checkout: third-party test data (IAB's VAST samples, other projects'
/// playlists) used from there, never copied into the repository. CI always has it; a user's clone
/// may not, and then the tests that need it are reported as skipped.
package enum SharedData {
    package static let folder: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

    /// `../shared/<name>`, or nil when it is absent.
    package static func path(_ name: String) -> String? {
        let path = folder.appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests that read `../shared/<name>`: skipped (and said so) when it is absent.
    package static func needsSharedData(_ name: String) -> Self {
        .enabled(if: SharedData.path(name) != nil, "needs ../shared/\(name) (third-party test data beside the checkout; CI has it)")
    }
}
