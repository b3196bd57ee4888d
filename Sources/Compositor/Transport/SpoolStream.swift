import CompositorCore
import CompositorIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes a render copies from remote sources, fetched in the order the render copies them, a
/// bounded window ahead of it, and handed to the output from memory.
///
/// Through the spool file instead, each byte would be written twice more (into the spool, then
/// from it into the output), and a gigabyte of spool pages would be written back to disk beside
/// the output: the render took four times as long as curl plus a durable copy
/// (`Benchmarks/remote`). Here a fetched range waits in memory (at most `window` bytes, fetched or
/// in flight) until the output takes it (`RemoteSpool.copyStaged`), and goes: memory stays flat
/// whatever the size of the sources. A copy the stream does not hold (not planned, or out of order)
/// reads through the spool as before.
package final class SpoolStream: @unchecked Sendable {
    /// One request's bytes, in the order the render copies them.
    private struct Chunk {
        let spool: RemoteSpool
        let range: Range<UInt64>
        var bytes: [UInt8]?
    }

    /// Fetched and in-flight bytes a stream holds at most by default (64 MiB: eight 8 MiB requests).
    package static let defaultWindow: UInt64 = 64 << 20

    /// Fetched and in-flight bytes the stream holds at most (one request's, when that is more).
    private let window: UInt64

    private let condition = StreamCondition()
    // Under `condition`'s mutex:
    private var chunks: [Chunk]
    /// The first chunk not yet fully handed over.
    private var head = 0
    /// How far into the head chunk the output has taken.
    private var taken: UInt64 = 0
    /// Bytes fetched or in flight and not yet handed over.
    private var held: UInt64 = 0
    private var failure: HTTPTransportError?
    /// Set when the output asked for something out of order, or the render ended: nothing more is
    /// fetched or handed over.
    private var stopped = false
    private var windowWaiter: CheckedContinuation<Void, Never>?
    private var fetcher: Task<Void, Never>?

    /// A stream of `copies` (each spool's ranges, in the order the render copies them), split into
    /// requests of at most `RemoteSpool.maximumFetch` bytes, holding at most `window` bytes.
    package init(_ copies: [(spool: RemoteSpool, range: Range<UInt64>)], window: UInt64 = defaultWindow) {
        self.window = window
        chunks = copies.flatMap { copy in
            stride(from: copy.range.lowerBound, to: copy.range.upperBound, by: Int(RemoteSpool.maximumFetch)).map {
                Chunk(spool: copy.spool, range: $0..<min($0 + RemoteSpool.maximumFetch, copy.range.upperBound))
            }
        }
    }

    /// Starts fetching, `width` requests at a time, and attaches the stream to its spools.
    package func start(width: Int) {
        var attached = Set<ObjectIdentifier>()
        for chunk in chunks where attached.insert(ObjectIdentifier(chunk.spool)).inserted { chunk.spool.stream = self }
        fetcher = Task.detached { [self] in await fetchAll(width: max(1, width)) }
    }

    /// Stops fetching, lets go of every byte held, and detaches from the spools.
    package func finish() {
        fetcher?.cancel()
        let spools = condition.locked { () -> [RemoteSpool] in
            stopped = true
            let spools = chunks.map(\.spool)
            chunks = []
            wakeFetcher()
            return spools
        }
        for spool in spools where spool.stream === self { spool.stream = nil }
        condition.broadcast()
    }

    // MARK: Fetching

    private func fetchAll(width: Int) async {
        await withTaskGroup(of: (Int, Result<[UInt8], HTTPTransportError>).self) { group in
            var next = 0
            var inFlight = 0
            while true {
                // Launch what the width and the window allow (always one, when nothing is held).
                while inFlight < width, let (index, chunk) = condition.locked({ () -> (Int, Chunk)? in
                    guard !stopped, failure == nil, next < chunks.count else { return nil }
                    let size = UInt64(chunks[next].range.count)
                    guard held == 0 || held + size <= window else { return nil }
                    held += size
                    return (next, chunks[next])
                }) {
                    group.addTask { (index, await chunk.spool.fetchBytes(chunk.range)) }
                    next += 1
                    inFlight += 1
                }
                if inFlight > 0 {
                    guard let (index, result) = await group.next() else { return }
                    inFlight -= 1
                    condition.locked {
                        guard !stopped, chunks.indices.contains(index) else { return }
                        switch result {
                        case .success(let bytes): chunks[index].bytes = bytes
                        case .failure(let error): if failure == nil { failure = error }
                        }
                    }
                    condition.broadcast()
                    if case .failure = result { group.cancelAll() }
                    continue
                }
                let done = condition.locked { stopped || failure != nil || next >= chunks.count }
                if done || Task.isCancelled { return }
                // The window is full of fetched bytes: wait until the output takes some.
                await withCheckedContinuation { continuation in
                    let ready = condition.locked { () -> Bool in
                        if stopped || next >= chunks.count || held + UInt64(chunks[next].range.count) <= window { return true }
                        windowWaiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
        }
    }

    /// Resumes the fetcher when it waits for room (under the mutex).
    private func wakeFetcher() {
        windowWaiter?.resume()
        windowWaiter = nil
    }

    // MARK: Handing over

    /// Hands the output the bytes of `range` of `spool` the stream holds, from its start and in
    /// order, waiting for them to arrive; stops at the first byte it does not hold.
    ///
    /// - Returns: How many bytes of `range` were handed to `write` (0 when the stream does not
    ///   hold its start: the output reads it through the spool).
    /// - Throws: The fetch's failure, as `FileError` naming the URL; what `write` threw.
    func copy(_ range: Range<UInt64>, of spool: RemoteSpool,
              into write: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) -> UInt64 {
        var position = range.lowerBound
        while position < range.upperBound {
            let next = condition.waitUntil { () -> Result<(range: Range<UInt64>, bytes: [UInt8])?, HTTPTransportError>? in
                if let failure { return .failure(failure) }
                guard !stopped, head < chunks.count, chunks[head].spool === spool,
                      chunks[head].range.lowerBound + taken == position else { return .success(nil) }
                guard let bytes = chunks[head].bytes else { return nil }   // not arrived yet: wait
                return .success((chunks[head].range, bytes))
            }
            var chunk: (range: Range<UInt64>, bytes: [UInt8])
            switch next {
            case .failure(let error):
                spool.record(error)
                throw FileError(FilePath(spool.displayName), .system(operation: "fetch bytes \(position)-\(range.upperBound - 1)", message: error.reason))
            case .success(nil):
                // Out of the planned order: the stream stops, and every copy reads through the spools.
                if position == range.lowerBound { stopOutOfOrder() }
                return position - range.lowerBound
            case .success(let arrived?):
                chunk = arrived
            }
            let end = min(range.upperBound, chunk.range.upperBound)
            let from = Int(position - chunk.range.lowerBound), to = Int(end - chunk.range.lowerBound)
            let result = chunk.bytes.withUnsafeBytes { bytes in
                Result { () throws(FileError) in try write(UnsafeRawBufferPointer(rebasing: bytes[from..<to])) }
            }
            try result.get()
            position = end
            let done = condition.locked { () -> [UInt8]? in
                guard !stopped else { return nil }
                guard end == chunk.range.upperBound else {
                    taken = end - chunk.range.lowerBound
                    return nil
                }
                held -= UInt64(chunk.range.count)
                head += 1
                taken = 0
                wakeFetcher()
                return chunks[head - 1].bytes.take()
            }
            // Its memory goes to the next large body once no one else holds it.
            chunk.bytes = []
            if let done { BodyBuffers.shared.recycle(done) }
        }
        return position - range.lowerBound
    }

    private func stopOutOfOrder() {
        fetcher?.cancel()
        condition.locked {
            stopped = true
            chunks = []
            held = 0
            wakeFetcher()
        }
        condition.broadcast()
    }
}

/// A mutex and a condition variable: the output's thread waits for fetched bytes on it.
/// (`Synchronization.Mutex` needs iOS 18, and has no condition.)
private final class StreamCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Blocks until `check` (run under the mutex) returns a value, waking at each broadcast.
    func waitUntil<T>(_ check: () -> T?) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value = check() { return value }
            pthread_cond_wait(condition, mutex)
        }
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
