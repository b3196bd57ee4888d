import Compositor
import CompositorIO
import Foundation

/// A folder served over HTTP on 127.0.0.1, on a port the system picks: the bundled demo plays the
/// reference scenario again with every source at an http URL, as an app's media server or CDN
/// would serve them.
///
/// GET only; a path names a regular file inside the folder (no `..`, no hidden names, no escapes);
/// byte ranges answered as the preview's video is (206 with `Content-Range`), with an `ETag` from
/// the file's size and modification time, so the library's checks between reads have something
/// to check.
final class FixtureServer: Sendable {
    private let server: HTTPServer
    private let folder: String

    /// The URL the folder is at: `http://127.0.0.1:PORT/`.
    var baseURL: String { "http://127.0.0.1:\(server.port)/" }

    /// Serves `folder` from now until `stop()`.
    init(folder: String) throws(DemoError) {
        self.folder = folder
        server = try HTTPServer(port: 0)
        Thread.detachNewThread { [server, folder] in
            server.serve { request in Self.answer(request, folder: folder) }
        }
    }

    func stop() { server.stop() }

    /// The file `request` names in `folder`, or why not.
    static func answer(_ request: HTTPRequest, folder: String) -> HTTPResponse {
        guard request.method == "GET" else { return .text(405, "only GET") }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && !$0.contains("%") }) else {
            return .text(404, "no such file")
        }
        let file: ReadableFile
        do { file = try ReadableFile(path: FilePath(folder + "/" + parts.joined(separator: "/"))) } catch {
            return .text(404, "no such file")
        }
        let type = switch parts.last?.split(separator: ".").last?.lowercased() {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "ts": "video/mp2t"
        case "m4s": "video/iso.segment"
        case "json": "application/json"
        default: "video/mp4"
        }
        let etag = "\"\(String(file.version.size, radix: 16))-\(String(file.version.modified, radix: 16))\""
        return .file(SharedFile(file), type: type, range: request.headers["range"], headers: [("ETag", etag)])
    }
}
