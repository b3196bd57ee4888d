/// One GET over an `HTTPConnection`: the request written, the response read and framed as RFC 9112
/// says (section 6.3), under the request's body limit and deadline.
enum HTTPExchange {
    /// What a GET came to.
    struct Outcome {
        let response: HTTPTransportResponse
        /// Whether the connection may carry another request (HTTP/1.1, a framed body, no `close`).
        let reusable: Bool
    }

    /// Why a GET has no response to return.
    enum Failure: Error, Equatable {
        case socket(SocketFailure)
        case tooLarge
        case badResponse(String)
        /// The connection closed before any byte of a response: on a reused connection, the server
        /// had closed it while idle, and the request is sent again on a new one.
        case closedBeforeResponse
        /// The connection failed (a reset, say) while the response's head was awaited: on a reused
        /// connection the GET is sent again on a new one, as for a close; on a new one, the error.
        case failedBeforeResponse(String)
        /// A 2xx body in a coding this client did not ask for and does not decode: what
        /// `unaskedCoding(in:)` says.
        case encoded(String)
    }

    /// The longest response head, and the longest chunk-size line, read.
    static let maximumHeadBytes = 64 << 10

    /// Sends `GET target` (with `Range` when `byteRange` is set) on `connection` and reads the answer.
    static func get(target: String, byteRange: ClosedRange<UInt64>?, on connection: HTTPConnection, limit: Int,
                    deadline: ContinuousClock.Instant, cancellation: CancellationFlag) throws(Failure) -> Outcome {
        var head = "GET \(target) HTTP/1.1\r\nHost: \(connection.origin.authority)\r\nUser-Agent: Compositor\r\nAccept: */*\r\n"
            + "Accept-Encoding: identity\r\n"
        if let byteRange { head += "Range: bytes=\(byteRange.lowerBound)-\(byteRange.upperBound)\r\n" }
        head += "\r\n"
        do { try connection.send(Array(head.utf8), deadline: deadline, cancellation: cancellation) } catch {
            // A reused connection the server closed fails here (EPIPE, reset), before any answer.
            if case .failed = error { throw .closedBeforeResponse }
            throw .socket(error)
        }
        let read = Reader(connection: connection, deadline: deadline, cancellation: cancellation)
        var first = true
        while true {
            let (version, status, headers) = try read.head(first: first)
            first = false
            // Interim answers (100 Continue, 103 Early Hints) come before the real one.
            if (100..<200).contains(status), status != 101 { continue }
            let framing = try Framing(status: status, headers: headers)
            if (200..<300).contains(status), framing != .none, let coding = Self.unaskedCoding(in: headers) {
                throw .encoded(coding)
            }
            let body = try read.body(framing, limit: limit)
            let persistent = version == "HTTP/1.1" && framing != Framing.untilClosed
                && !(headers["connection"] ?? "").lowercased().split(separator: ",").contains { $0.trimmingASCIISpaces == "close" }
            return Outcome(response: HTTPTransportResponse(status: status, headers: headers, body: body), reusable: persistent)
        }
    }

    /// The coding a response's body is in that was not asked for, or `nil`: a content coding other
    /// than `identity` (requests say `Accept-Encoding: identity`), or a transfer coding other than
    /// `chunked` (requests send no `TE`, so RFC 9112 7.4 forbids one). Such a body is never decoded:
    /// 1 MB of gzip inflates to 1 GB, past every body limit.
    static func unaskedCoding(in headers: [String: String]) -> String? {
        if let coding = headers["content-encoding"], coding.trimmingASCIISpaces.lowercased() != "identity" {
            return "the content coding '\(coding.prefix(40))'"
        }
        if let codings = headers["transfer-encoding"],
           codings.split(separator: ",").contains(where: { $0.trimmingASCIISpaces.lowercased() != "chunked" }) {
            return "the transfer coding '\(codings.prefix(40))'"
        }
        return nil
    }

    /// How a response's body ends.
    enum Framing: Equatable {
        case none
        case length(UInt64)
        case chunked
        case untilClosed

        init(status: Int, headers: [String: String]) throws(Failure) {
            if status == 204 || status == 304 || (100..<200).contains(status) { self = .none; return }
            if let codings = headers["transfer-encoding"] {
                // Chunked last frames the body; any other last coding runs to the close (RFC 9112 6.3).
                let last = codings.split(separator: ",").last.map { $0.trimmingASCIISpaces.lowercased() }
                self = last == "chunked" ? .chunked : .untilClosed
                return
            }
            if let field = headers["content-length"] {
                // A repeated header arrives joined by commas; every copy must say the same number.
                let values = Set(field.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingASCIISpaces) })
                guard values.count == 1, let value = values.first, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let length = UInt64(value) else {
                    throw .badResponse("an invalid Content-Length (\(field.prefix(40)))")
                }
                self = .length(length)
                return
            }
            self = .untilClosed
        }
    }

    /// Reads a response's parts from the connection, under one deadline.
    struct Reader {
        let connection: HTTPConnection
        let deadline: ContinuousClock.Instant
        let cancellation: CancellationFlag

        /// The status line and headers (names lowercased; repeated ones joined with ", ").
        func head(first: Bool) throws(Failure) -> (version: Substring, status: Int, headers: [String: String]) {
            let (bytes, receivedAny): (ArraySlice<UInt8>?, Bool)
            do throws(SocketFailure) {
                (bytes, receivedAny) = try connection.readThrough(Array("\r\n\r\n".utf8), limit: maximumHeadBytes, deadline: deadline,
                                                                  cancellation: cancellation)
            } catch .failed(let why) where first {
                throw .failedBeforeResponse(why)
            } catch {
                throw .socket(error)
            }
            guard let bytes else {
                if first, !receivedAny { throw .closedBeforeResponse }
                throw .socket(.failed("the server closed the connection before a complete response"))
            }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false).dropLast(2)
            guard let statusLine = lines.first else { throw .badResponse("an empty response head") }
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
                  parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let status = Int(parts[1]) else {
                throw .badResponse("not an HTTP/1.x status line: \(quoted(String(statusLine.prefix(80))))")
            }
            var headers: [String: String] = [:]
            var lastName: String?
            for line in lines.dropFirst() {
                if line.first == " " || line.first == "\t", let name = lastName {
                    // An obsolete folded line continues the previous field (RFC 9112 5.2).
                    headers[name, default: ""] += " " + line.trimmingASCIISpaces
                    continue
                }
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                    throw .badResponse("a header line without a name: \(quoted(String(line.prefix(80))))")
                }
                let name = line[..<colon].lowercased()
                let value = String(line[line.index(after: colon)...].trimmingASCIISpaces)
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
                lastName = name
            }
            return (parts[0], status, headers)
        }

        /// The body as `framing` delimits it, at most `limit` bytes.
        func body(_ framing: Framing, limit: Int) throws(Failure) -> [UInt8] {
            switch framing {
            case .none:
                return []
            case .length(let length):
                guard length <= UInt64(limit) else { throw .tooLarge }
                return try exactly(Int(length), what: "body")
            case .chunked:
                var body: [UInt8] = []
                while true {
                    let size = try chunkSize()
                    guard size > 0 else { break }
                    guard size <= limit - body.count else { throw .tooLarge }
                    body += try exactly(size, what: "chunk")
                    guard try line() == "" else { throw .badResponse("a chunk longer than its size") }
                }
                // Trailer fields, up to the empty line, are not used.
                while try line() != "" {}
                return body
            case .untilClosed:
                var body: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let n = try socket { () throws(SocketFailure) in
                        try chunk.withUnsafeMutableBytes { raw in
                            Result { () throws(SocketFailure) in try connection.read(into: raw, deadline: deadline, cancellation: cancellation) }
                        }.get()
                    }
                    guard n > 0 else { return body }
                    guard n <= limit - body.count else { throw .tooLarge }
                    body += chunk[..<n]
                }
            }
        }

        /// `count` bytes, read straight into the array returned (memory an earlier large body
        /// handed back, when there is some: see `BodyBuffers`).
        private func exactly(_ count: Int, what: String) throws(Failure) -> [UInt8] {
            var failure: Failure?
            let fill = { (raw: UnsafeMutableRawBufferPointer, initialized: inout Int) in
                while initialized < count {
                    let next = UnsafeMutableRawBufferPointer(rebasing: raw[initialized..<count])
                    switch Result(catching: { () throws(SocketFailure) in try connection.read(into: next, deadline: deadline, cancellation: cancellation) }) {
                    case .success(0):
                        failure = .socket(.failed("the connection closed after \(initialized) of \(count) \(what) bytes"))
                        return
                    case .success(let n):
                        initialized += n
                    case .failure(let error):
                        failure = .socket(error)
                        return
                    }
                }
            }
            var bytes: [UInt8]
            if var reused = BodyBuffers.shared.take(count: count) {
                var initialized = 0
                reused.withUnsafeMutableBytes { fill($0, &initialized) }
                bytes = reused
            } else {
                bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in fill(UnsafeMutableRawBufferPointer(buffer), &initialized) }
            }
            if let failure {
                BodyBuffers.shared.recycle(bytes)
                throw failure
            }
            return bytes
        }

        /// One line of a chunked body, without its CRLF.
        private func line() throws(Failure) -> String {
            let (bytes, _) = try socket { () throws(SocketFailure) in
                try connection.readThrough(Array("\r\n".utf8), limit: 4096, deadline: deadline, cancellation: cancellation)
            }
            guard let bytes else { throw .socket(.failed("the connection closed inside a chunked body")) }
            return String(decoding: bytes.dropLast(2), as: UTF8.self)
        }

        /// A chunk's size line: hexadecimal digits, then extensions (ignored).
        private func chunkSize() throws(Failure) -> Int {
            let text = try line()
            let digits = text.prefix { $0 != ";" }.trimmingASCIISpaces
            guard !digits.isEmpty, digits.count <= 15, let size = Int(digits, radix: 16), size >= 0 else {
                throw .badResponse("an invalid chunk size line: \(quoted(String(text.prefix(40))))")
            }
            return size
        }

        private func socket<T>(_ step: () throws(SocketFailure) -> T) throws(Failure) -> T {
            do { return try step() } catch { throw .socket(error) }
        }
    }
}
