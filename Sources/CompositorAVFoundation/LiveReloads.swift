import Compositor
import Foundation

/// A live controller's reloads of its playlist: `LiveStreamFollower` on a clock, run on a task of
/// its own that `cancel()` (from `stop()`, or the controller's `deinit`, which is not isolated:
/// hence the lock) ends.
final class LiveReloads: @unchecked Sendable {
    let follower: LiveStreamFollower
    private let follow: @Sendable (LiveStreamFollower.Load, @escaping @Sendable (LiveStreamFollower.Load) async -> Void) async throws -> Void
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    init<C: Clock>(_ follower: LiveStreamFollower, clock: C) where C.Duration == Duration {
        self.follower = follower
        follow = { first, reloaded in try await follower.follow(after: first, clock: clock, reloaded: reloaded) }
    }

    /// Reloads after `first`, handing each change to `reloaded`; the failure that ends them to `failed`.
    func start(after first: LiveStreamFollower.Load, reloaded: @escaping @Sendable (LiveStreamFollower.Load) async -> Void,
               failed: @escaping @Sendable (any Error) async -> Void) {
        let follow = follow
        let new = Task.detached {
            do { try await follow(first, reloaded) } catch { await failed(error) }
        }
        lock.withLock { () -> Task<Void, Never>? in
            defer { task = new }
            return task
        }?.cancel()
    }

    func cancel() {
        lock.withLock { () -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }?.cancel()
    }
}
