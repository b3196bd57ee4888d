import Foundation

/// Runs the `CompositorDemo` executable that `swift build` put beside the test bundle.
struct DemoProcess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var executable: URL {
        // The test runner lives in the build products folder (…/debug/CompositorPackageTests.xctest).
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent("CompositorDemo")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/CompositorDemo")
    }

    static func run(_ arguments: [String], in directory: URL = packageRoot) throws -> Result {
        try capture(executable, arguments, in: directory)
    }

    /// Runs any `executable` with `arguments` in `directory` and returns its status and output.
    static func capture(_ executable: URL, _ arguments: [String], in directory: URL = packageRoot) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting, so a large output cannot fill the pipe and block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}
