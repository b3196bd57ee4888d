// Linux only: the fuzz targets run there (Tests/Fuzz/run.sh).
#if canImport(Glibc)
import Glibc

/// The library's HTTP/1.1 client reading given bytes as a server's whole answer to one GET: the
/// entry of the response reader's fuzz target (`Tests/Fuzz/HTTPResponseFuzz.swift`), which feeds it
/// any bytes. Whatever they are, the read ends in a response or a failure, never a trap, a hang or
/// a body over its limit.
package enum HTTPResponseReading {
    /// What one read came to.
    package enum Outcome: Equatable {
        /// A response: its status, its headers' count and its body's length.
        case response(status: Int, headers: Int, bodyBytes: Int, reusable: Bool)
        /// No response: why, in words.
        case failed(String)
    }

    /// Reads `bytes` (sent at once, then the end of the stream) as the answer to a GET of
    /// `byteRange`, with a body limit of `limit`.
    ///
    /// - Parameters:
    ///   - bytes: What the server sends, at most what a socket buffer holds (64 KiB).
    ///   - byteRange: The range asked for, or nil.
    ///   - limit: The body limit.
    /// - Returns: The outcome.
    package static func read(_ bytes: [UInt8], byteRange: ClosedRange<UInt64>? = nil, limit: Int) -> Outcome {
        var ends: [Int32] = [0, 0]
        let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends)
        guard made == 0 else { return .failed("no socket pair: errno \(errno)") }
        let server = ends[1]
        defer { close(server) }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(server, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return .failed("the socket pair took \(sent) of \(bytes.count) bytes") }
            sent += count
        }
        shutdown(server, Int32(SHUT_WR))
        let connection = HTTPConnection.adopting(ends[0], origin: HTTPOrigin(host: "127.0.0.1", port: 80, authority: "127.0.0.1"))
        do {
            let outcome = try HTTPExchange.get(target: "/", byteRange: byteRange, on: connection, limit: limit,
                                               deadline: .now + .seconds(5), cancellation: CancellationFlag())
            let response = outcome.response
            return .response(status: response.status, headers: response.headers.count, bodyBytes: response.body.count, reusable: outcome.reusable)
        } catch {
            return .failed("\(error)")
        }
    }
}
#endif
