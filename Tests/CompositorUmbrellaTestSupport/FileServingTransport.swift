import Foundation
import Compositor

/// Serves files from memory as an HTTP server with byte ranges would (206 and `Content-Range`,
/// an `ETag`), recording every request; faults on demand.
package final class FileServingTransport: HTTPTransport, @unchecked Sendable {
    package enum Fault: Sendable {
        case none
        /// Answers 200 with the whole body to ranged GETs.
        case ignoresRange
        /// A new ETag from the `n`th request on.
        case changesETag(fromRequest: Int)
        /// The body of the `n`th request on is a byte short.
        case shortBody(fromRequest: Int)
        /// The `n`th request on fails to connect `times` times, then succeeds.
        case resets(fromRequest: Int, times: Int)
    }

    private let lock = NSLock()
    private var log: [HTTPTransportRequest] = []
    private var resetsLeft: Int
    package let files: [String: [UInt8]]
    package let fault: Fault

    package init(_ files: [String: [UInt8]], fault: Fault = .none) {
        self.files = files
        self.fault = fault
        if case .resets(_, let times) = fault { resetsLeft = times } else { resetsLeft = 0 }
    }

    package var requests: [HTTPTransportRequest] { lock.withLock { log } }
    package var bytesSent: Int { requests.reduce(0) { $0 + ($1.byteRange.map { Int($0.upperBound - $0.lowerBound + 1) } ?? 0) } }

    package func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        let (number, reset): (Int, Bool) = lock.withLock {
            log.append(request)
            if case .resets(let from, _) = fault, log.count >= from, resetsLeft > 0 {
                resetsLeft -= 1
                return (log.count, true)
            }
            return (log.count, false)
        }
        if reset { throw HTTPTransportError(url: request.url, problem: .connectionFailed("the connection was lost")) }
        guard let path = request.url.split(separator: "/", maxSplits: 3).last, let file = files[String(path)] else {
            return HTTPTransportResponse(status: 404)
        }
        var etag = "\"v1\""
        if case .changesETag(let from) = fault, number >= from { etag = "\"v2\"" }
        var ignoresRange = false
        if case .ignoresRange = fault { ignoresRange = true }
        guard let range = request.byteRange, !ignoresRange else {
            return HTTPTransportResponse(status: 200, headers: ["ETag": etag], body: Array(file.prefix(request.maximumBodyBytes + 1)))
        }
        guard range.lowerBound < file.count else { return HTTPTransportResponse(status: 416) }
        let last = min(Int(range.upperBound), file.count - 1)
        var body = Array(file[Int(range.lowerBound)...last])
        if case .shortBody(let from) = fault, number >= from { body.removeLast() }
        return HTTPTransportResponse(status: 206, headers: ["ETag": etag, "Content-Range": "bytes \(range.lowerBound)-\(last)/\(file.count)"], body: body)
    }
}
