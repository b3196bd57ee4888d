import CompositorCore

/// Reads one URL through a transport: redirects followed and failures retried under the limits.
package enum HTTPFetch {
    /// GETs `url` (or `byteRange` of it) through `transport`, following up to
    /// `limits.maximumRedirects` redirects, each resolved against the URL that gave it, and
    /// trying each request again (up to `limits.maximumRetries` times) after a failed connection
    /// or a 408, 429 or 5xx status.
    ///
    /// - Parameters:
    ///   - url: The absolute http(s) URL.
    ///   - byteRange: The bytes to get (inclusive), or `nil` for the whole body.
    ///   - transport: What performs each request.
    ///   - limits: Timeouts, redirects, body size and retries.
    /// - Returns: The final URL (after redirects) and its 2xx response.
    /// - Throws: `HTTPTransportError`: a status other than 2xx, a redirect loop or too many, a
    ///   scheme other than http(s), the task cancelled, or what the transport threw last.
    package static func get(
        _ url: String, byteRange: ClosedRange<UInt64>? = nil, transport: any HTTPTransport, limits: HTTPTransportLimits
    ) async throws(HTTPTransportError) -> (url: String, response: HTTPTransportResponse) {
        var current = withoutFragment(url)
        try requireHTTP(current)
        var visited: Set<String> = [current]
        var redirects = 0
        while true {
            let response = try await getRetrying(
                HTTPTransportRequest(url: current, byteRange: byteRange, timeout: limits.requestTimeout, maximumBodyBytes: limits.maximumBodyBytes),
                transport: transport, limits: limits)
            guard response.body.count <= limits.maximumBodyBytes else {
                throw HTTPTransportError(url: current, problem: .tooLarge(limit: limits.maximumBodyBytes))
            }
            switch response.status {
            case 200..<300:
                return (current, response)
            case 301, 302, 303, 307, 308:
                guard let location = response.headers["location"], !location.isEmpty else {
                    throw HTTPTransportError(url: current, problem: .redirectWithoutLocation(status: response.status))
                }
                let next = withoutFragment(URIReference.resolve(location, against: current))
                try requireHTTP(next)
                guard !visited.contains(next) else { throw HTTPTransportError(url: url, problem: .redirectLoop) }
                redirects += 1
                guard redirects <= limits.maximumRedirects else {
                    throw HTTPTransportError(url: url, problem: .tooManyRedirects(limit: limits.maximumRedirects))
                }
                visited.insert(next)
                current = next
            default:
                throw HTTPTransportError(url: current, problem: .status(response.status))
            }
        }
    }

    /// Statuses worth asking again for: the server says "later" or failed on its side.
    static let retriedStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// One request, tried again after a failed connection or a retried status, with a delay that
    /// doubles (or what `Retry-After` asks, when within `maximumRetryDelay`). The last answer or
    /// error is what the caller gets.
    private static func getRetrying(
        _ request: HTTPTransportRequest, transport: any HTTPTransport, limits: HTTPTransportLimits
    ) async throws(HTTPTransportError) -> HTTPTransportResponse {
        var delay = limits.retryDelay
        var attempt = 0
        while true {
            if Task.isCancelled { throw HTTPTransportError(url: request.url, problem: .cancelled) }
            let wait: Duration
            do {
                let response = try await transport.get(request)
                guard retriedStatuses.contains(response.status), attempt < limits.maximumRetries else { return response }
                let asked = retryAfter(response.headers["retry-after"]) ?? .zero
                // A server asking for longer than the bound gets its answer reported, not a long wait.
                guard asked <= limits.maximumRetryDelay else { return response }
                wait = max(asked, delay)
            } catch {
                guard case .connectionFailed = error.problem, attempt < limits.maximumRetries else { throw error }
                wait = delay
            }
            attempt += 1
            do { try await Task.sleep(for: min(wait, limits.maximumRetryDelay)) } catch {
                throw HTTPTransportError(url: request.url, problem: .cancelled)
            }
            delay = delay * 2
        }
    }

    /// `Retry-After` as a delay: its delay-seconds form (RFC 9110 10.2.3). The HTTP-date form is
    /// not read (it needs a clock shared with the server), so it retries after the usual delay.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int64(value.trimmingASCIISpaces), seconds >= 0, seconds < 86_400 else { return nil }
        return .seconds(seconds)
    }

    /// Whether `url` is an absolute `http:` or `https:` URL with a host.
    package static func isHTTP(_ url: String) -> Bool {
        let reference = URIReference(parsing: url)
        guard let scheme = reference.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return !(reference.authority ?? "").isEmpty
    }

    private static func requireHTTP(_ url: String) throws(HTTPTransportError) {
        guard !isHTTP(url) else { return }
        let scheme = URIReference(parsing: url).scheme
        throw HTTPTransportError(url: url, problem: scheme.map { .unsupportedScheme($0.lowercased()) } ?? .invalidURL)
    }

    private static func withoutFragment(_ url: String) -> String {
        var reference = URIReference(parsing: url)
        reference.fragment = nil
        return reference.description
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingASCIISpaces: SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        return self[first...last]
    }
}
