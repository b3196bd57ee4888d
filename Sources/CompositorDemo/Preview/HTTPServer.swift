import Compositor
import CompositorIO
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for the preview page: one request per connection
/// (`Connection: close`), each connection on its own thread, so a video download the browser reads
/// slowly never holds up the page's ticks.
///
/// It is a sample-page server on loopback, but any web page the viewer opens can reach loopback, so
/// it must not be the easy way in:
/// - a connection is cut when it sends nothing, sends its head too slowly, or stops reading what it
///   is sent (`Limits`), and at most `Limits.connections` are open at once: over it, a new
///   connection takes the place of the oldest one that has sent nothing yet, or, when every one has,
///   is answered 503 at once. Idle sockets cannot pile up until the demo is out of descriptors or
///   threads, nor keep the page's requests out;
/// - `Host` must name this server (`127.0.0.1:PORT` or `localhost:PORT`): a page that rebinds its own
///   name to 127.0.0.1 (DNS rebinding) sends its name, and is refused (421);
/// - a request that may change the session (any method but GET and HEAD) must carry this server's
///   own `Origin`: a form or fetch of another site is refused (403).
final class HTTPServer: Sendable {
    let port: UInt16
    let limits: Limits
    private let listener: Int32
    private let state = State()

    /// How long a connection may take and how many may be open. Every number is far above what the
    /// preview page needs (its requests are one line and a few headers, sent at once, on loopback)
    /// and far below what lets a peer that holds connections open wear the demo down.
    struct Limits: Sendable {
        /// Open connections at most; the page needs a few (a request at a time and the video's
        /// ranges; a browser opens at most 6 per host). Over it a connection takes the place of the
        /// oldest one that has sent nothing yet, or is answered 503 at once.
        var connections = 32
        /// Seconds a connection may stay open without sending a byte (a browser's unused
        /// preconnection is closed and, when wanted, opened again by the browser).
        var idle: Double = 5
        /// Seconds from the accept to the end of the request's head: a slowloris sending a byte a
        /// second is cut then, however steadily it sends.
        var head: Double = 10
        /// Seconds one send may wait for the peer to read: a peer that stops reading a video is cut
        /// (a browser that paused a download asks for the rest by a new range request).
        var send: Double = 30

        static let preview = Limits()
    }

    /// The open connections, those of them that have sent nothing yet, and whether `stop()` was
    /// called.
    private final class State: @unchecked Sendable {
        private let lock = NSLock()
        private var open = 0
        /// Connections that have sent no byte yet, oldest first. A connection leaves it (`started`,
        /// `release`) before it is closed, so a descriptor here is always still open.
        private var idle: [Int32] = []
        private var stopped = false

        /// Whether `connection` may be answered: under `limit`, or in the place of the oldest idle
        /// connection, which is shut down (its thread sees the end at once and gives up its slot).
        func admit(_ connection: Int32, limit: Int) -> Bool {
            lock.withLock {
                if open >= limit {
                    guard !idle.isEmpty else { return false }
                    shutdown(idle.removeFirst(), Int32(SHUT_RDWR))
                }
                open += 1
                idle.append(connection)
                return true
            }
        }
        /// `connection` sent its first byte: it is no longer one to make room by.
        func started(_ connection: Int32) { lock.withLock { idle.removeAll { $0 == connection } } }
        /// `connection` is done; call before closing it.
        func release(_ connection: Int32) {
            lock.withLock {
                idle.removeAll { $0 == connection }
                open -= 1
            }
        }
        var openConnections: Int { lock.withLock { open } }
        var idleConnections: Int { lock.withLock { idle.count } }
        func stop() { lock.withLock { stopped = true } }
        var isStopped: Bool { lock.withLock { stopped } }
    }

    /// Listens on 127.0.0.1:`port`; port 0 lets the system choose one (see `port`).
    init(port: UInt16, limits: Limits = .preview) throws(DemoError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .failure("preview: cannot open a socket: \(systemErrorMessage(errno))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopbackAddress(port: port)   // 127.0.0.1 only: the page drives a local demo
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let message = systemErrorMessage(errno)
            close(fd)
            throw .failure("preview: cannot listen on 127.0.0.1:\(port): \(message)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.listener = fd
        self.port = UInt16(bigEndian: address.sin_port)
        self.limits = limits
    }

    /// Accepts connections until `stop()`, answering each request with `handler` on a thread of its
    /// own, after `refusal(of:)`.
    func serve(_ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        // A browser that closes a connection mid-download must not end the demo.
        signal(SIGPIPE, SIG_IGN)
        defer { close(listener) }
        while !state.isStopped {
            // Waits in poll, not accept, so that `stop()` is seen within a quarter of a second.
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 250) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                // Out of descriptors (or an aborted connection): the connection stays queued and
                // poll says so at once; wait rather than spin, and try again.
                if errno != EINTR { usleep(50_000) }
                continue
            }
            guard state.admit(connection, limit: limits.connections) else {
                Self.refuseAtOnce(connection)
                continue
            }
            var timeout = timeval(seconds: limits.send)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread.detachNewThread { [self] in
                defer {
                    state.release(connection)
                    close(connection)
                }
                answer(connection, handler)
            }
        }
    }

    /// Ends `serve` (within a quarter of a second); connections under way finish on their own.
    func stop() { state.stop() }

    /// Connections being read or answered now.
    var openConnections: Int { state.openConnections }
    /// Open connections that have sent nothing yet: the ones a new connection may take the place of.
    var idleConnections: Int { state.idleConnections }

    private func answer(_ connection: Int32, _ handler: (HTTPRequest) -> HTTPResponse) {
        let response: HTTPResponse
        switch HTTPRequest.read(from: connection, limits: limits, firstByte: { state.started(connection) }) {
        case .none: return
        case .success(let request)?: response = refusal(of: request) ?? handler(request)
        case .failure(let error)?: response = .text(error.status, error.reason)
        }
        response.write(to: connection)
    }

    /// 127.0.0.1:`port` as a socket address (the server binds it; the tests connect to it).
    static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    /// A connection over `Limits.connections`: a 503 sent without waiting (a peer that does not
    /// read gets nothing), what it sent so far read without waiting (closing on unread bytes would
    /// reset the connection before the peer read the 503), and closed.
    private static func refuseAtOnce(_ connection: Int32) {
        var response = HTTPResponse.text(503, "the preview server has too many connections open; try again")
        response.headers.append(("Retry-After", "1"))
        guard case .bytes(let body) = response.body else { close(connection); return }
        let reply = response.head + body
        _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<4 {
            guard scratch.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 else { break }
        }
        close(connection)
    }

    /// Why `request` is not answered, if it is not: a `Host` that is not this server's (421), or a
    /// request that may change the session without this server's own `Origin` (403).
    ///
    /// Every action of the page that changes the session is a POST (`/start`, `/tick`, `/seek`,
    /// `/skip-ad`, `/skip-break`, `/schedule-now`) and its GETs only read, so the rule is by method,
    /// not by path: an action added later is covered without being listed. Browsers send `Origin`
    /// with every POST, the same origin's too; one missing is a client that is not the page (a
    /// script can add the header; a web page cannot forge it).
    func refusal(of request: HTTPRequest) -> HTTPResponse? {
        let names = port == 80 ? ["127.0.0.1", "localhost"] : ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host = request.headers["host"].map({ $0.lowercased() }), names.contains(host) else {
            return .text(421, "this server answers for \(names.joined(separator: " and ")) only, not Host \(quoted(request.headers["host"] ?? ""))")
        }
        guard request.method == "GET" || request.method == "HEAD" || request.headers["origin"]?.lowercased() == "http://" + host else {
            return .text(403, "\(request.method) needs this page's Origin, http://\(host), not \(request.headers["origin"].map(quoted) ?? "none")")
        }
        return nil
    }
}

fileprivate extension timeval {
    init(seconds: Double) {
        let whole = seconds.rounded(.down)
        self.init(tv_sec: .init(whole), tv_usec: .init((seconds - whole) * 1_000_000))
    }
}

/// A request line and its headers (a request body is not read: the preview's requests carry
/// everything in the query).
struct HTTPRequest: Sendable {
    let method: String
    let path: String
    let query: [String: String]
    /// Header names in lower case.
    let headers: [String: String]

    struct Failure: Error {
        let status: Int
        let reason: String
    }

    /// Requests are a line and a few headers; anything longer is not the preview page's.
    static let maximumHeadSize = 16 * 1024

    /// Reads a request's head within `limits`: `nil` when there is nothing to answer (the peer sent
    /// nothing before it closed or before `Limits.idle`), a failure to answer when the head is not
    /// one (too slow, too long, cut short, malformed). `firstByte` is called when the first byte
    /// arrives.
    static func read(from connection: Int32, limits: HTTPServer.Limits, firstByte: () -> Void = {}) -> Result<HTTPRequest, Failure>? {
        let start = ContinuousClock.now
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Before the first byte the idle limit applies; after it, the whole head's.
            let limit = head.isEmpty ? min(limits.idle, limits.head) : limits.head
            let left = start.advanced(by: .milliseconds(Int(limit * 1000))) - .now
            guard left > .zero else {
                if head.isEmpty { return nil }
                return .failure(Failure(status: 408, reason: "the request's head took over \(String(format: "%g", limit)) s"))
            }
            var waiting = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            let ready = poll(&waiting, 1, Int32(clamping: milliseconds))
            if ready < 0, errno != EINTR { return nil }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            guard count > 0 else {
                if head.isEmpty { return nil }
                return .failure(Failure(status: 400, reason: "the request ended before its headers did"))
            }
            if head.isEmpty { firstByte() }
            let scanned = max(head.count - 2, 0)
            head += buffer[..<count]
            if let end = headEnd(head, from: scanned) { return parse(head[..<end]) }
            guard head.count <= maximumHeadSize else { return .failure(Failure(status: 431, reason: "request headers over 16 KiB")) }
        }
    }

    /// Where the head in `bytes` ends: at the line feed of its last line, the one before an empty
    /// line. Lines end in CRLF or, as RFC 9112 2.2 lets a server accept, in a bare LF (so
    /// "\n\n" ends a head as "\r\n\r\n" does). The search starts at `from`.
    static func headEnd(_ bytes: [UInt8], from: Int = 0) -> Int? {
        var index = from
        while let feed = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            var next = feed + 1
            if next < bytes.count, bytes[next] == UInt8(ascii: "\r") { next += 1 }
            if next < bytes.count, bytes[next] == UInt8(ascii: "\n") { return feed }
            index = feed + 1
        }
        return nil
    }

    /// Parses `GET /path?a=1 HTTP/1.1` and `Name: value` lines (ending in CRLF or LF). A line with
    /// a bare CR, a header line without a name, and a second `Host` are refused (400), as RFC 9112
    /// says: they are how one request is read as another by a proxy in between.
    static func parse(_ head: ArraySlice<UInt8>) -> Result<HTTPRequest, Failure> {
        // Split as bytes: a String takes "\r\n" for one character, which no "\n" matches.
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count == 3, parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            return .failure(Failure(status: 400, reason: "not an HTTP/1.x request line: \(quoted(String(lines.first ?? "")))"))
        }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if target.count == 2 {
            for pair in target[1].split(separator: "&") {
                let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
                query[decode(field[0])] = field.count == 2 ? decode(field[1]) : ""
            }
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), !line.utf8.contains(UInt8(ascii: "\r")),
                  case let name = line[..<colon].lowercased(), !name.isEmpty, !name.contains(where: \.isWhitespace) else {
                return .failure(Failure(status: 400, reason: "not a header line: \(quoted(String(line)))"))
            }
            guard name != "host" || headers["host"] == nil else { return .failure(Failure(status: 400, reason: "two Host headers")) }
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard headers["host"] != nil else { return .failure(Failure(status: 400, reason: "a request needs a Host header")) }
        return .success(HTTPRequest(method: String(parts[0]), path: String(target[0]), query: query, headers: headers))
    }
}

/// A response: bytes, or a part of an open file.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: Body

    enum Body: Sendable {
        case bytes([UInt8])
        /// `count` bytes of `file` from `offset`.
        case file(SharedFile, offset: UInt64, count: UInt64)
    }

    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .bytes(Array((text + "\n").utf8)))
    }

    static func json(_ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                     body: .bytes(Array(value.serialized.utf8)))
    }

    static func html(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: .bytes(Array(text.utf8)))
    }

    /// `file` as `video/mp4`, the part a `Range: bytes=a-b` header asks for (206), or all of it
    /// (200); a range past the end is 416, as RFC 9110 says. Browsers seek in a video by ranges.
    static func video(_ file: SharedFile, range header: String?) -> HTTPResponse {
        self.file(file, type: "video/mp4", range: header, headers: [("Cache-Control", "no-store")])
    }

    /// `file` as `type`, by range as `video(_:range:)` answers, with `headers` besides.
    static func file(_ file: SharedFile, type: String, range header: String?, headers extra: [(String, String)]) -> HTTPResponse {
        let size = file.file.size
        var headers = [("Content-Type", type), ("Accept-Ranges", "bytes")] + extra
        guard let header else { return HTTPResponse(status: 200, headers: headers, body: .file(file, offset: 0, count: size)) }
        guard let (first, last) = byteRange(header, size: size) else {
            headers.append(("Content-Range", "bytes */\(size)"))
            return HTTPResponse(status: 416, headers: headers, body: .bytes([]))
        }
        headers.append(("Content-Range", "bytes \(first)-\(last)/\(size)"))
        return HTTPResponse(status: 206, headers: headers, body: .file(file, offset: first, count: last - first + 1))
    }

    /// The first and last byte of `bytes=a-b`, `bytes=a-` or `bytes=-n` within `size` bytes; `nil`
    /// when it is not satisfiable (several ranges are answered with the first).
    static func byteRange(_ header: String, size: UInt64) -> (UInt64, UInt64)? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6).split(separator: ",").first ?? ""
        let ends = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard ends.count == 2 else { return nil }
        if ends[0].isEmpty {
            guard let suffix = UInt64(ends[1]), suffix > 0 else { return nil }
            return (size - min(suffix, size), size - 1)
        }
        guard let first = UInt64(ends[0]), first < size else { return nil }
        guard !ends[1].isEmpty else { return (first, size - 1) }
        guard let last = UInt64(ends[1]), last >= first else { return nil }
        return (first, min(last, size - 1))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 416: "Range Not Satisfiable"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    /// Writes the response; a peer that went away ends it quietly.
    /// The status line and headers, `Content-Length` and `Connection: close` among them.
    var head: [UInt8] {
        let length: UInt64
        switch body {
        case .bytes(let bytes): length = UInt64(bytes.count)
        case .file(_, _, let count): length = count
        }
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers + [("Content-Length", "\(length)"), ("Connection", "close")] { head += "\(name): \(value)\r\n" }
        return Array((head + "\r\n").utf8)
    }

    func write(to connection: Int32) {
        guard Self.send(head, to: connection) else { return }
        switch body {
        case .bytes(let bytes):
            _ = Self.send(bytes, to: connection)
        case .file(let shared, var offset, let count):
            let end = offset + count
            while offset < end {
                let chunk = Int(min(end - offset, 1 << 20))
                guard let bytes = try? shared.file.read(at: offset, count: chunk), Self.send(bytes, to: connection) else { return }
                offset += UInt64(chunk)
            }
        }
    }

    private static func send(_ bytes: [UInt8], to connection: Int32) -> Bool {
        bytes.withUnsafeBytes { (try? writeAll($0, to: connection, path: FilePath("HTTP connection"))) != nil }
    }
}

/// An open file that threads may read at once (`pread` needs no shared position).
final class SharedFile: @unchecked Sendable {
    let file: ReadableFile
    init(_ file: ReadableFile) { self.file = file }
}
