import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// HTTP servers the remote-source tests start on 127.0.0.1 (never another address): nginx serving
/// `Fixtures/`, and `Tests/remote/fault_server.py` misbehaving on purpose.
///
/// Tests that need nginx are declared `.needsNginx`: without it they are skipped on a developer
/// machine, but with `COMPOSITOR_REQUIRE_FFMPEG=1` (CI, whose `.ci/run` installs `nginx-light`)
/// they run and its absence fails them, as `.needsFFmpeg` does for ffmpeg.
package enum LocalServers {
    package static let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        + ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]

    package static func find(_ name: String) -> String? {
        folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    package static let nginx: String? = find("nginx")
    package static let python: String? = find("python3")

    package struct Missing: Error, CustomStringConvertible {
        package var tool: String
        package var description: String { "\(tool) not found, and COMPOSITOR_REQUIRE_FFMPEG=1 requires it (apt-get install nginx-light)" }
    }

    package struct NotListening: Error, CustomStringConvertible {
        package var what: String
        package var log: String
        package var description: String { "\(what) did not start listening on 127.0.0.1: \(log)" }
    }

    /// A free TCP port on 127.0.0.1 (bound to 0, read, closed).
    package static func freePort() throws -> Int {
        let (fd, port) = try boundPort()
        close(fd)
        return port
    }

    /// A socket bound to a free port on 127.0.0.1 that never listens, and the port: a connection
    /// to it is refused at once, and no other test's server can take the port while it is open.
    /// Close `fd` when done.
    package static func boundPort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NotListening(what: "socket", log: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else {
            close(fd)
            throw NotListening(what: "socket", log: "bind() failed")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    package static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Runs `body` with a server started by `arguments(port)`, stopping it (SIGKILL) afterwards.
    package static func with<T>(
        _ what: String, _ executable: String, _ arguments: (Int) -> [String], logFile: URL?,
        _ body: (Int) async throws -> T
    ) async throws -> T {
        let port = try freePort()
        let child = try ChildProcess.start(URL(fileURLWithPath: executable), arguments(port))
        var started = false
        for _ in 0..<100 where !started {
            if accepts(port) { started = true } else if !child.isRunning { break } else { try await Task.sleep(for: .milliseconds(50)) }
        }
        let result: Result<T, any Error>
        if started {
            do { result = .success(try await body(port)) } catch { result = .failure(error) }
        } else {
            let log = logFile.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
            result = .failure(NotListening(what: what, log: log))
        }
        // SIGKILL: the child inherits the test runner's blocked signals (SIGTERM among them).
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        let output = await child.wait()
        if !started { return try Result<T, any Error>.failure(NotListening(what: what, log: output.stderr)).get() }
        return try result.get()
    }

    /// Runs `body` with nginx serving `root` (`Fixtures/` by default) on 127.0.0.1:port, from a
    /// generated config in a temporary folder. `/moved/content.m3u8` redirects (302) to
    /// `/hls/multivariant/content/master.m3u8`, whose variants resolve only against the final URL.
    package static func withNginx<T>(root: URL? = nil, _ body: (Int) async throws -> T) async throws -> T {
        guard let nginx else { throw Missing(tool: "nginx") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixtures = (root ?? packageRoot.appendingPathComponent("Fixtures")).path
        let p = folder.path
        return try await with("nginx", nginx, { port in
            let config = """
                daemon off; master_process off; worker_processes 1;
                pid \(p)/nginx.pid; error_log \(p)/error.log;
                events { worker_connections 64; }
                http {
                  access_log \(p)/access.log;
                  client_body_temp_path \(p)/body; proxy_temp_path \(p)/proxy; fastcgi_temp_path \(p)/fastcgi;
                  uwsgi_temp_path \(p)/uwsgi; scgi_temp_path \(p)/scgi;
                  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4 m4s; }
                  server {
                    listen 127.0.0.1:\(port);
                    root \(fixtures);
                    location = /moved/content.m3u8 { return 302 /hls/multivariant/content/master.m3u8; }
                  }
                }
                """
            try? config.write(toFile: "\(p)/nginx.conf", atomically: false, encoding: .utf8)
            return ["-c", "\(p)/nginx.conf", "-p", p, "-e", "\(p)/error.log"]
        }, logFile: folder.appendingPathComponent("error.log"), body)
    }

    /// Runs `body` with `python3 -m http.server` serving `root` on 127.0.0.1:port: a server that
    /// ignores `Range`, answering every GET with the whole file.
    package static func withPythonHTTPServer<T>(root: URL, _ body: (Int) async throws -> T) async throws -> T {
        guard let python else { throw Missing(tool: "python3") }
        return try await with("http.server", python, { ["-m", "http.server", String($0), "--bind", "127.0.0.1", "--directory", root.path] },
                              logFile: nil, body)
    }

    /// Runs `body` with `Tests/remote/fault_server.py` on 127.0.0.1:port.
    package static func withFaultServer<T>(_ body: (Int) async throws -> T) async throws -> T {
        guard let python else { throw Missing(tool: "python3") }
        let script = packageRoot.appendingPathComponent("Tests/remote/fault_server.py").path
        return try await with("fault_server.py", python, { ["-u", script, String($0)] }, logFile: nil, body)
    }

    /// Runs `body` with `Tests/remote/ad_server.py` on 127.0.0.1:port serving `root` (VMAP, VAST,
    /// media; `{{BASE}}` in documents becomes `http://127.0.0.1:port`) and recording every request.
    package static func withAdServer<T>(root: URL, _ body: (AdServer) async throws -> T) async throws -> T {
        guard let python else { throw Missing(tool: "python3") }
        let script = packageRoot.appendingPathComponent("Tests/remote/ad_server.py").path
        return try await with("ad_server.py", python, { ["-u", script, String($0), root.path] }, logFile: nil) { try await body(AdServer(port: $0)) }
    }

    /// Runs `body` with the fault server over TLS, its certificate self-signed (made here with
    /// `openssl`): one no client trusts.
    package static func withUntrustedTLSServer<T>(_ body: (Int) async throws -> T) async throws -> T {
        guard let python else { throw Missing(tool: "python3") }
        guard let openssl = find("openssl") else { throw Missing(tool: "openssl") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        let made = try await ChildProcess.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                                        "-days", "1", "-subj", "/CN=127.0.0.1"])
        guard made.status == 0 else { throw NotListening(what: "openssl", log: made.stderr) }
        let script = packageRoot.appendingPathComponent("Tests/remote/fault_server.py").path
        return try await with("fault_server.py over TLS", python, { ["-u", script, String($0), cert, key] }, logFile: nil, body)
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests against nginx on 127.0.0.1: they run when nginx is installed, and also when
    /// `COMPOSITOR_REQUIRE_FFMPEG=1` requires the test tools (then its absence fails them);
    /// otherwise they are reported as skipped.
    package static var needsNginx: Self {
        .enabled(if: LocalServers.nginx != nil || FFmpeg.required,
                 "needs nginx (apt-get install nginx-light; COMPOSITOR_REQUIRE_FFMPEG=1 makes its absence a failure)")
    }

    /// For tests against the fault server: python3, required as nginx is.
    package static var needsPython: Self {
        .enabled(if: LocalServers.python != nil || FFmpeg.required,
                 "needs python3 for Tests/remote/fault_server.py (COMPOSITOR_REQUIRE_FFMPEG=1 makes its absence a failure)")
    }
}

/// The test ad server on 127.0.0.1: its base URL and the requests it has answered.
package struct AdServer: Sendable {
    package let port: Int
    package var base: String { "http://127.0.0.1:\(port)" }

    /// One answered request: its path with query, as received, and its kind (beacon, document, media).
    package struct Request: Hashable, Sendable {
        package var path: String
        package var kind: String
    }

    /// Every request answered so far, in the order answered.
    package func log() async throws -> [Request] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: base + "/_log")!)
        let entries = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return entries.map { Request(path: $0["path"] as? String ?? "", kind: $0["kind"] as? String ?? "") }
    }
}
