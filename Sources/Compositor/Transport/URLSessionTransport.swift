// Internal imports on Linux: Foundation is how this transport works, not part of what importing
// Compositor gives an app. On Apple platforms `MediaLocation(_ url: URL)` (MediaLocation+Foundation)
// imports Foundation for its public API, and one module imports a module at one access level.
#if canImport(FoundationNetworking)
internal import Foundation
internal import FoundationNetworking
#elseif canImport(Foundation)
import Foundation
#endif

#if canImport(FoundationNetworking) || canImport(Foundation)
/// The default `HTTPTransport`: Foundation's `URLSession` (FoundationNetworking on Linux), one
/// ephemeral session per transport (no cache, no cookies, no credentials stored), whose
/// connections its requests share; it is invalidated when the last copy of the transport goes.
///
/// Redirects are not followed here (the library follows them under its own limits); the request's
/// timeout bounds the whole request, body included, and a body over `maximumBodyBytes` is
/// cancelled as soon as it is seen to be (by its `Content-Length` or as it arrives). It asks for
/// no content coding (`Accept-Encoding: identity`) and refuses a body in one at its head
/// (`.badResponse`): `URLSession` would inflate it whole before any limit saw it.
///
/// ```swift
/// let catalog = try await SourceCatalog.load(schedule, transport: URLSessionTransport())
/// ```
public struct URLSessionTransport: HTTPTransport {
    private let session: SessionOwner

    /// A transport with a session of its own (made at its first request).
    public init() { session = SessionOwner() }

    /// Whether its session has been made: not until its first request.
    package var hasSession: Bool { session.isMade }

    /// Performs one GET and returns its whole response (see `HTTPTransport`).
    ///
    /// - Parameter request: The URL, byte range and limits.
    /// - Returns: The status, headers and body.
    /// - Throws: `HTTPTransportError`: `.timedOut`, `.tooLarge`, `.connectionFailed`, `.invalidURL`,
    ///   `.cancelled`.
    public func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        guard HTTPFetch.isHTTP(request.url), let url = URL(string: request.url) else {
            throw HTTPTransportError(url: request.url, problem: .invalidURL)
        }
        let seconds = max(0.001, Double(request.timeout.components.seconds) + Double(request.timeout.components.attoseconds) * 1e-18)
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds)
        urlRequest.httpMethod = "GET"
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if let range = request.byteRange {
            urlRequest.setValue("bytes=\(range.lowerBound)-\(range.upperBound)", forHTTPHeaderField: "Range")
        }
        let collector = ResponseCollector(limit: request.maximumBodyBytes)
        let task = session.start(urlRequest, collector: collector)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ResponseCollector.Outcome, Never>) in
                collector.whenDone { continuation.resume(returning: $0) }
                task.resume()
                // The whole request, body included, is bounded here: URLSession's own timeouts
                // count idle time, so a body trickling in would never end.
                // Weakly: a finished request's body must not stay in memory until its deadline.
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak collector, weak task] in
                    if collector?.stop(.timedOut) == true { task?.cancel() }
                }
            }
        } onCancel: {
            if collector.stop(.cancelled) { task.cancel() }
        }
        session.finish(task)
        switch outcome {
        case .response(let response): return response
        case .tooLarge: throw HTTPTransportError(url: request.url, problem: .tooLarge(limit: request.maximumBodyBytes))
        case .timedOut: throw HTTPTransportError(url: request.url, problem: .timedOut(after: request.timeout))
        case .cancelled: throw HTTPTransportError(url: request.url, problem: .cancelled)
        case .failed(let why): throw HTTPTransportError(url: request.url, problem: .connectionFailed(why))
        case .encoded(let coding): throw HTTPTransportError(url: request.url, problem: .unaskedCoding(coding))
        }
    }
}

/// A transport's `URLSession`, made at its first request and invalidated when the transport
/// (every copy of it) goes: the session holds its delegate, the router, until then.
///
/// Made lazily because making one starts FoundationNetworking's machinery (libcurl and its TLS
/// library): 2.7 MiB of a local render's peak, whose catalog holds a transport it never uses
/// (`Benchmarks/render-memory`).
///
/// `@unchecked Sendable`: `made` is only touched under `lock` (and by `deinit`, alone).
private final class SessionOwner: @unchecked Sendable {
    private let lock = NSLock()
    private var made: URLSession?
    private let router = TaskRouter()

    private var session: URLSession {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let session = Self.makeSession(delegate: router)
        made = session
        return session
    }

    var isMade: Bool {
        lock.lock()
        defer { lock.unlock() }
        return made != nil
    }

    private static func makeSession(delegate: TaskRouter) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        // The library bounds requests in flight and each request's time itself.
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit { made?.invalidateAndCancel() }

    /// A task for `request` whose delegate calls go to `collector` (not resumed yet).
    func start(_ request: URLRequest, collector: ResponseCollector) -> URLSessionDataTask {
        let task = session.dataTask(with: request)
        router.route(task, to: collector)
        return task
    }

    /// Forgets `task`'s collector.
    func finish(_ task: URLSessionTask) { router.forget(task) }
}

/// Hands each task's delegate calls to its collector.
///
/// `@unchecked Sendable`: its table is only touched under `lock`.
private final class TaskRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var collectors: [Int: ResponseCollector] = [:]

    func route(_ task: URLSessionTask, to collector: ResponseCollector) {
        lock.withLock { collectors[task.taskIdentifier] = collector }
    }

    func forget(_ task: URLSessionTask) { _ = lock.withLock { collectors.removeValue(forKey: task.taskIdentifier) } }

    private func collector(_ task: URLSessionTask) -> ResponseCollector? { lock.withLock { collectors[task.taskIdentifier] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let collector = collector(dataTask) else { return completionHandler(.cancel) }
        collector.received(response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if collector(dataTask)?.received(data) == false { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // The library follows redirects itself, under its limits: the 3xx is the response.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        collector(task)?.completed(error)
    }
}

/// Gathers one task's response under the body limit, and reports its outcome once: the response,
/// or why there is none (the first of: completed, timed out, cancelled).
///
/// `@unchecked Sendable`: its state is only touched under `lock`.
private final class ResponseCollector: @unchecked Sendable {
    enum Outcome: Sendable { case response(HTTPTransportResponse), tooLarge, timedOut, cancelled, failed(String), encoded(String) }

    private let limit: Int
    private let lock = NSLock()
    private var status = 0
    private var headers: [String: String] = [:]
    private var body: [UInt8] = []
    private var overLimit = false
    /// Set once: by the task's completion, the timeout or the cancellation, whichever came first.
    private var outcome: Outcome?
    private var report: (@Sendable (Outcome) -> Void)?

    init(limit: Int) { self.limit = limit }

    /// Calls `body` with the outcome once it is known (now, if it already is).
    func whenDone(_ body: @escaping @Sendable (Outcome) -> Void) {
        let known: Outcome? = lock.withLock {
            if outcome == nil { report = body }
            return outcome
        }
        if let known { body(known) }
    }

    /// Ends the request with `reason` unless it has ended; returns whether this call ended it.
    @discardableResult
    func stop(_ reason: Outcome) -> Bool { finish(reason) }

    @discardableResult
    private func finish(_ result: Outcome) -> Bool {
        let (first, report): (Bool, (@Sendable (Outcome) -> Void)?) = lock.withLock {
            guard outcome == nil else { return (false, nil) }
            outcome = result
            defer { self.report = nil }
            return (true, self.report)
        }
        if first { report?(result) }
        return first
    }

    /// The response's head: its status and headers; cancelled at once when its length is over the
    /// limit or its 2xx body is in a coding not asked for.
    func received(_ response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let (tooLarge, coding): (Bool, String?) = lock.withLock {
            if let http = response as? HTTPURLResponse {
                status = http.statusCode
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                }
            }
            if (200..<300).contains(status), let coding = HTTPExchange.unaskedCoding(in: headers) { return (false, coding) }
            if response.expectedContentLength > Int64(limit) { overLimit = true }
            if !overLimit, response.expectedContentLength > 0 { body.reserveCapacity(Int(response.expectedContentLength)) }
            return (overLimit, nil)
        }
        if let coding {
            finish(.encoded(coding))
            return completionHandler(.cancel)
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    /// More of the body; `false` when it passes the limit (the task is then cancelled).
    func received(_ data: Data) -> Bool {
        lock.withLock {
            guard !overLimit else { return false }
            if body.count + data.count > limit { overLimit = true; body = [] } else { body.append(contentsOf: data) }
            return !overLimit
        }
    }

    /// The task ended, with `error` or not.
    func completed(_ error: Error?) {
        let result: Outcome = lock.withLock {
            if overLimit { return .tooLarge }
            if let error = error as? URLError {
                if error.code == .timedOut { return .timedOut }
                if error.code == .unknown, let tls = Self.libcurlTLSFailure(error) { return .failed("TLS failed (\(tls))") }
                return .failed(Self.describe(error.code))
            }
            if let error { return .failed("\(type(of: error))") }
            guard status > 0 else { return .failed("no response") }
            return .response(HTTPTransportResponse(status: status, headers: headers, body: body))
        }
        finish(result)
    }

    /// What libcurl said of a TLS failure, which FoundationNetworking reports as `.unknown` with
    /// libcurl's text as the description ("SSL certificate problem: self-signed certificate"):
    /// that text names no URL, so it may be shown. `nil` for any other failure.
    private static func libcurlTLSFailure(_ error: URLError) -> String? {
        let text = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        return text.hasPrefix("SSL") || text.contains("certificate") ? text : nil
    }

    /// What went wrong, by the error's code only: `URLError`'s own text may quote the URL.
    private static func describe(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: return "cannot connect to the host (refused)"
        case .cannotFindHost, .dnsLookupFailed: return "cannot find the host"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "TLS failed"
        case .badServerResponse: return "a malformed response"
        case .httpTooManyRedirects: return "too many redirects"
        case .unsupportedURL: return "an unsupported URL"
        default: return "URL error \(code.rawValue)"
        }
    }
}
#endif
