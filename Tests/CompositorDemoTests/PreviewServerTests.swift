import Foundation
import Testing
import CompositorTestSupport
@testable import CompositorDemo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The preview's HTTP server against peers that are not the page: idle and slow connections, a
/// peer that never reads, more connections than it takes, a head ending in bare LFs, a page that
/// rebound its name to 127.0.0.1, and another site's POST. Each test runs the server in this
/// process with short limits (the real ones are seconds) and a plain handler; the last runs the
/// demo itself, with its real limits, under `ulimit -n 256`. Tests connect to 127.0.0.1 only, and
/// every wait is bounded.
@Suite("Preview server: timeouts, a bound on connections, Host and Origin")
struct PreviewServerTests {
    /// Tenths of a second where the demo has seconds, and 4 connections where it has 32.
    static let fast = HTTPServer.Limits(connections: 4, idle: 0.3, head: 0.6, send: 0.3)
    /// The same, with the demo's 32 connections: for tests of many requests one after another, each
    /// of whose connections a starved server may not have counted closed before the next comes
    /// (the whole suite on 2 cores once had two of eight Origin checks answered 503).
    static let fastRoomy = HTTPServer.Limits(connections: 32, idle: 0.3, head: 0.6, send: 0.3)

    @Test("a connection that sends nothing is closed after the idle limit")
    func idleConnectionClosed() async throws {
        let (reply, elapsed, openAfter) = try await onThread {
            try withServer(Self.fast) { server in
                let client = try LoopbackClient(port: server.port)
                let start = ContinuousClock.now
                let reply = client.receive(for: 5)
                let elapsed = seconds(since: start)
                return (reply, elapsed, waitUntil(5) { server.openConnections == 0 })
            }
        }
        #expect(reply.closed && reply.text.isEmpty, "closed without a reply: \(reply)")
        #expect(elapsed >= 0.25 && elapsed < 3, "closed after \(elapsed) s (idle limit 0.3 s)")
        #expect(openAfter, "its slot is given back")
    }

    @Test("a slowloris (a byte every 50 ms) is cut at the head limit with 408")
    func slowlorisCut() async throws {
        let (reply, elapsed) = try await onThread {
            try withServer(Self.fast) { server in
                let client = try LoopbackClient(port: server.port)
                let start = ContinuousClock.now
                _ = client.sendText("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Slow: ")
                // At most 3 s of a byte every 50 ms, stopping when the server answers or closes.
                for _ in 0..<60 {
                    guard client.sendText("a"), !client.readable(within: 0.05) else { break }
                }
                return (client.receive(for: 2), seconds(since: start))
            }
        }
        #expect(reply.text.hasPrefix("HTTP/1.1 408 ") && reply.closed, "\(reply)")
        #expect(elapsed < 2.5, "cut after \(elapsed) s (head limit 0.6 s)")
    }

    @Test("a head whose lines end in bare LF is answered at once")
    func bareLineFeeds() async throws {
        // Limits of 5 s: a head not seen to end would be answered 408 only then.
        let (plain, mixed, bareCR, elapsed) = try await onThread {
            try withServer(HTTPServer.Limits(connections: 4, idle: 5, head: 5, send: 5)) { server in
                let start = ContinuousClock.now
                let plain = try request("GET /state HTTP/1.1\nHost: 127.0.0.1:\(server.port)\n\n", port: server.port)
                let elapsed = seconds(since: start)
                let mixed = try request("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\n\r\n", port: server.port)
                let bareCR = try request("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\rX: y\r\n\r\n", port: server.port)
                return (plain, mixed, bareCR, elapsed)
            }
        }
        #expect(plain.text.hasPrefix("HTTP/1.1 200 ") && plain.text.hasSuffix("GET /state\n"), "\(plain)")
        #expect(elapsed < 2.5, "answered after \(elapsed) s, before the head limit")
        #expect(mixed.text.hasPrefix("HTTP/1.1 200 "), "\(mixed)")
        #expect(bareCR.text.hasPrefix("HTTP/1.1 400 "), "a bare CR inside a line is refused: \(bareCR)")
    }

    @Test("a peer that never reads a long reply is cut at the send limit")
    func nonReaderCut() async throws {
        let (opened, freed) = try await onThread {
            try withServer(Self.fast) { server in
                // A small receive window, so the reply fills the buffers and the server's send waits.
                let client = try LoopbackClient(port: server.port, receiveBuffer: 4096)
                _ = client.sendText("GET /big HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
                let opened = waitUntil(2) { server.openConnections == 1 }
                return (opened, waitUntil(5) { server.openConnections == 0 })
            }
        }
        #expect(opened && freed, "the connection's thread gave up its send (opened: \(opened), freed: \(freed))")
    }

    /// The fourth hostile campaign: a peer holding the 32 slots with idle connections had every
    /// request of the page answered 503. A request takes the place of the oldest idle connection.
    @Test("over the bound a request takes the place of the oldest idle connection; when none is idle it is refused at once")
    func boundOnConnections() async throws {
        // Limits of 10 s: the idle and the slow connections keep their slots while the others are
        // refused, even when the whole suite starves this thread (under AddressSanitizer a prompt
        // refusal can take a second).
        let limits = HTTPServer.Limits(connections: 4, idle: 10, head: 10, send: 0.3)
        let ask: @Sendable (UInt16) -> String = { port in "GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n" }
        let (full, evicted, first, busy, refusals, answer, waited) = try await onThread {
            try withServer(limits) { server in
                let idle = try (0..<limits.connections).map { _ in try LoopbackClient(port: server.port) }
                let full = waitUntil(2) { server.openConnections == limits.connections }
                // A request over the bound: answered, in the oldest idle connection's place.
                let first = try request(ask(server.port), port: server.port)
                let evicted = idle[0].receive(for: 3)
                // Until the answered connection and the one it replaced are gone (a starved run
                // closes them late): the other three idle ones are left.
                _ = waitUntil(10) { server.openConnections == limits.connections - 1 }
                // Every slot now held by a connection that has sent part of its head: not idle.
                let slow = try (0..<limits.connections).map { _ in try LoopbackClient(port: server.port) }
                for client in slow { _ = client.sendText("GET /state HTTP/1.1\r\n") }
                // Until the server has read their first bytes (a starved run reads them late).
                let busy = waitUntil(10) { server.openConnections == limits.connections && server.idleConnections == 0 }
                    ? "" : "\(server.openConnections) open, \(server.idleConnections) idle"
                // 20 more, each asking: each is answered 503 (or closed, when the server read
                // nothing yet) at once, not queued behind the slow ones.
                var refusals: [LoopbackClient.Reply] = []
                var flood: [LoopbackClient] = []
                for _ in 0..<20 {
                    let client = try LoopbackClient(port: server.port)
                    _ = client.sendText(ask(server.port))
                    refusals.append(client.receive(for: 3))
                    flood.append(client)
                }
                // The slow ones are cut at 10 s (408); a request retried every 50 ms gets in then.
                let start = ContinuousClock.now
                var answer = LoopbackClient.Reply(text: "", closed: false)
                for _ in 0..<300 where !answer.text.hasPrefix("HTTP/1.1 200 ") {
                    answer = try request(ask(server.port), port: server.port)
                    if !answer.text.hasPrefix("HTTP/1.1 200 ") { usleep(50_000) }
                }
                withExtendedLifetime((idle, slow, flood)) {}
                return (full, evicted, first, busy, refusals, answer, seconds(since: start))
            }
        }
        #expect(full, "the idle connections take every slot")
        #expect(first.text.hasPrefix("HTTP/1.1 200 "), "\(first)")
        #expect(evicted.closed && evicted.text.isEmpty, "the oldest idle connection made room: \(evicted)")
        #expect(busy.isEmpty, "every slot held by a connection that has sent part of its head: \(busy)")
        let prompt = refusals.filter { $0.closed && ($0.text.isEmpty || $0.text.hasPrefix("HTTP/1.1 503 ")) }
        #expect(prompt.count == 20, "every connection over the bound is closed at once: \(refusals.filter { !prompt.contains($0) }.prefix(3))")
        #expect(refusals.contains { $0.text.hasPrefix("HTTP/1.1 503 ") && $0.text.contains("Connection: close\r\n") })
        #expect(answer.text.hasPrefix("HTTP/1.1 200 ") && waited < limits.head + 2, "answered after \(waited) s: \(answer)")
    }

    @Test("a Host other than 127.0.0.1:PORT or localhost:PORT is refused (DNS rebinding)")
    func hostChecked() async throws {
        let replies = try await onThread {
            try withServer(Self.fastRoomy) { server in
                let port = server.port
                return try [
                    "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "evil.example:\(port)", "127.0.0.1:\(port &+ 1)",
                    "127.0.0.1", "evil\u{1}\u{1b}[2J:\(port)",
                ].map { try request("GET /state HTTP/1.1\r\nHost: \($0)\r\n\r\n", port: port) }
                + [request("GET /state HTTP/1.1\r\n\r\n", port: port),
                   request("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nHost: evil.example:\(port)\r\n\r\n", port: port)]
            }
        }
        let statuses = replies.map { $0.text.prefix(12) }
        #expect(statuses == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 421", "HTTP/1.1 421",
                             "HTTP/1.1 421", "HTTP/1.1 421", "HTTP/1.1 400", "HTTP/1.1 400"], "\(replies)")
        #expect(replies[3].text.contains("not Host 'evil.example:"), "the refusal names the host: \(replies[3].text)")
        #expect(replies[6].text.contains("\\u{1}\\u{1B}[2J") && !replies[6].text.contains("\u{1b}"),
                "control characters escaped: \(replies[6].text)")
    }

    @Test("a POST needs this server's own Origin; a GET does not")
    func originChecked() async throws {
        let replies = try await onThread {
            try withServer(Self.fastRoomy) { server in
                let port = server.port
                let post = { (host: String, origin: String?) in
                    try request("POST /seek?content=3 HTTP/1.1\r\nHost: \(host)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n", port: port)
                }
                return try [
                    post("127.0.0.1:\(port)", "http://127.0.0.1:\(port)"), post("localhost:\(port)", "http://localhost:\(port)"),
                    post("127.0.0.1:\(port)", nil), post("127.0.0.1:\(port)", "http://evil.example"),
                    post("127.0.0.1:\(port)", "null"), post("127.0.0.1:\(port)", "http://localhost:\(port)"),
                    post("127.0.0.1:\(port)", "https://127.0.0.1:\(port)"),
                    request("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", port: port),
                ]
            }
        }
        #expect(replies.map { $0.text.prefix(12) } == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 403", "HTTP/1.1 403",
                                                      "HTTP/1.1 403", "HTTP/1.1 403", "HTTP/1.1 403", "HTTP/1.1 200"], "\(replies)")
        #expect(replies[0].text.hasSuffix("POST /seek\n"), "a same-origin POST reaches the handler")
        #expect(replies[3].text.contains("not 'http://evil.example'"), "\(replies[3].text)")
    }

    /// The demo itself, with its real limits, under `ulimit -n 256`: 300 idle connections used to
    /// take every descriptor, and then no request was ever answered.
    @Test("preview under ulimit -n 256: 300 idle connections, then a request is answered; Host and Origin are checked")
    func demoSurvivesIdleConnections() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("preview-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("stdout")
        let demo = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"), [
            "-c", #"ulimit -n 256 && exec "$0" preview Fixtures/demo-web.json --port 0 >"$1""#,
            DemoProcess.executable.path, output.path,
        ], in: packageRoot)
        let outcome: Result<(UInt16?, [LoopbackClient.Reply], Double), any Error>
        do { outcome = .success(try await onThread { () throws -> (UInt16?, [LoopbackClient.Reply], Double) in
            // The demo renders its video before it listens: up to a minute (a sanitized build is slow).
            var port: UInt16?
            for _ in 0..<600 where port == nil {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                port = text.firstMatch(of: #/127\.0\.0\.1:(\d+)\//#).flatMap { UInt16($0.1) }
                if port == nil { usleep(100_000) }
            }
            guard let port else { return (nil, [], 0) }
            let idle = try (0..<300).map { _ in try LoopbackClient(port: port) }
            let start = ContinuousClock.now
            var answer = LoopbackClient.Reply(text: "", closed: false)
            // The idle connections are cut after HTTPServer.Limits.preview.idle (5 s): retried
            // every 100 ms for up to 15 s, a request gets in by then.
            for _ in 0..<150 where !answer.text.hasPrefix("HTTP/1.1 200 ") && seconds(since: start) < 15 {
                answer = try request("GET /state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", port: port, within: 2)
                if !answer.text.hasPrefix("HTTP/1.1 200 ") { usleep(100_000) }
            }
            let waited = seconds(since: start)
            withExtendedLifetime(idle) {}
            let origin = "Origin: http://127.0.0.1:\(port)\r\n"
            return (port, [
                answer,
                try request("GET /state HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n", port: port),
                try request("POST /seek?content=3 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\n\r\n", port: port),
                try request("POST /seek?content=3 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(origin)\r\n", port: port),
            ], waited)
        }) } catch { outcome = .failure(error) }
        let running = demo.isRunning
        kill(demo.processIdentifier, SIGKILL)   // SIGTERM may be blocked: children of the test runner inherit its signal mask
        let ended = await demo.wait()
        let (port, replies, waited) = try outcome.get()
        try #require(port != nil, "the demo printed its address (stderr: \(ended.stderr))")
        #expect(replies[0].text.hasPrefix("HTTP/1.1 200 ") && replies[0].text.contains("\"generation\""), "\(replies[0])")
        #expect(waited < HTTPServer.Limits.preview.idle + 5, "answered \(waited) s after the 300 idle connections")
        #expect(replies[1].text.hasPrefix("HTTP/1.1 421 "), "a rebinding page's Host is refused: \(replies[1])")
        #expect(replies[2].text.hasPrefix("HTTP/1.1 403 "), "another site's seek is refused: \(replies[2])")
        #expect(replies[3].text.hasPrefix("HTTP/1.1 200 ") && replies[3].text.contains("\"bars\""), "the page's own seek: \(replies[3])")
        #expect(running, "the demo was still serving (stderr: \(ended.stderr))")
    }
}

// MARK: Helpers

/// Runs `server` (with a handler that names what it was asked; `/big` is 16 MiB) around `body`.
private func withServer<T>(_ limits: HTTPServer.Limits, _ body: (HTTPServer) throws -> T) throws -> T {
    let server = try HTTPServer(port: 0, limits: limits)
    let big = HTTPResponse(status: 200, headers: [], body: .bytes([UInt8](repeating: 0x2e, count: 16 << 20)))
    Thread.detachNewThread {
        server.serve { request in request.path == "/big" ? big : .text(200, "\(request.method) \(request.path)") }
    }
    defer { server.stop() }
    return try body(server)
}

/// Runs `body` on a thread of its own, since it blocks in `poll` and `usleep`, which must not hold
/// a thread of Swift concurrency's pool; expectations are checked after, in the test's own task.
private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Polls `condition` every 10 ms for up to `limit` seconds.
private func waitUntil(_ limit: Double, _ condition: () -> Bool) -> Bool {
    let start = ContinuousClock.now
    while !condition() {
        guard seconds(since: start) < limit else { return false }
        usleep(10_000)
    }
    return true
}

private func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Sends `head` on a new connection and reads the reply until the server closes it.
private func request(_ head: String, port: UInt16, within limit: Double = 5) throws -> LoopbackClient.Reply {
    let client = try LoopbackClient(port: port)
    _ = client.sendText(head)
    return client.receive(for: limit)
}

/// A test's TCP connection to 127.0.0.1 (the only address these tests use).
private final class LoopbackClient {
    struct Reply: Equatable, CustomStringConvertible {
        var text: String
        /// The server closed the connection (or reset it) within the time given.
        var closed: Bool
        var description: String { "\(closed ? "closed" : "open") \(text.debugDescription)" }
    }

    struct Failure: Error { let what: String }

    let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` set before connecting limits the window.
    init(port: UInt16, receiveBuffer: Int32? = nil) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(what: "socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        // Bounds the connect and every send.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = HTTPServer.loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw Failure(what: "connect to 127.0.0.1:\(port): errno \(error)")
        }
    }

    deinit { close(descriptor) }

    /// Sends `text`; false when the server has closed the connection.
    func sendText(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        return bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) } == bytes.count
    }

    /// Whether a read would not wait (a reply, or the close) within `limit` seconds.
    func readable(within limit: Double) -> Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, Int32(limit * 1000)) > 0
    }

    /// Reads until the server closes the connection or `limit` seconds pass.
    func receive(for limit: Double) -> Reply {
        let start = ContinuousClock.now
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while seconds(since: start) < limit {
            guard readable(within: min(0.1, limit)) else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return Reply(text: String(decoding: bytes, as: UTF8.self), closed: true) }
            bytes += buffer[..<count]
        }
        return Reply(text: String(decoding: bytes, as: UTF8.self), closed: false)
    }
}
