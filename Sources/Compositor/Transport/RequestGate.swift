/// A transport that lets at most `limit` requests through at once: every request of one catalog
/// (its load, a render's fetches ahead, the segments it reads) goes through one gate, so
/// `HTTPTransportLimits.maximumConcurrentRequests` bounds them all together, however many sources
/// and ranges are being read.
struct GatedTransport: HTTPTransport {
    let inner: any HTTPTransport
    let gate: RequestGate

    init(_ inner: any HTTPTransport, limit: Int) {
        self.inner = inner
        gate = RequestGate(limit: limit)
    }

    func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        await gate.enter()
        let result: Result<HTTPTransportResponse, HTTPTransportError>
        do { result = .success(try await inner.get(request)) } catch { result = .failure(error) }
        await gate.leave()
        return try result.get()
    }
}

/// Permits for requests: `enter` waits (in arrival order) while `limit` are out.
actor RequestGate {
    private let limit: Int
    private var out = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = max(1, limit) }

    func enter() async {
        guard out >= limit else {
            out += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        // A waiting request takes the permit over: `out` stays as it is.
        if waiting.isEmpty { out -= 1 } else { waiting.removeFirst().resume() }
    }
}
