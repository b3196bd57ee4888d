import Foundation
import Testing

/// The output of a finished process.
struct HLSProcessOutput {
    let status: Int32
    let stdout: [UInt8]
    let stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

struct HLSProcessFailure: Error, CustomStringConvertible {
    let command: String
    let output: HLSProcessOutput
    var description: String { "\(command) exited with \(output.status): \(output.stderr)" }
}

/// Runs `executable` with `arguments` and waits; stdout and stderr are read concurrently so neither pipe fills.
@discardableResult
func hlsRunProcess(_ executable: String, _ arguments: [String]) throws -> HLSProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let errorData = HLSLockedData()
    let errorReader = Thread { errorData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    errorReader.start()
    let outputData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errorData.isSet { usleep(1000) }
    let result = HLSProcessOutput(
        status: process.terminationStatus, stdout: Array(outputData),
        stderr: String(decoding: errorData.value, as: UTF8.self))
    return result
}

private final class HLSLockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var done = false
    func set(_ d: Data) { lock.lock(); data = d; done = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return done }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
}

/// The path of an executable on `PATH`, or `nil`.
func hlsFindExecutable(_ name: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// ffmpeg judges the end-to-end tests. Without it they are skipped on a developer machine, but fail
/// when `COMPOSITOR_REQUIRE_FFMPEG=1` (as CI sets it).
enum HLSFFmpeg {
    static let path = hlsFindExecutable("ffmpeg")
    static let required = ProcessInfo.processInfo.environment["COMPOSITOR_REQUIRE_FFMPEG"] == "1"
    /// Whether the ffmpeg tests run: they do when ffmpeg is present, and also when it is required (to fail).
    static let shouldRun = path != nil || required

    struct Missing: Error, CustomStringConvertible {
        var description: String { "COMPOSITOR_REQUIRE_FFMPEG=1, but ffmpeg is not on PATH" }
    }
}
