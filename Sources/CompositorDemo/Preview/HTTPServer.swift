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
final class HTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32

    /// Listens on 127.0.0.1:`port`; port 0 lets the system choose one (see `port`).
    init(port: UInt16) throws(DemoError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .failure("preview: cannot open a socket: \(systemErrorMessage(errno))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian   // 127.0.0.1 only: the page drives a local demo
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
    }

    /// Accepts connections for ever, answering each request with `handler` on a thread of its own.
    func serve(_ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> Never {
        // A browser that closes a connection mid-download must not end the demo.
        signal(SIGPIPE, SIG_IGN)
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                // Out of descriptors (or an aborted connection): wait rather than spin.
                if errno != EINTR { usleep(10_000) }
                continue
            }
            Thread.detachNewThread {
                defer { close(connection) }
                let response: HTTPResponse
                switch HTTPRequest.read(from: connection) {
                case .success(let request): response = handler(request)
                case .failure(let error): response = .text(error.status, error.reason)
                }
                response.write(to: connection)
            }
        }
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

    static func read(from connection: Int32) -> Result<HTTPRequest, Failure> {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return .failure(Failure(status: 400, reason: "the request ended before its headers did")) }
            head += buffer[..<count]
            if let end = head.firstRange(of: terminator) { return parse(head[..<end.lowerBound]) }
            guard head.count <= maximumHeadSize else { return .failure(Failure(status: 431, reason: "request headers over 16 KiB")) }
        }
    }

    /// Parses `GET /path?a=1 HTTP/1.1` and `Name: value` lines.
    static func parse(_ head: ArraySlice<UInt8>) -> Result<HTTPRequest, Failure> {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
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
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
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
        let size = file.file.size
        var headers = [("Content-Type", "video/mp4"), ("Accept-Ranges", "bytes"), ("Cache-Control", "no-store")]
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
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 416: "Range Not Satisfiable"
        case 431: "Request Header Fields Too Large"
        default: "Error"
        }
    }

    /// Writes the response; a peer that went away ends it quietly.
    func write(to connection: Int32) {
        let length: UInt64
        switch body {
        case .bytes(let bytes): length = UInt64(bytes.count)
        case .file(_, _, let count): length = count
        }
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers + [("Content-Length", "\(length)"), ("Connection", "close")] { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        guard Self.send(Array(head.utf8), to: connection) else { return }
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
