/// The memory of large response bodies, handed back by their last reader and read into again by
/// the next large response.
///
/// A render streams a gigabyte through 8 MiB bodies (`SpoolStream`): in new memory each time, every
/// page of every body is faulted in and zeroed by the kernel before the socket's bytes are copied
/// over it, about a sixth of the render's time (`perf`, `Benchmarks/remote`). At most
/// `capacity` bytes are kept; a body handed back that is still shared elsewhere is simply
/// dropped by the pool's next use of it (copy on write keeps the other holder's bytes).
///
/// `@unchecked Sendable`: the free list is only touched under `lock`.
final class BodyBuffers: @unchecked Sendable {
    /// The process's pool: a stream's window and its requests in flight (96 MiB).
    static let shared = BodyBuffers(capacity: 96 << 20)
    /// Bodies smaller than this come from new memory: they are not worth keeping.
    static let smallest = 1 << 20

    /// The most bytes kept for reuse.
    let capacity: Int
    private let lock = SpoolLock()
    private var free: [[UInt8]] = []

    init(capacity: Int) { self.capacity = capacity }

    /// An array of exactly `count` bytes whose contents are left over from an earlier body, or
    /// `nil` when none is kept (or `count` is small).
    func take(count: Int) -> [UInt8]? {
        guard count >= Self.smallest else { return nil }
        var bytes: [UInt8]? = lock.locked {
            guard let index = free.indices.filter({ free[$0].capacity >= count }).min(by: { free[$0].capacity < free[$1].capacity }) else {
                return nil
            }
            return free.remove(at: index)
        }
        guard var body = bytes.take() else { return nil }
        if body.count > count {
            body.removeLast(body.count - count)
        } else if body.count < count {
            body.appendZeros(count - body.count)
        }
        return body
    }

    /// Keeps `bytes`' memory for a later body, while the pool holds under `capacity`.
    func recycle(_ bytes: consuming [UInt8]) {
        let body = bytes
        guard body.capacity >= Self.smallest else { return }
        lock.locked {
            guard free.reduce(0, { $0 + $1.capacity }) + body.capacity <= capacity else { return }
            free.append(body)
        }
    }
}
