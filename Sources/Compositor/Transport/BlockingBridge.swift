import Dispatch

/// Runs `operation` (a fetch) as a task of its own and blocks the calling thread until it ends.
///
/// The media layers read remote sources synchronously, as they read files (through a spool, see
/// `RemoteSpool`); the transport is `async`. The library calls this only on threads of its own
/// blocking work (`runOffCooperativePool`), never on one of Swift concurrency's cooperative threads,
/// which `operation` itself needs: blocking those could leave it none to run on.
///
/// `operation`, and all it holds, is released before the caller wakes: nothing it captured
/// outlives the call on the task's side (a process that exits right after finds nothing of it live).
package func waitForTask<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = TaskResultBox<T>(operation)
    Task.detached { await box.run() }
    return box.wait()
}

/// One operation and its result, handed from a task to the thread waiting for it.
///
/// `@unchecked Sendable`: `operation` is taken once by the task, `value` written once by the task
/// before `done` is signalled and read after the wait; the semaphore orders the two.
private final class TaskResultBox<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var operation: (@Sendable () async -> T)?
    private var value: T?

    init(_ operation: @escaping @Sendable () async -> T) { self.operation = operation }

    func run() async {
        // Straight into `value`: no copy of the result stays on this task once the waiter wakes.
        value = await takeAndRun()
        done.signal()
    }

    /// Runs the operation, which is released (with everything it captured) when this returns:
    /// before the waiting thread wakes.
    private func takeAndRun() async -> T? {
        guard let operation else { return nil }
        self.operation = nil
        return await operation()
    }

    /// The result, handed over: the box keeps nothing.
    func wait() -> T {
        done.wait()
        guard let value else { preconditionFailure("signalled without a value") }
        self.value = nil
        return value
    }
}
