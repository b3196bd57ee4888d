#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a socket step did not complete.
enum SocketFailure: Error, Equatable {
    /// The deadline passed.
    case timedOut
    /// The request's task was cancelled.
    case cancelled
    /// The connection failed or closed: what happened, in words fit for a message.
    case failed(String)
}

/// Where an `http:` URL's requests go, and what its request line and `Host` header say.
struct HTTPOrigin: Hashable, Sendable {
    /// The host as the resolver takes it (an IPv6 literal without its brackets).
    let host: String
    let port: UInt16
    /// The `Host` header: the URL's authority without userinfo.
    let authority: String

    /// The origin and request target of `url`, or `nil` when it is not an `http:` URL with a host
    /// and a valid port. Bytes the request line cannot carry (spaces, controls, non-ASCII) are
    /// percent-encoded in the target, so no URL can add a line to the request.
    static func parse(_ url: String) -> (origin: HTTPOrigin, target: String)? {
        let reference = URIReference(parsing: url)
        guard reference.scheme?.lowercased() == "http", var authority = reference.authority else { return nil }
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let host: Substring, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            port = rest.isEmpty ? nil : rest.dropFirst()
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            port = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let number: UInt16
        if let port, !port.isEmpty {
            guard port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt16(port), value > 0 else { return nil }
            number = value
        } else {
            number = 80
        }
        let target = (reference.path.isEmpty ? "/" : reference.path) + (reference.query.map { "?" + $0 } ?? "")
        return (HTTPOrigin(host: String(host), port: number, authority: authority), percentEncodingUnsafeBytes(target))
    }

    private static func percentEncodingUnsafeBytes(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if byte > 0x20 && byte < 0x7F { bytes.append(byte) } else { bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One TCP connection to an HTTP server, read and written with every wait bounded by a deadline
/// and by the request's cancellation (checked at least every 100 ms).
///
/// Non-blocking sockets and `poll`: nothing here can hang past the deadline, whatever the server
/// does.
final class HTTPConnection {
    let origin: HTTPOrigin
    private let descriptor: Int32
    /// Bytes received and not yet consumed.
    private var buffer: [UInt8] = []
    private var start = 0

    private init(origin: HTTPOrigin, descriptor: Int32) {
        self.origin = origin
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// A connection over `descriptor`, one end of a connected socket pair (made non-blocking here):
    /// what `HTTPResponseReading` reads a server's bytes through.
    static func adopting(_ descriptor: Int32, origin: HTTPOrigin) -> HTTPConnection {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return HTTPConnection(origin: origin, descriptor: descriptor)
    }

    /// Resolves `origin` and connects to the first of its addresses that accepts.
    static func open(_ origin: HTTPOrigin, deadline: ContinuousClock.Instant, cancellation: CancellationFlag) throws(SocketFailure) -> HTTPConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(origin.host, String(origin.port), &hints, &list)
        guard status == 0, let first = list else {
            throw .failed("cannot find the host \(origin.host) (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard descriptor >= 0 else { lastError = String(cString: strerror(errno)); continue }
            let connection = HTTPConnection(origin: origin, descriptor: descriptor)
            connection.configure()
            if connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return connection }
            guard errno == EINPROGRESS else { lastError = describe(errno, connecting: true); continue }
            try connection.wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return connection }
            lastError = describe(error, connecting: true)
        }
        throw .failed(lastError)
    }

    /// Close-on-exec, non-blocking, no `SIGPIPE`, no delay for the small request.
    private func configure() {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Whether the server closed (or wrote to) this idle connection: it cannot carry a request then.
    var isStale: Bool {
        guard start == buffer.count else { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant, cancellation: CancellationFlag) throws(SocketFailure) {
        var done = 0
        while done < bytes.count {
            #if canImport(Darwin)
            let flags: Int32 = 0
            #else
            let flags = Int32(MSG_NOSIGNAL)
            #endif
            let n = bytes.withUnsafeBytes { Glue.send(descriptor, $0.baseAddress! + done, bytes.count - done, flags) }
            if n > 0 { done += n; continue }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                try wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation)
                continue
            }
            throw .failed(Self.describe(errno, connecting: false))
        }
    }

    /// Up to `count` bytes into `destination`: from what is buffered, else straight from the socket.
    /// - Returns: How many bytes came; 0 when the server closed the connection.
    func read(into destination: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant, cancellation: CancellationFlag) throws(SocketFailure) -> Int {
        guard let base = destination.baseAddress else { return 0 }   // an empty destination reads nothing
        if start < buffer.count {
            let count = min(destination.count, buffer.count - start)
            buffer.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
            start += count
            return count
        }
        return try receive(into: destination, deadline: deadline, cancellation: cancellation)
    }

    /// The bytes up to and including the first `delimiter` (CRLF CRLF for a head, CRLF for a chunk
    /// size line), reading more as needed; at most `limit` bytes.
    /// - Returns: The bytes, or `nil` when the server closed the connection before the delimiter
    ///   (with `receivedAny` telling whether anything came at all).
    func readThrough(_ delimiter: [UInt8], limit: Int, deadline: ContinuousClock.Instant,
                     cancellation: CancellationFlag) throws(SocketFailure) -> (bytes: ArraySlice<UInt8>?, receivedAny: Bool) {
        var searched = start
        while true {
            if let end = Self.find(delimiter, in: buffer, from: searched, start: start) {
                let line = buffer[start..<end]
                start = end
                return (line, true)
            }
            guard buffer.count - start <= limit else { throw .failed("a response line or head longer than \(limit) bytes") }
            searched = max(start, buffer.count - delimiter.count + 1)
            if start > 0 {
                buffer.removeFirst(start)
                searched -= start
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 16 << 10)
            let n = try chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SocketFailure) in try receive(into: raw, deadline: deadline, cancellation: cancellation) }
            }.get()
            guard n > 0 else { return (nil, !buffer.isEmpty) }
            buffer += chunk[..<n]
        }
    }

    /// Where the first `delimiter` at or after `from` ends in `bytes`.
    private static func find(_ delimiter: [UInt8], in bytes: [UInt8], from: Int, start: Int) -> Int? {
        guard bytes.count - max(from, start) >= delimiter.count else { return nil }
        var index = max(from, start)
        while index + delimiter.count <= bytes.count {
            if bytes[index] == delimiter[0], bytes[index..<(index + delimiter.count)].elementsEqual(delimiter) { return index + delimiter.count }
            index += 1
        }
        return nil
    }

    private func receive(into destination: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant, cancellation: CancellationFlag) throws(SocketFailure) -> Int {
        while true {
            let n = recv(descriptor, destination.baseAddress, destination.count, 0)
            if n >= 0 {
                #if os(Linux)
                // Acknowledge at once, not after the delayed-ACK timer: a server whose Nagle holds
                // a response's last small segment until the previous one is acknowledged would
                // otherwise add 40 ms to every response of just over a segment (a 64 KiB read).
                var one: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return n
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw .failed(Self.describe(errno, connecting: false)) }
            try wait(for: Int16(POLLIN), deadline: deadline, cancellation: cancellation)
        }
    }

    /// Waits until the socket is ready for `events`, the deadline passes or the task is cancelled.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant, cancellation: CancellationFlag) throws(SocketFailure) {
        while true {
            if cancellation.isSet { throw .cancelled }
            let left = deadline - .now
            guard left > .zero else { throw .timedOut }
            let milliseconds = min(100, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let n = poll(&entry, 1, Int32(milliseconds))
            if n > 0 { return }
            if n < 0, errno != EINTR { throw .failed(String(cString: strerror(errno))) }
        }
    }

    private static func describe(_ code: Int32, connecting: Bool) -> String {
        switch code {
        case ECONNREFUSED: return "cannot connect to the host (refused)"
        case ECONNRESET: return "the connection was reset"
        case EPIPE: return "the server closed the connection"
        case ETIMEDOUT: return connecting ? "cannot connect to the host (timed out)" : "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH: return "cannot reach the host (\(String(cString: strerror(code))))"
        default: return String(cString: strerror(code))
        }
    }
}

/// The C functions whose names the connection's own methods shadow.
private enum Glue {
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.send(descriptor, bytes, count, flags)
        #elseif canImport(Musl)
        Musl.send(descriptor, bytes, count, flags)
        #else
        Darwin.send(descriptor, bytes, count, flags)
        #endif
    }
}
