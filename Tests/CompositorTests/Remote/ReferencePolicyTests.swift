import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
import CompositorTestSupport
import CompositorUmbrellaTestSupport

/// One rule for every reference a document makes: read over http(s), it may name only http(s).
@Suite("Reference policy: nothing a remote document names reaches this machine's files")
struct ReferencePolicyTests {
    @Test("what each kind of document may reference", arguments: [
        // (document, reference, followed)
        ("https://127.0.0.1/v/a.m3u8", "https://127.0.0.1/v/s.ts", true),
        ("https://127.0.0.1/v/a.m3u8", "http://127.0.0.2/s.ts", true),
        ("HTTP://127.0.0.1/a.m3u8", "HTTPS://127.0.0.1/s.ts", true),
        ("https://127.0.0.1/v/a.m3u8", "file:///etc/hostname", false),
        ("https://127.0.0.1/v/a.m3u8", "FILE:///etc/hostname", false),
        ("https://127.0.0.1/v/a.m3u8", "/etc/hostname", false),
        ("https://127.0.0.1/v/a.m3u8", "data:video/mp2t;base64,Rw==", false),
        ("https://127.0.0.1/v/a.m3u8", "ftp://127.0.0.1/s.ts", false),
        ("/media/a.m3u8", "/media/s.ts", true),
        ("/media/a.m3u8", "file:///media/s.ts", true),
        ("/media/a.m3u8", "https://127.0.0.1/s.ts", true),
        ("media/a.m3u8", "c:d.ts", true),
        ("/media/a.m3u8", "ftp://127.0.0.1/s.ts", false),
        ("file:///media/a.m3u8", "javascript:alert(1)", false),
        ("mem://v/a.m3u8", "mem://v/s.ts", true),
        ("mem://v/a.m3u8", "https://127.0.0.1/s.ts", true),
        ("mem://v/a.m3u8", "file:///etc/hostname", false),
        ("mem://v/a.m3u8", "other://v/s.ts", false),
    ])
    func table(document: String, reference: String, followed: Bool) {
        #expect((ReferencePolicy(document: document).refusal(of: reference) == nil) == followed)
    }

    /// Each place a playlist writes a URI, naming a local file from a playlist read over http:
    /// (playlist, the line refused, the URI as written).
    static let remoteFileReferences: [(String, Int, String)] = [
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///etc/hostname\n", 4, "file:///etc/hostname"),
        // An absolute path from an http playlist is on its server (http://127.0.0.1:1/etc/hostname): followed.
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nFILE:///etc/hostname\n", 4, "FILE:///etc/hostname"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"file:///tmp/init.mp4\"\n#EXTINF:2,\ns0.m4s\n", 3, "file:///tmp/init.mp4"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"file:///tmp/k\"\n#EXTINF:2,\ns0.ts\n", 3, "file:///tmp/k"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"file:///tmp/k\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n#EXTINF:2,\ns0.ts\n",
         3, "file:///tmp/k"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nfile:///tmp/v.m3u8\n", 3, "file:///tmp/v.m3u8"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"en\",URI=\"file:///tmp/s.m3u8\"\n#EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES=\"s\"\nv.m3u8\n",
         2, "file:///tmp/s.m3u8"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"file:///tmp/i.m3u8\"\n", 4, "file:///tmp/i.m3u8"),
    ]

    @Test("a remote playlist naming a local file as a segment, map, key, variant, rendition or I-frame stream is refused at that line",
          arguments: remoteFileReferences)
    func remotePlaylistRefusesFiles(text: String, line: Int, uri: String) {
        let error = #expect(throws: HLSParseError.self) { try HLSPlaylistParser().parse(Array(text.utf8), url: "http://127.0.0.1:1/v/a.m3u8") }
        #expect(error?.line == line)
        #expect(error?.problem == .referenceRefused(uri: uri, reason: "a document read over http(s) may reference only http(s) URLs"))
        #expect(error?.category == .unsupported)
    }

    @Test("a DRM system's key keeps its own scheme; a local playlist names files and http(s), not other schemes")
    func keysAndLocalPlaylists() throws {
        let fairPlay = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n#EXTINF:2,\ns0.ts\n"
        guard case .media(let remote) = try HLSPlaylistParser().parse(Array(fairPlay.utf8), url: "https://127.0.0.1/a.m3u8") else {
            Issue.record("not a media playlist"); return
        }
        #expect(remote.segments[0].keys.map(\.resolvedURI) == ["skd://k"])
        #expect(remote.segments[0].resolvedURI == "https://127.0.0.1/s0.ts")
        // An identity key is read as a file would be: held to the rule.
        let identityKey = fairPlay.replacingOccurrences(of: "com.apple.streamingkeydelivery", with: "identity")
        #expect(throws: HLSParseError.self) { try HLSPlaylistParser().parse(Array(identityKey.utf8), url: "https://127.0.0.1/a.m3u8") }

        let local = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///media/s0.ts\n#EXTINF:2,\nhttps://127.0.0.1/s1.ts\n#EXTINF:2,\n../s2.ts\n"
        guard case .media(let media) = try HLSPlaylistParser().parse(Array(local.utf8), url: "/media/v/a.m3u8") else {
            Issue.record("not a media playlist"); return
        }
        #expect(media.segments.map(\.resolvedURI) == ["file:///media/s0.ts", "https://127.0.0.1/s1.ts", "/media/s2.ts"])
        let ftp = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nftp://127.0.0.1/s0.ts\n"
        let error = #expect(throws: HLSParseError.self) { try HLSPlaylistParser().parse(Array(ftp.utf8), url: "/media/v/a.m3u8") }
        #expect(error?.problem == .referenceRefused(uri: "ftp://127.0.0.1/s0.ts", reason: "a document read from disk may reference only files and http(s) URLs"))
    }

    @Test("a remote source whose playlist lists a local file fails to load at that line; the file is never read")
    func remoteSourceNeverReadsFile() async throws {
        let transport = FileServingTransport(["m.m3u8": Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///etc/hostname\n#EXT-X-ENDLIST\n".utf8)])
        let source = try MediaLocation(parsing: "http://127.0.0.1:1/m.m3u8")
        let catalog = try await SourceCatalog.load([source], transport: transport)
        #expect(catalog.failures[source] == .playlist(
            url: "http://127.0.0.1:1/m.m3u8",
            reason: "line 4: 'file:///etc/hostname' not followed: a document read over http(s) may reference only http(s) URLs: 'file:///etc/hostname'"))
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:1/m.m3u8"])
    }

    /// The commands of the fourth hostile campaign, on a playlist served by nginx whose segments
    /// (or init segment) are local files: `render`, `dash` and `hls --package-every-piece` read them
    /// into the output, `hls` wrote their `file:` URIs into `stitched.m3u8`.
    @Test("render, dash and hls refuse a remote playlist naming local segments or init segments, and write nothing", .needsNginx)
    func commandsRefuse() async throws {
        let folder = URL(fileURLWithPath: try MP4Fixtures.makeScratchFolder("reference-policy"))
        defer { MP4Fixtures.remove(folder.path) }
        let secret = folder.appendingPathComponent("local")
        try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
        let segment = secret.appendingPathComponent("seg0.ts")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Fixtures/hls/ts/content/seg0.ts"), to: segment)
        let served = folder.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\n\(segment.absoluteString)\n#EXT-X-ENDLIST\n"
            .write(to: served.appendingPathComponent("segments.m3u8"), atomically: false, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MAP:URI=\"\(segment.absoluteString)\"\n#EXTINF:2,\ns0.m4s\n#EXT-X-ENDLIST\n"
            .write(to: served.appendingPathComponent("map.m3u8"), atomically: false, encoding: .utf8)
        try await LocalServers.withNginx(root: served) { port in
            for (playlist, line) in [("segments.m3u8", 5), ("map.m3u8", 4)] {
                let schedule = folder.appendingPathComponent("\(playlist).json")
                try #"{"content": [{"id": "c", "url": "http://127.0.0.1:\#(port)/\#(playlist)"}], "breaks": []}"#
                    .write(to: schedule, atomically: false, encoding: .utf8)
                for command in [["render", "--output", "out.mp4"], ["dash", "--output", "dash"], ["hls", "--output", "hls"],
                                ["hls", "--package-every-piece", "--output", "every"]] {
                    let run = try await DemoProcess.run([command[0], schedule.path] + command.dropFirst(), in: folder)
                    #expect(run.status != 0, "\(command): \(run.stdout)")
                    #expect(run.stderr.contains("http://127.0.0.1:\(port)/\(playlist)") && run.stderr.contains("line \(line):")
                            && run.stderr.contains("not followed: a document read over http(s) may reference only http(s) URLs"),
                            "\(command): \(run.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(command.last!).path), "\(command)")
                }
            }
        }
    }
}
