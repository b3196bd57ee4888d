import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scratch files, deadlines and the fuzz regression inputs.
package enum Robust {
    /// Tests/Fuzz in the repository.
    package static let fuzzFolder: String = packageRoot.appendingPathComponent("Tests/Fuzz").path

    /// A crash input the fuzzer found, kept in Tests/Fuzz/regressions/TARGET/NAME.
    package static func regression(_ target: String, _ name: String) throws -> [UInt8] {
        try MP4Fixtures.bytes(fuzzFolder + "/regressions/\(target)/\(name)")
    }

    /// Writes `bytes` to a fresh file and gives its path to `body`; the folder is removed after.
    package static func withFile<T>(_ bytes: [UInt8], name: String = "input.mp4", _ body: (String) throws -> T) throws -> T {
        let folder = try MP4Fixtures.makeScratchFolder("robust")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/" + name
        try MP4Fixtures.write(bytes, to: path)
        return try body(path)
    }

    /// Runs `body` on its own thread and waits at most `seconds`. On time, returns its result; a
    /// body still running then is a hang: the test fails, `unblock` is called to set the thread
    /// free, and `nil` is returned.
    package static func withDeadline<T: Sendable>(
        seconds: Double, unblock: @escaping @Sendable () -> Void = {},
        sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () -> T
    ) -> T? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        let thread = Thread {
            box.set(body())
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            Issue.record("still running after \(seconds) s: a hang", sourceLocation: sourceLocation)
            unblock()
            _ = done.wait(timeout: .now() + 10)
            return nil
        }
        return box.get()
    }

    /// `withDeadline` for an async `body` (a child process, say), awaited without blocking a thread.
    /// On time, returns its result; a body still running then is a hang: the test fails, `unblock`
    /// is called to set it free, and `nil` is returned (after up to 10 s more for it to finish).
    package static func withDeadline<T: Sendable>(
        seconds: Double, unblock: @escaping @Sendable () -> Void = {},
        sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () async -> T
    ) async -> T? {
        let work = Task { await body() }
        if let value = await value(of: work, within: seconds) { return value }
        Issue.record("still running after \(seconds) s: a hang", sourceLocation: sourceLocation)
        unblock()
        _ = await value(of: work, within: 10)
        return nil
    }

    /// The value of `work`, or `nil` when `seconds` pass first (`work` goes on running).
    private static func value<T: Sendable>(of work: Task<T, Never>, within seconds: Double) async -> T? {
        let first = FirstResult<T?>()
        return await withCheckedContinuation { continuation in
            first.waiter = continuation
            let timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                first.resume(with: nil)
            }
            Task {
                first.resume(with: await work.value)
                timer.cancel()
            }
        }
    }

    /// A FIFO (named pipe) at a fresh path, removed after `body`.
    package static func withFIFO<T>(_ body: (String) throws -> T) throws -> T {
        let folder = try MP4Fixtures.makeScratchFolder("fifo")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/pipe"
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return try body(path)
    }

    /// `withFIFO` for an async `body`.
    package static func withFIFO<T>(_ body: (String) async throws -> T) async throws -> T {
        let folder = try MP4Fixtures.makeScratchFolder("fifo")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/pipe"
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return try await body(path)
    }

    /// Opens the FIFO for writing without blocking: frees a reader stuck in `open`.
    package static func releaseFIFOReader(_ path: String) {
        let fd = open(path, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    /// A sparse file of `size` bytes that starts with `head`: big on paper, nothing on disk.
    package static func writeSparse(_ head: [UInt8], size: Int64, to path: String) throws {
        try MP4Fixtures.write(head, to: path)
        guard truncate(path, off_t(size)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }
}

/// Resumes a continuation with the first value offered; later ones are dropped.
package final class FirstResult<T: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` is only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    package init() {}
    package var waiter: CheckedContinuation<T, Never>? {
        get { lock.lock(); defer { lock.unlock() }; return continuation }
        set { lock.lock(); continuation = newValue; lock.unlock() }
    }
    package func resume(with value: T) {
        lock.lock()
        let taken = continuation
        continuation = nil
        lock.unlock()
        taken?.resume(returning: value)
    }
}

/// A value handed from one thread to another.
package final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    package init() {}
    package func set(_ newValue: T) { lock.lock(); value = newValue; lock.unlock() }
    package func get() -> T? { lock.lock(); defer { lock.unlock() }; return value }
}
