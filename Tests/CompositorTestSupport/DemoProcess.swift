import Foundation

/// Runs the `CompositorDemo` executable that `swift build` put beside the test bundle.
package enum DemoProcess {
    package static var executable: URL {
        // The test runner lives in the build products folder (…/debug/CompositorPackageTests.xctest).
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent("CompositorDemo")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/CompositorDemo")
    }

    /// Runs the demo with `arguments` in `directory` and returns its status and output.
    package static func run(_ arguments: [String], in directory: URL = packageRoot) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable, arguments, in: directory)
    }
}
