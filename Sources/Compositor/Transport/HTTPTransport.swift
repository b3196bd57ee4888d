import CompositorCore

/// One GET over HTTP(S): what the library asks of a transport.
public struct HTTPTransportRequest: Hashable, Sendable {
    /// The absolute `http:` or `https:` URL to get.
    public var url: String
    /// The bytes to get (inclusive, as a `Range: bytes=a-b` header), or `nil` for the whole body.
    public var byteRange: ClosedRange<UInt64>?
    /// How long the whole request may take, from sending it to the last byte of the body.
    public var timeout: Duration
    /// The most body bytes to accept: a longer body is `HTTPTransportError.Problem.tooLarge`.
    public var maximumBodyBytes: Int

    /// A GET of `url`.
    ///
    /// - Parameters:
    ///   - url: The absolute `http:` or `https:` URL to get.
    ///   - byteRange: The bytes to get, or `nil` for the whole body.
    ///   - timeout: How long the whole request may take.
    ///   - maximumBodyBytes: The most body bytes to accept.
    public init(url: String, byteRange: ClosedRange<UInt64>? = nil, timeout: Duration, maximumBodyBytes: Int) {
        self.url = url
        self.byteRange = byteRange
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }
}

/// What a server answered to one GET.
public struct HTTPTransportResponse: Hashable, Sendable {
    /// The status code (200, 206, 302, 404, …).
    public var status: Int
    /// The response headers, by lowercased name.
    public var headers: [String: String]
    /// The body (of a redirect or an error too, as far as it was read).
    public var body: [UInt8]

    /// A response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The headers; their names are lowercased here.
    ///   - body: The body bytes.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Gets URLs over HTTP(S) for the library: the port remote sources are read through.
///
/// `DefaultHTTPTransport` is the default; an app or a server injects its own (its HTTP client),
/// and tests inject a recording one. A transport performs exactly one request per call: it does
/// **not** follow redirects (a 3xx is returned as it is), so the library applies its own redirect
/// limit and scheme rules to every transport alike. It enforces the request's `timeout` and
/// `maximumBodyBytes`.
///
/// A call should return promptly when its task is cancelled (throwing `.cancelled`). The library
/// retries, bounds the requests in flight and applies the whole-load timeout itself.
///
/// ```swift
/// struct MyTransport: HTTPTransport {
///     func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse { … }
/// }
/// let catalog = await SourceCatalog.load(schedule, transport: MyTransport())
/// ```
public protocol HTTPTransport: Sendable {
    /// Performs one GET, without following redirects.
    ///
    /// - Parameter request: The URL, byte range and limits.
    /// - Returns: The status, headers and body, whatever the status.
    /// - Throws: `HTTPTransportError` when no complete response came: a timeout, a body over the
    ///   limit, a connection that failed, the task cancelled.
    func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse
}

/// The limits every remote read is held to.
public struct HTTPTransportLimits: Hashable, Sendable {
    /// How long one request may take, first byte sent to last byte read (10 s by default).
    public var requestTimeout: Duration
    /// How many redirects one read may follow (10 by default).
    public var maximumRedirects: Int
    /// The most bytes a body may have: the playlist size limit (64 MiB by default).
    public var maximumBodyBytes: Int
    /// How many times a failed GET is tried again (2 by default): after a connection that failed
    /// or was reset, and after HTTP 408, 429, 500, 502, 503 and 504. A timeout is not retried.
    public var maximumRetries: Int
    /// The wait before the first retry (250 ms by default), doubled before each next one, unless
    /// the server's `Retry-After` asks for longer.
    public var retryDelay: Duration
    /// The longest wait for a retry, `Retry-After` included (5 s by default): a server that asks
    /// for longer gets its error reported instead.
    public var maximumRetryDelay: Duration
    /// How many requests a `SourceCatalog` keeps in flight at most, its load and every read
    /// through it together (6 by default, a browser's per-host number).
    public var maximumConcurrentRequests: Int

    /// Limits.
    ///
    /// - Parameters:
    ///   - requestTimeout: How long one request may take.
    ///   - maximumRedirects: How many redirects one read may follow.
    ///   - maximumBodyBytes: The most bytes a body may have.
    ///   - maximumRetries: How many times a failed GET is tried again.
    ///   - retryDelay: The wait before the first retry, doubled after each.
    ///   - maximumRetryDelay: The longest wait for one retry.
    ///   - maximumConcurrentRequests: How many requests a catalog keeps in flight at most.
    public init(requestTimeout: Duration = .seconds(10), maximumRedirects: Int = 10,
                maximumBodyBytes: Int = 64 << 20, maximumRetries: Int = 2, retryDelay: Duration = .milliseconds(250),
                maximumRetryDelay: Duration = .seconds(5), maximumConcurrentRequests: Int = 6) {
        self.requestTimeout = requestTimeout
        self.maximumRedirects = maximumRedirects
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumRetries = maximumRetries
        self.retryDelay = retryDelay
        self.maximumRetryDelay = maximumRetryDelay
        self.maximumConcurrentRequests = maximumConcurrentRequests
    }

    /// 10 s per request, 10 redirects, 64 MiB per body, 2 retries, 6 requests in flight.
    public static let `default` = HTTPTransportLimits()
}

/// Why a remote read failed: the URL (without userinfo, query or fragment) and what happened.
public struct HTTPTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What happened.
    public enum Problem: Hashable, Sendable {
        /// The server answered with this status (404, 403, 500, …), not 2xx nor a redirect followed.
        case status(Int)
        /// No complete response within the request timeout.
        case timedOut(after: Duration)
        /// The body is longer than the limit (in bytes).
        case tooLarge(limit: Int)
        /// A redirect led back to a URL already visited in the same read.
        case redirectLoop
        /// More redirects than the limit.
        case tooManyRedirects(limit: Int)
        /// A redirect without a `Location` header.
        case redirectWithoutLocation(status: Int)
        /// A URL (the one asked for or a redirect's target) whose scheme is not `http` or `https`:
        /// an http(s) document never reaches `file:` or anything else.
        case unsupportedScheme(String)
        /// Text that is not a URL the transport can request.
        case invalidURL
        /// The connection failed before a response (refused, reset, DNS, TLS): what the transport said.
        case connectionFailed(String)
        /// The read's task was cancelled.
        case cancelled
        /// The whole load took longer than its limit.
        case loadTimedOut(after: Duration)
        /// A response that breaks the rules for what was asked: a ranged read answered with the
        /// wrong bytes, a body shorter than its `Content-Length` or its range.
        case badResponse(String)
        /// The resource changed between two reads of it (its `ETag`, `Last-Modified` or length
        /// differ), so bytes read before and after it do not belong together.
        case changed(String)
    }

    /// The URL the error is about, as it may be printed (see `init(url:problem:)`).
    public let url: String
    /// What happened.
    public let problem: Problem

    /// An error about `url`; its userinfo, query and fragment are dropped here, so no message
    /// built from the error prints a password or a token.
    ///
    /// - Parameters:
    ///   - url: The URL, as requested.
    ///   - problem: What happened.
    public init(url: String, problem: Problem) {
        self.url = URIReference.redactedForDisplay(url)
        self.problem = problem
    }

    /// What happened, without the URL.
    public var reason: String {
        switch problem {
        case .status(let code): return "HTTP \(code)\(Self.statusName(code).map { " (\($0))" } ?? "")"
        case .timedOut(let after): return "no complete response within \(Self.seconds(after)) s"
        case .tooLarge(let limit): return "the body is larger than the limit of \(limit) bytes"
        case .redirectLoop: return "redirect loop: a redirect led back to a URL already visited"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .redirectWithoutLocation(let status): return "HTTP \(status) redirect without a Location"
        case .unsupportedScheme(let scheme):
            return "the scheme \(quoted(scheme)) is not fetched: only http and https are (a remote document never reaches local files)"
        case .invalidURL: return "not a URL that can be requested"
        case .connectionFailed(let why): return "connection failed: \(why)"
        case .cancelled: return "cancelled"
        case .loadTimedOut(let after): return "the load did not finish within \(Self.seconds(after)) s"
        case .badResponse(let why): return "a response that cannot be used: \(why)"
        case .changed(let how): return "changed on the server while it was being read (\(how))"
        }
    }

    public var description: String { "\(url): \(reason)" }

    private static func statusName(_ code: Int) -> String? {
        switch code {
        case 400: return "bad request"
        case 401: return "unauthorized"
        case 403: return "forbidden"
        case 404: return "not found"
        case 408: return "request timeout"
        case 410: return "gone"
        case 416: return "range not satisfiable"
        case 429: return "too many requests"
        case 500: return "internal server error"
        case 502: return "bad gateway"
        case 503: return "service unavailable"
        case 504: return "gateway timeout"
        default: return (500..<600).contains(code) ? "server error" : nil
        }
    }

    /// `duration` in seconds, as short as exact to the millisecond (`2`, `0.25`).
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let whole = milliseconds / 1000, fraction = milliseconds % 1000
        guard fraction != 0 else { return "\(whole)" }
        var digits = String(fraction + 1000).dropFirst()
        while digits.hasSuffix("0") { digits = digits.dropLast() }
        return "\(whole).\(digits)"
    }
}

extension HTTPTransportError.Problem {
    /// A 2xx body in a coding the request did not ask for (`what`: "the content coding 'gzip'"),
    /// refused, never decoded: decoding would let a small body grow past every limit.
    static func unaskedCoding(_ what: String) -> Self {
        .badResponse("a body in \(what), which was not asked for (Accept-Encoding: identity); it is not decoded, "
                     + "so no body grows past its limit")
    }
}
