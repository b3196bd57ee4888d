import Foundation
import Testing
import CompositorUmbrellaTestSupport
@testable import Compositor
import CompositorIO

/// `work` on a thread of its own (a stream's `copy` blocks, as the render's writer does), awaited.
private func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in Thread.detachNewThread { continuation.resume(returning: work()) } }
}

/// What a stream handed over for each copy: the bytes, or the error.
private func take(_ stream: SpoolStream, _ spool: RemoteSpool, _ ranges: [Range<UInt64>]) async -> [Result<[UInt8], FileError>] {
    await blocking {
        ranges.map { range in
            var bytes: [UInt8] = []
            return Result { () throws(FileError) in
                let count = try stream.copy(range, of: spool) { (piece) throws(FileError) in bytes += piece }
                #expect(count == UInt64(bytes.count))
                return bytes
            }
        }
    }
}

@Suite("A render's remote samples: fetched in copy order, a bounded window ahead, handed over from memory")
struct SpoolStreamTests {
    /// 20 MiB whose every 4 bytes say where they are.
    static let file: [UInt8] = [UInt8](unsafeUninitializedCapacity: 20 << 20) { buffer, count in
        let words = UnsafeMutableRawBufferPointer(buffer).bindMemory(to: UInt32.self)
        for index in words.indices { words[index] = UInt32(index) }
        count = 20 << 20
    }
    static let url = "http://127.0.0.1:1/big.bin"
    static let limits = HTTPTransportLimits(retryDelay: .milliseconds(1))

    private func open(_ transport: FileServingTransport) async throws -> RemoteSpool {
        try await RemoteSpool.open(Self.url, transport: transport, limits: Self.limits)
    }

    //  file   0 ─────── 8 ─────── 16 ── 20 MiB
    //  copies [0, 3) [3, 12)        [14, 20)      in this order
    //  chunks [0,3) [3,11) [11,12) [14,20)        at most 8 MiB each, a window of 9 MiB ahead
    @Test("the copies' bytes, exactly; at most a window's worth fetched ahead of the output")
    func inOrder() async throws {
        let transport = FileServingTransport(["big.bin": Self.file])
        let spool = try await open(transport)
        let mib: UInt64 = 1 << 20
        let copies = [0..<3 * mib, 3 * mib..<12 * mib, 14 * mib..<20 * mib]
        let stream = SpoolStream(copies.map { (spool, $0) }, window: 9 * mib)
        stream.start(width: 4)
        defer { stream.finish() }
        // Nothing taken yet: the first chunk is asked for, and no other (3 + 8 MiB > 9 MiB) until
        // the output takes it.
        for _ in 0..<600 where transport.requests.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(300))
        let ahead = transport.requests.dropFirst().compactMap(\.byteRange)
        #expect(ahead == [0...(3 * mib - 1)], "\(ahead)")
        let taken = await take(stream, spool, copies)
        for (copy, result) in zip(copies, taken) {
            #expect(try result.get() == Array(Self.file[Int(copy.lowerBound)..<Int(copy.upperBound)]))
        }
        let asked = transport.requests.dropFirst().compactMap(\.byteRange)
        #expect(asked == [0...(3 * mib - 1), 3 * mib...(11 * mib - 1), 11 * mib...(12 * mib - 1), 14 * mib...(20 * mib - 1)], "\(asked)")
    }

    @Test("a copy out of the planned order stops the stream: it and every later copy read through the spool")
    func outOfOrder() async throws {
        let transport = FileServingTransport(["big.bin": Self.file])
        let spool = try await open(transport)
        let stream = SpoolStream([(spool, 0..<100), (spool, 1000..<2000)], window: 1 << 20)
        stream.start(width: 2)
        defer { stream.finish() }
        let taken = await take(stream, spool, [1000..<2000, 0..<100])
        #expect(try taken.map { try $0.get() } == [[], []])
    }

    @Test("a fetch that fails: the copy waiting for it throws, naming the URL; the spool keeps the failure")
    func failure() async throws {
        let transport = FileServingTransport(["big.bin": Self.file], fault: .changesETag(fromRequest: 3))
        let spool = try await open(transport)
        let stream = SpoolStream([(spool, 0..<(9 << 20))], window: 16 << 20)
        stream.start(width: 1)
        defer { stream.finish() }
        let taken = await take(stream, spool, [0..<(9 << 20)])
        guard case .failure(let error) = taken[0] else { Issue.record("no failure"); return }
        #expect(error.path.description == Self.url, "\(error)")
        guard case .changed? = spool.failure?.problem else { Issue.record("\(String(describing: spool.failure))"); return }
    }

    @Test("finished while the output waits or fetches go on: nothing more is handed over or kept")
    func finishedEarly() async throws {
        let transport = FileServingTransport(["big.bin": Self.file])
        let spool = try await open(transport)
        let stream = SpoolStream([(spool, 0..<(20 << 20))], window: 8 << 20)
        stream.start(width: 2)
        #expect(spool.stream === stream)
        stream.finish()
        #expect(spool.stream == nil)
        let taken = await take(stream, spool, [0..<100])
        #expect(try taken[0].get() == [])
    }

    @Test("a large body's memory is read into again: the exact count asked, within the pool's capacity")
    func bodyBuffers() {
        let pool = BodyBuffers(capacity: 4 << 20)
        #expect(pool.take(count: 2 << 20)?.count == nil, "nothing kept yet")
        pool.recycle([UInt8](repeating: 1, count: 3 << 20))
        pool.recycle([UInt8](repeating: 2, count: 2 << 20))   // over the capacity: dropped
        pool.recycle([UInt8](repeating: 3, count: 1000))      // small: never kept
        #expect(pool.take(count: 1000)?.count == nil)
        let cut = pool.take(count: 2 << 20)
        #expect(cut?.count == 2 << 20 && cut?.first == 1 && cut?.last == 1, "the 3 MiB one, cut to the count")
        #expect(pool.take(count: 1 << 20)?.count == nil, "none left")
        pool.recycle(cut!)
        let grown = pool.take(count: 3 << 20)
        #expect(grown?.count == 3 << 20 && grown?.first == 1 && grown?.last == 0, "grown back to the count asked")
    }
}
