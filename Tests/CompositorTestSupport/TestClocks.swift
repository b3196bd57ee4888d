import Foundation

/// An instant of a test's clock: a duration since the clock began.
package struct TestInstant: InstantProtocol {
    package var offset: Duration
    package init(offset: Duration) { self.offset = offset }
    package func advanced(by duration: Duration) -> TestInstant { TestInstant(offset: offset + duration) }
    package func duration(to other: TestInstant) -> Duration { other.offset - offset }
    package static func < (a: TestInstant, b: TestInstant) -> Bool { a.offset < b.offset }
}

/// A clock that never waits: each sleep moves it to the instant asked for, and is recorded.
package final class InstantClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = TestInstant(offset: .zero)
    private var slept: [Duration] = []
    package init() {}
    package var now: TestInstant { lock.withLock { current } }
    package var minimumResolution: Duration { .nanoseconds(1) }
    /// Every sleep's length, in order.
    package var sleeps: [Duration] { lock.withLock { slept } }

    package func sleep(until deadline: TestInstant, tolerance: Duration?) async throws {
        lock.withLock {
            slept.append(current.duration(to: deadline))
            current = deadline
        }
    }
}

/// A clock the test moves: each sleep waits until `advance(by:)` passes its deadline (or the
/// sleeping task is cancelled).
package final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = TestInstant(offset: .zero)
    private var sleepers: [(id: Int, deadline: TestInstant, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0
    package init() {}
    package var now: TestInstant { lock.withLock { current } }
    package var minimumResolution: Duration { .nanoseconds(1) }

    package func sleep(until deadline: TestInstant, tolerance: Duration?) async throws {
        let id = lock.withLock { () -> Int in
            defer { nextID += 1 }
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = lock.withLock { () -> Bool in
                    guard deadline > current, !Task.isCancelled else { return true }
                    sleepers.append((id, deadline, continuation))
                    return false
                }
                if due {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let cancelled = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on; every sleep whose deadline it reaches returns.
    package func advance(by duration: Duration) {
        let woken = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// How many sleeps are waiting.
    package var waiting: Int { lock.withLock { sleepers.count } }
}
