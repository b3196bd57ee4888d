import Foundation

/// The one way tests run a child process (the demo, ffmpeg, ffprobe, a shell), without blocking a
/// thread of Swift concurrency's cooperative pool: stdout and stderr are each read to their end on
/// a dedicated thread (so neither pipe can fill and block the child), and the exit is awaited
/// through `terminationHandler`. The output is handed back only once the process has exited and
/// both pipes have reached end of file, so nothing written just before the exit is lost.
///
/// `run` is the usual entry; `start` and `wait()` are for a test that watches or signals the child
/// while it runs (it is given the pid, and `isRunning`).
///
/// `@unchecked Sendable`: `process` is configured before `run()` and afterwards only read through
/// Foundation's own thread-safe accessors; everything else that changes is guarded by `lock`.
package final class ChildProcess: @unchecked Sendable {
    /// What a finished process left: its exit status (the signal number when killed), how it
    /// ended, and everything it wrote.
    package struct Output: Sendable {
        package var status: Int32
        package var terminationReason: Process.TerminationReason
        package var stdoutBytes: [UInt8]
        package var stderr: String
        package var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    }

    private let process = Process()
    private let lock = NSLock()
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    /// Stdout at end of file, stderr at end of file, the process exited: the output is ready at 0.
    private var pending = 3
    private var waiter: CheckedContinuation<Void, Never>?

    private init() {}

    /// Runs `executable` with `arguments` in `directory` (the test runner's own when nil), with
    /// `stdin` as its standard input, and returns its output once it has exited.
    package static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, stdin: FileHandle = .nullDevice
    ) async throws -> Output {
        try await start(executable, arguments, in: directory, stdin: stdin).wait()
    }

    package static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, stdin: FileHandle = .nullDevice
    ) async throws -> Output {
        try await run(URL(fileURLWithPath: executable), arguments, in: directory, stdin: stdin)
    }

    /// Starts the process and returns at once; `wait()` gives its output.
    package static func start(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, stdin: FileHandle = .nullDevice
    ) throws -> ChildProcess {
        let child = ChildProcess()
        let process = child.process
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = stdin
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Set before `run()`, so an exit however early is seen.
        process.terminationHandler = { _ in child.oneDone() }
        try process.run()
        // `run()` closed this process's copies of the write ends: each read ends when the child
        // (and anything it passed the pipe on to) has closed its own.
        child.readToEnd(out.fileHandleForReading, into: \.stdoutBytes)
        child.readToEnd(err.fileHandleForReading, into: \.stderrBytes)
        return child
    }

    package var processIdentifier: Int32 { process.processIdentifier }
    package var isRunning: Bool { process.isRunning }

    /// Suspends (never blocks) until the process has exited and both pipes are drained.
    package func wait() async -> Output {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            precondition(waiter == nil, "ChildProcess.wait() called twice at once")
            if pending == 0 {
                lock.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
        return lock.withLock {
            Output(status: process.terminationStatus, terminationReason: process.terminationReason,
                   stdoutBytes: stdoutBytes, stderr: String(decoding: stderrBytes, as: UTF8.self))
        }
    }

    /// Reads `handle` to its end on a thread of its own (a blocking read, but never on the pool),
    /// stores the bytes and counts the stream as done.
    private func readToEnd(_ handle: FileHandle, into field: ReferenceWritableKeyPath<ChildProcess, [UInt8]> & Sendable) {
        Thread {
            let data = (try? handle.readToEnd()) ?? Data()
            try? handle.close()
            self.lock.lock()
            self[keyPath: field] = [UInt8](data)
            self.lock.unlock()
            self.oneDone()
        }.start()
    }

    private func oneDone() {
        lock.lock()
        pending -= 1
        let resume = pending == 0 ? waiter : nil
        if resume != nil { waiter = nil }
        lock.unlock()
        resume?.resume()
    }
}
