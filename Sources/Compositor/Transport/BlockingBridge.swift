import Dispatch

/// Runs `operation` (a fetch) as a task of its own and blocks the calling thread until it ends.
///
/// The media layers read remote sources synchronously, as they read files (through a spool, see
/// `RemoteSpool`); the transport is `async`. The library calls this only on threads of its own
/// blocking work (`runOffCooperativePool`), never on one of Swift concurrency's cooperative threads,
/// which `operation` itself needs: blocking those could leave it none to run on.
package func waitForTask<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = TaskResultBox<T>()
    Task.detached { box.set(await operation()) }
    return box.wait()
}

/// One result, handed from a task to the thread waiting for it.
private final class TaskResultBox<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written once by the task before `done` is signalled, read after the wait: the semaphore
    /// orders the two.
    private var value: T?

    func set(_ result: T) {
        value = result
        done.signal()
    }

    /// The result, handed over: the box keeps nothing (the task that filled it may end a moment
    /// later, and what it returned must not live on with it).
    func wait() -> T {
        done.wait()
        guard let value else { preconditionFailure("signalled without a value") }
        self.value = nil
        return value
    }
}
