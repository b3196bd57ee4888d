import CompositorCore
import CompositorIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A remote resource read through a spool: a sparse local file of the resource's length whose
/// bytes are fetched by ranged GETs the first time they are needed, at the same offsets.
///
/// The file is unlinked as soon as it is made, and read through its descriptor's path
/// (`/proc/self/fd/N`, `/dev/fd/N`): nothing of it is left on disk however the process ends, killed
/// or not, and its blocks are freed when the spool goes.
///
/// The media layers read the spool's path as they read any file (`SpoolFiles`); only what they
/// read is fetched: an MP4's `moov` wherever it is (front, end, after a large `mdat`), the samples
/// a render copies. Every response is checked against the first: the same length, `ETag` and
/// `Last-Modified` (a resource that changes while it is read is an error, never a mix), a 206
/// with exactly the bytes asked for (a server that ignores `Range`, a short body: errors).
package final class RemoteSpool: SpoolFiller, @unchecked Sendable {
    /// The URL reads go to: the one asked for, after the first read's redirects.
    package let url: String
    /// The URL as it may be printed (no userinfo, query or fragment).
    package let displayName: String
    /// The local file standing for the resource: its descriptor's path.
    package let path: FilePath
    /// What the server said the resource is, at the first read.
    package let identity: RemoteIdentity
    package var size: UInt64 { identity.length }

    /// The first read: enough for the front of most files (`ftyp` and a `moov` there), and the
    /// resource's length and validators.
    static let firstFetch: UInt64 = 256 << 10
    /// The smallest read after it: a header walk reads a few bytes at a time (a fragmented file's
    /// `moof`s, each followed by its `mdat`, cost this much each, not their media).
    static let minimumFetch: UInt64 = 16 << 10
    /// The largest single request: big copies go as several, some at once.
    static let maximumFetch: UInt64 = 8 << 20

    private let transport: any HTTPTransport
    private let limits: HTTPTransportLimits
    private let descriptor: Int32
    private let lock = SpoolLock()
    /// The byte ranges the spool holds: sorted, apart, merged.
    private var present: [Range<UInt64>] = []
    /// The first transport error a synchronous fill met, kept for the caller's typed error.
    private var firstFailure: HTTPTransportError?
    /// The render's stream of this spool's bytes, while one runs.
    private weak var attachedStream: SpoolStream?

    private init(url: String, identity: RemoteIdentity, descriptor: Int32, transport: any HTTPTransport, limits: HTTPTransportLimits) {
        self.url = url
        self.displayName = URIReference.redactedForDisplay(url)
        self.identity = identity
        self.path = Self.path(of: descriptor)
        self.descriptor = descriptor
        self.transport = transport
        self.limits = limits
    }

    deinit {
        SpoolFiles.unregister(path)
        close(descriptor)
    }

    /// The path that opens `descriptor`'s file again (a new open file description of it).
    private static func path(of descriptor: Int32) -> FilePath {
        #if os(Linux) || os(Android)
        FilePath("/proc/self/fd/\(descriptor)")
        #else
        FilePath("/dev/fd/\(descriptor)")
        #endif
    }

    /// Opens `url` with a first ranged read (its first `firstFetch` bytes, which tell its length
    /// and identity), and makes its spool in `$TMPDIR` (or `/tmp`), unlinked at once. A server that
    /// ignores `Range` (RFC 9110 lets it answer 200 with the whole body, as `python3 -m
    /// http.server` does) has the resource read whole, up to `limits.maximumBodyBytes`: the spool
    /// then holds all of it, and no later read goes to the network.
    ///
    /// - Throws: `HTTPTransportError`: the read failed, the server ignores ranges and the resource
    ///   is over the body limit, or the spool file could not be made (as `.connectionFailed`,
    ///   naming the local reason).
    package static func open(_ url: String, transport: any HTTPTransport, limits: HTTPTransportLimits) async throws(HTTPTransportError) -> RemoteSpool {
        var first = limits
        first.maximumBodyBytes = Int(firstFetch)
        let fetched: (url: String, response: HTTPTransportResponse)
        do {
            fetched = try await HTTPFetch.get(url, byteRange: 0...(firstFetch - 1), transport: transport, limits: first)
        } catch {
            if case .tooLarge = error.problem { return try await openWhole(url, transport: transport, limits: limits) }
            throw error
        }
        let response = fetched.response
        let length: UInt64
        switch response.status {
        case 206:
            guard let range = ContentRange(response.headers["content-range"]), range.first == 0, let total = range.total,
                  range.last == min(firstFetch, total) - 1, UInt64(response.body.count) == range.last - range.first + 1 else {
                throw HTTPTransportError(url: url, problem: .badResponse("HTTP 206 whose Content-Range (\(response.headers["content-range"] ?? "none")) "
                                                                         + "does not match its \(response.body.count) bytes or bytes 0-\(firstFetch - 1)"))
            }
            length = total
        case 200:
            // The whole resource in one answer: only when it is that small (a bigger one was cut off above).
            length = UInt64(response.body.count)
        default:
            throw HTTPTransportError(url: url, problem: .badResponse("HTTP \(response.status) to a ranged GET"))
        }
        return try made(url, fetched, length: length, transport: transport, limits: limits)
    }

    /// The resource of a server that answered a ranged GET with more than was asked (the whole
    /// body): read whole by a plain GET, within the body limit, held in memory as it arrives.
    private static func openWhole(_ url: String, transport: any HTTPTransport, limits: HTTPTransportLimits) async throws(HTTPTransportError) -> RemoteSpool {
        let fetched: (url: String, response: HTTPTransportResponse)
        do {
            fetched = try await HTTPFetch.get(url, transport: transport, limits: limits)
        } catch {
            if case .tooLarge(let limit) = error.problem {
                throw HTTPTransportError(url: url, problem: .badResponse(
                    "the server ignores byte ranges, so the file is read whole, and it is over the body limit of \(limit) bytes "
                        + "(HTTPTransportLimits.maximumBodyBytes)"))
            }
            throw error
        }
        guard fetched.response.status == 200 else {
            throw HTTPTransportError(url: url, problem: .badResponse("HTTP \(fetched.response.status) to a GET of the whole file"))
        }
        return try made(url, fetched, length: UInt64(fetched.response.body.count), transport: transport, limits: limits)
    }

    /// The spool of a resource of `length` bytes whose first read was `fetched` (its body stored).
    private static func made(_ url: String, _ fetched: (url: String, response: HTTPTransportResponse), length: UInt64,
                             transport: any HTTPTransport, limits: HTTPTransportLimits) throws(HTTPTransportError) -> RemoteSpool {
        let identity = RemoteIdentity(url: fetched.url, response: fetched.response, length: length)
        let descriptor = try makeUnlinkedFile(length: length, for: url)
        let spool = RemoteSpool(url: fetched.url, identity: identity, descriptor: descriptor, transport: transport, limits: limits)
        try spool.store(fetched.response.body, at: 0)
        SpoolFiles.register(spool.path, filler: spool)
        return spool
    }

    /// A new file of `length` bytes (sparse) in `$TMPDIR` or `/tmp`, already unlinked: its
    /// descriptor.
    private static func makeUnlinkedFile(length: UInt64, for url: String) throws(HTTPTransportError) -> Int32 {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast()) + Array("compositor-spool-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw HTTPTransportError(url: url, problem: .connectionFailed("cannot make a spool file in \(base): \(String(cString: strerror(errno)))"))
        }
        unlink(template)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPTransportError(url: url, problem: .connectionFailed("cannot make a spool file of \(length) bytes in \(base): \(reason)"))
        }
        return descriptor
    }

    /// A server that honoured `Range` at the first read and ignores it later (a changed origin or
    /// cache): the spool cannot mix its reads.
    private static let ignoredRange = "the server ignored the byte range (HTTP 200 with the whole body) after honouring it at the first read"

    /// The first transport error a read through the spool met, if any.
    package var failure: HTTPTransportError? { lock.locked { firstFailure } }

    /// Keeps `error` as the spool's failure, unless it has one.
    func record(_ error: HTTPTransportError) {
        lock.locked { if firstFailure == nil { firstFailure = error } }
    }

    /// The stream a render copies this spool's bytes from (see `SpoolStream`), while it runs.
    var stream: SpoolStream? {
        get { lock.locked { attachedStream } }
        set { lock.locked { attachedStream = newValue } }
    }

    /// Hands `write` the bytes of `range` the render's stream holds, from its start (see
    /// `SpoolStream.copy`); 0 without a stream.
    package func copyStaged(_ range: Range<UInt64>, into write: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) -> UInt64 {
        guard let stream else { return 0 }
        return try stream.copy(range, of: self, into: write)
    }

    /// The bytes of `range`: from the spool when it holds them (all of a resource read whole),
    /// else one ranged GET, checked as every read of the spool is.
    func fetchBytes(_ range: Range<UInt64>) async -> Result<[UInt8], HTTPTransportError> {
        if let held = heldBytes(range) { return .success(held) }
        var ranged = limits
        ranged.maximumBodyBytes = Int(range.count)
        do {
            let fetched = try await HTTPFetch.get(url, byteRange: range.lowerBound...(range.upperBound - 1), transport: transport, limits: ranged)
            try check(fetched.response, for: range)
            return .success(fetched.response.body)
        } catch {
            if case .tooLarge = error.problem { return .failure(HTTPTransportError(url: url, problem: .badResponse(Self.ignoredRange))) }
            return .failure(error)
        }
    }

    /// Fetches what `ranges` lack (blocking: called by the media layers' reads, on the library's
    /// own blocking threads).
    package func fill(_ ranges: [Range<UInt64>]) throws(FileError) {
        guard lock.locked({ ranges.contains { !missing(in: $0).isEmpty } }) else { return }
        let result = waitForTask { [self] () -> HTTPTransportError? in
            do throws(HTTPTransportError) { try await fetch(ranges); return nil } catch { return error }
        }
        guard let error = result else { return }
        record(error)
        let what = ranges.count == 1 ? "bytes \(ranges[0].lowerBound)-\(ranges[0].upperBound - 1)" : "\(ranges.count) byte ranges"
        throw FileError(FilePath(displayName), .system(operation: "fetch \(what)", message: error.reason))
    }

    /// Fetches what `ranges` lack: gaps closer than `minimumFetch` joined, each request at most
    /// `maximumFetch` bytes, at most `limits.maximumConcurrentRequests` in flight.
    package func fetch(_ ranges: [Range<UInt64>]) async throws(HTTPTransportError) {
        let requests: [Range<UInt64>] = lock.locked {
            var gaps: [Range<UInt64>] = []
            for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                for gap in missing(in: range.clamped(to: 0..<size)) {
                    // Widened to the smallest read, within what is missing.
                    let end = min(max(gap.upperBound, gap.lowerBound + Self.minimumFetch), nextPresent(after: gap.lowerBound))
                    if let last = gaps.last, gap.lowerBound <= last.upperBound + Self.minimumFetch {
                        gaps[gaps.count - 1] = last.lowerBound..<max(last.upperBound, end)
                    } else {
                        gaps.append(gap.lowerBound..<end)
                    }
                }
            }
            return gaps.flatMap { gap in
                stride(from: gap.lowerBound, to: gap.upperBound, by: Int(Self.maximumFetch)).map { $0..<min($0 + Self.maximumFetch, gap.upperBound) }
            }
        }
        guard !requests.isEmpty else { return }
        let width = max(1, limits.maximumConcurrentRequests)
        let failure = await withTaskGroup(of: HTTPTransportError?.self) { group -> HTTPTransportError? in
            var next = 0
            var failure: HTTPTransportError?
            while next < min(width, requests.count) {
                let range = requests[next]
                group.addTask { await self.fetchOne(range) }
                next += 1
            }
            while let done = await group.next() {
                if let done, failure == nil { failure = done; group.cancelAll() }
                if failure == nil, next < requests.count {
                    let range = requests[next]
                    group.addTask { await self.fetchOne(range) }
                    next += 1
                }
            }
            return failure
        }
        if let failure { throw failure }
    }

    /// One ranged GET into the spool file; the error, or `nil`.
    private func fetchOne(_ range: Range<UInt64>) async -> HTTPTransportError? {
        do throws(HTTPTransportError) {
            let bytes = try await fetchBytes(range).get()
            try store(bytes, at: range.lowerBound)
            BodyBuffers.shared.recycle(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// Throws unless `response` holds exactly `range` of the same resource.
    private func check(_ response: HTTPTransportResponse, for range: Range<UInt64>) throws(HTTPTransportError) {
        let now = RemoteIdentity(url: url, response: response, length: identity.length)
        if let change = identity.change(to: now) { throw HTTPTransportError(url: url, problem: .changed(change)) }
        switch response.status {
        case 206:
            guard let got = ContentRange(response.headers["content-range"]) else {
                throw HTTPTransportError(url: url, problem: .badResponse("HTTP 206 without a Content-Range"))
            }
            if let total = got.total, total != size {
                throw HTTPTransportError(url: url, problem: .changed("\(size) bytes then, \(total) now"))
            }
            guard got.first == range.lowerBound, got.last == range.upperBound - 1 else {
                throw HTTPTransportError(url: url, problem: .badResponse(
                    "asked for bytes \(range.lowerBound)-\(range.upperBound - 1), the server sent \(got.first)-\(got.last)"))
            }
            guard UInt64(response.body.count) == range.count else {
                throw HTTPTransportError(url: url, problem: .badResponse(
                    "bytes \(range.lowerBound)-\(range.upperBound - 1) came short: \(response.body.count) of \(range.count)"))
            }
        case 200 where range == 0..<size && UInt64(response.body.count) == size:
            break
        default:
            throw HTTPTransportError(url: url, problem: .badResponse(response.status == 200 ? Self.ignoredRange : "HTTP \(response.status) to a ranged GET"))
        }
    }

    /// `range` read back from the spool file, when it holds all of it.
    private func heldBytes(_ range: Range<UInt64>) -> [UInt8]? {
        guard !range.isEmpty, lock.locked({ missing(in: range).isEmpty }) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(range.count))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }

    /// Writes `bytes` at `offset` of the spool and counts them as present.
    private func store(_ bytes: [UInt8], at offset: UInt64) throws(HTTPTransportError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HTTPTransportError(url: url, problem: .connectionFailed("cannot write the local spool file \(path): \(String(cString: strerror(errno)))"))
            }
            done += n
        }
        guard !bytes.isEmpty else { return }
        lock.locked { insert(offset..<(offset + UInt64(bytes.count))) }
    }

    // MARK: The ranges held (under `lock`)

    /// The parts of `range` the spool does not hold.
    private func missing(in range: Range<UInt64>) -> [Range<UInt64>] {
        var gaps: [Range<UInt64>] = []
        var position = range.lowerBound
        for held in present where held.upperBound > position && held.lowerBound < range.upperBound {
            if held.lowerBound > position { gaps.append(position..<held.lowerBound) }
            position = max(position, held.upperBound)
        }
        if position < range.upperBound { gaps.append(position..<range.upperBound) }
        return gaps
    }

    /// Where the next held range after `offset` starts (the resource's end when none does).
    private func nextPresent(after offset: UInt64) -> UInt64 {
        present.first(where: { $0.lowerBound > offset })?.lowerBound ?? size
    }

    private func insert(_ range: Range<UInt64>) {
        var merged = range
        var kept: [Range<UInt64>] = []
        for held in present {
            if held.upperBound < merged.lowerBound || held.lowerBound > merged.upperBound {
                kept.append(held)
            } else {
                merged = min(held.lowerBound, merged.lowerBound)..<max(held.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        present = kept.sorted { $0.lowerBound < $1.lowerBound }
    }
}

/// What a server says a resource is: where it was found, its validators and its length. Two reads
/// of one resource belong together only when these agree.
package struct RemoteIdentity: Hashable, Sendable {
    package let url: String
    package let entityTag: String?
    package let lastModified: String?
    package let length: UInt64

    init(url: String, response: HTTPTransportResponse, length: UInt64) {
        self.url = url
        entityTag = response.headers["etag"]
        lastModified = response.headers["last-modified"]
        self.length = length
    }

    /// How `now` differs from this identity, or `nil` when it does not (a validator the server did
    /// not send is not compared).
    func change(to now: RemoteIdentity) -> String? {
        if let was = entityTag, let is_ = now.entityTag, was != is_ { return "ETag \(was) then, \(is_) now" }
        if let was = lastModified, let is_ = now.lastModified, was != is_ { return "Last-Modified \(was) then, \(is_) now" }
        return nil
    }
}

/// A `Content-Range: bytes first-last/total` header (RFC 9110 14.4); `total` is `nil` for `*`.
struct ContentRange: Hashable {
    let first: UInt64
    let last: UInt64
    let total: UInt64?

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = UInt64(bounds[0]), let last = UInt64(bounds[1]), first <= last else { return nil }
        self.first = first
        self.last = last
        if parts[1] == "*" { total = nil } else {
            guard let total = UInt64(parts[1]), last < total else { return nil }
            self.total = total
        }
    }
}

/// A catalog's spools, one per URL; each goes (and its file's blocks are freed) when nothing
/// holds it any more.
package final class Spools: @unchecked Sendable {
    private let lock = SpoolLock()
    private var spools: [String: RemoteSpool] = [:]

    package init() {}

    deinit {
        // Out of the table of open spools now: once the last read through one ends, it goes.
        for spool in spools.values { SpoolFiles.unregister(spool.path) }
    }

    /// The spool of `url`, opened once (the first call reads its first bytes).
    package func spool(for url: String, transport: any HTTPTransport, limits: HTTPTransportLimits) async throws(HTTPTransportError) -> RemoteSpool {
        if let open = lock.locked({ spools[url] }) { return open }
        let opened = try await RemoteSpool.open(url, transport: transport, limits: limits)
        // Two loads of one URL at once keep the first spool made.
        return lock.locked {
            if let open = spools[url] { return open }
            spools[url] = opened
            return opened
        }
    }

    /// Every spool, by the URL it was asked for.
    package var all: [String: RemoteSpool] { lock.locked { spools } }
}

/// A mutex for the spool's bookkeeping. (`Synchronization.Mutex` needs iOS 18.)
final class SpoolLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
