import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `work` (blocking file I/O: a render or a stitch writes gigabytes) on a Dispatch thread, so
/// it never holds one of Swift concurrency's few cooperative threads, and resumes with its result.
///
/// Neither `work` (with what it captured) nor its result stays on the Dispatch thread once the
/// caller resumes: a process that exits right after finds nothing of them live.
func runOffCooperativePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    let once = WorkOnce(work)
    return await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async {
            let result = once.run()
            continuation.resume(returning: consume result)
        }
    }
}

/// A closure run once and let go of as it returns. (`@unchecked Sendable`: only the one Dispatch
/// block that runs it touches it.)
private final class WorkOnce<T>: @unchecked Sendable {
    private var work: (@Sendable () -> T)?

    init(_ work: @escaping @Sendable () -> T) { self.work = work }

    func run() -> T {
        // Made for one run by `runOffCooperativePool`, which runs it once: no input reaches this.
        guard let work else { preconditionFailure("WorkOnce run twice") }
        self.work = nil
        // `work` is the only reference left; it goes when this returns.
        return work()
    }
}

/// Runs `work` as `runOffCooperativePool` does, handing it a question it asks between steps:
/// "has my task been cancelled?" (`true` once it has). `work` stops there with its own typed error.
func runCancellable<T: Sendable, E: Error>(_ work: @escaping @Sendable (_ isCancelled: () -> Bool) throws(E) -> T) async -> Result<T, E> {
    let cancelled = CancellationFlag()
    return await withTaskCancellationHandler {
        await runOffCooperativePool { Result { () throws(E) in try work { cancelled.isSet } } }
    } onCancel: {
        cancelled.set()
    }
}

/// A flag one thread sets (a task's cancellation handler) and another reads (the writer, between
/// steps). A mutex rather than an atomic: `Synchronization.Atomic` needs iOS 18.
final class CancellationFlag: @unchecked Sendable {
    /// On the heap: a mutex must not move, and a stored property's address is not fixed.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value = false

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    var isSet: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return value
    }

    func set() {
        pthread_mutex_lock(mutex)
        value = true
        pthread_mutex_unlock(mutex)
    }
}
