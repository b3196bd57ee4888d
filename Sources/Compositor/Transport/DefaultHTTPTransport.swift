#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The transport the library uses unless it is given another.
///
/// On Linux, `http:` URLs go through the library's own HTTP/1.1 client on POSIX sockets: kept-alive
/// connections, a body read straight into the bytes returned (one copy; `URLSession` on Linux
/// delivers bodies in 16 KiB pieces through its delegate queue, at a seventh of the speed:
/// `Benchmarks/remote`). It asks for no content coding (`Accept-Encoding: identity`) and uses no
/// proxy; a body compressed anyway is refused (`.badResponse`), never inflated past the body
/// limit. `https:` URLs, and every URL on Apple platforms, go through `URLSessionTransport`.
///
/// ```swift
/// let catalog = try await SourceCatalog.load(schedule, transport: DefaultHTTPTransport())
/// ```
public struct DefaultHTTPTransport: HTTPTransport {
    private let sessions = URLSessionTransport()
    private let connections = ConnectionPool()

    /// A transport with connections of its own.
    public init() {}

    /// Whether it has made the `URLSession` that `https:` URLs go through: not until the first
    /// of them (on Linux), so that a transport that never sees one never starts libcurl and TLS.
    package var hasURLSession: Bool { sessions.hasSession }

    /// Performs one GET (see `HTTPTransport`).
    ///
    /// - Parameter request: The URL, byte range and limits.
    /// - Returns: The status, headers and body.
    /// - Throws: `HTTPTransportError`: `.timedOut`, `.tooLarge`, `.connectionFailed`,
    ///   `.badResponse`, `.invalidURL`, `.cancelled`.
    public func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        #if canImport(Darwin)
        return try await sessions.get(request)
        #else
        guard let (origin, target) = HTTPOrigin.parse(request.url) else { return try await sessions.get(request) }
        let cancelled = CancellationFlag()
        let connections = connections
        let outcome = await withTaskCancellationHandler {
            await onThreadOfItsOwn {
                Result { () throws(HTTPExchange.Failure) in
                    try connections.get(origin: origin, target: target, request: request, cancellation: cancelled)
                }
            }
        } onCancel: {
            cancelled.set()
        }
        switch outcome {
        case .success(let response): return response
        case .failure(.encoded(let coding)): throw HTTPTransportError(url: request.url, problem: .unaskedCoding(coding))
        case .failure(.tooLarge): throw HTTPTransportError(url: request.url, problem: .tooLarge(limit: request.maximumBodyBytes))
        case .failure(.badResponse(let why)): throw HTTPTransportError(url: request.url, problem: .badResponse(why))
        case .failure(.closedBeforeResponse):
            throw HTTPTransportError(url: request.url, problem: .connectionFailed("the server closed the connection before a response"))
        case .failure(.socket(.timedOut)): throw HTTPTransportError(url: request.url, problem: .timedOut(after: request.timeout))
        case .failure(.socket(.cancelled)): throw HTTPTransportError(url: request.url, problem: .cancelled)
        case .failure(.socket(.failed(let why))), .failure(.failedBeforeResponse(let why)):
            throw HTTPTransportError(url: request.url, problem: .connectionFailed(why))
        }
        #endif
    }
}

/// A transport's idle connections, by origin; they close when the transport (every copy) goes.
///
/// `@unchecked Sendable`: the table is only touched under `lock`, and a connection is used by one
/// request at a time (taken out of the table while it is).
private final class ConnectionPool: @unchecked Sendable {
    /// Idle connections kept per origin: as many as a catalog keeps requests in flight by default.
    private static let idlePerOrigin = 8
    private let lock = SpoolLock()
    private var idle: [HTTPOrigin: [HTTPConnection]] = [:]

    /// One GET of `target` from `origin`: on an idle connection when there is one (sent again on a
    /// new one when the server had closed or reset it), else on a new one.
    func get(origin: HTTPOrigin, target: String, request: HTTPTransportRequest,
             cancellation: CancellationFlag) throws(HTTPExchange.Failure) -> HTTPTransportResponse {
        let deadline = ContinuousClock.now + request.timeout
        while true {
            let reused = take(origin)
            let connection: HTTPConnection
            if let reused { connection = reused } else {
                do { connection = try HTTPConnection.open(origin, deadline: deadline, cancellation: cancellation) } catch { throw .socket(error) }
            }
            do {
                let outcome = try HTTPExchange.get(target: target, byteRange: request.byteRange, on: connection,
                                                   limit: request.maximumBodyBytes, deadline: deadline, cancellation: cancellation)
                if outcome.reusable { put(connection) }
                return outcome.response
            } catch .closedBeforeResponse where reused != nil, .failedBeforeResponse where reused != nil {
                // The server closed the idle connection, or resets it now it is reused: GETs are
                // safe to send again, and a new connection is not retried.
                continue
            }
        }
    }

    private func take(_ origin: HTTPOrigin) -> HTTPConnection? {
        lock.locked {
            while let connection = idle[origin]?.popLast() {
                if !connection.isStale { return connection }
            }
            return nil
        }
    }

    private func put(_ connection: HTTPConnection) {
        lock.locked {
            if idle[connection.origin, default: []].count < Self.idlePerOrigin { idle[connection.origin, default: []].append(connection) }
        }
    }
}

/// Runs `work` (blocking socket I/O) on a new thread of its own and resumes with its result: a
/// request never holds one of Swift concurrency's cooperative threads, nor waits for a Dispatch
/// thread behind a render's own blocking work.
private func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        let job = ThreadJob { continuation.resume(returning: work()) }
        let context = Unmanaged.passRetained(job).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, &attributes, { context in
            #if !canImport(Darwin)
            guard let context else { return nil }
            #endif
            Unmanaged<ThreadJob>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        if status != 0 {
            // No thread to be had (the process is at its limit): the work runs here instead.
            Unmanaged<ThreadJob>.fromOpaque(context).takeRetainedValue().run()
        }
    }
}

/// A closure handed to a new thread.
private final class ThreadJob: @unchecked Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
