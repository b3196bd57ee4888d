import Testing
import CompositorCore

/// `MediaLocation(parsing:relativeTo:)` is the one place a schedule's `url` becomes a source.
@Suite("Media locations: paths, file: URLs and remote URLs")
struct MediaLocationTests {
    @Test("what each form of text names", arguments: [
        ("ads/a.mp4", "/s", MediaLocation.Kind.file(FilePath("/s/ads/a.mp4"))),
        ("./ads/a.mp4", "/s/", .file(FilePath("/s/ads/a.mp4"))),
        ("../media/a.mp4", "/s", .file(FilePath("/s/../media/a.mp4"))),
        ("/media/a b.mp4", "/s", .file(FilePath("/media/a b.mp4"))),        // a path: not decoded
        ("/media/a%20b.mp4", "/s", .file(FilePath("/media/a%20b.mp4"))),
        ("file:///media/a%20b.mp4", "/s", .file(FilePath("/media/a b.mp4"))), // a URL: decoded
        ("FILE:///m.mp4", "/s", .file(FilePath("/m.mp4"))),
        ("file://localhost/m.mp4", "/s", .file(FilePath("/m.mp4"))),
        ("file:/m.mp4", "/s", .file(FilePath("/m.mp4"))),
        ("file:///caf%C3%A9.mp4", "/s", .file(FilePath("/café.mp4"))),
        ("file:///caf%E9.mp4", "/s", .file(FilePath(bytes: Array("/caf".utf8) + [0xE9, 0x2E, 0x6D, 0x70, 0x34]))),
        ("https://cdn.example/a.m3u8", "/s", .remote(url: "https://cdn.example/a.m3u8")),
        ("c:ad.mp4", "/s", .file(FilePath("/s/c:ad.mp4"))),                 // one letter is no scheme
    ] as [(String, FilePath, MediaLocation.Kind)])
    func parsing(text: String, folder: FilePath, expected: MediaLocation.Kind) throws {
        #expect(try MediaLocation(parsing: text, relativeTo: folder).kind == expected)
    }

    /// Issue 50: a URI inside a playlist, resolved against a local playlist's path, is a URI: its
    /// escapes are decoded and its query and fragment name no part of the file.
    @Test("a URI a playlist wrote, resolved: escapes decoded, query and fragment dropped", arguments: [
        ("/hls/seg%203.ts", MediaLocation.Kind.file(FilePath("/hls/seg 3.ts"))),
        ("/hls/seg.ts?token=abc", .file(FilePath("/hls/seg.ts"))),
        ("/hls/seg.ts#t=1", .file(FilePath("/hls/seg.ts"))),
        ("/hls/caf%C3%A9.ts?x", .file(FilePath("/hls/café.ts"))),
        ("file:///hls/seg%203.ts?token=abc", .file(FilePath("/hls/seg 3.ts"))),
        ("https://cdn.example/seg.ts?token=abc", .remote(url: "https://cdn.example/seg.ts?token=abc")),
    ] as [(String, MediaLocation.Kind)])
    func resolvedURIs(text: String, expected: MediaLocation.Kind) throws {
        #expect(try MediaLocation(resolvedURI: text).kind == expected)
    }

    @Test("a resolved URI that names no file is refused, named", arguments: [
        ("/hls/seg%2.ts", MediaLocationError.invalid("/hls/seg%2.ts", reason: "a '%' that is not followed by two hexadecimal digits")),
        ("/hls/a%00b.ts", .invalid("/hls/a%00b.ts", reason: "it decodes to a NUL byte")),
        ("?only=query", .invalid("?only=query", reason: "it names no file")),
    ] as [(String, MediaLocationError)])
    func resolvedURIRefusals(text: String, expected: MediaLocationError) {
        #expect(throws: expected) { try MediaLocation(resolvedURI: text) }
    }

    @Test("refusals name the text and the reason", arguments: [
        ("", MediaLocationError.empty),
        ("file://nas/m.mp4", .remoteFileHost("file://nas/m.mp4", host: "nas")),
        ("file:///m%2.mp4", .invalid("file:///m%2.mp4", reason: "a '%' that is not followed by two hexadecimal digits")),
        ("file:///m.mp4?x=1", .invalid("file:///m.mp4?x=1", reason: "a file: URL with a query or fragment names no file")),
        ("file:///a%00b.mp4", .invalid("file:///a%00b.mp4", reason: "it decodes to a NUL byte")),
        ("a\u{0}b.mp4", .invalid("a\u{0}b.mp4", reason: "it contains a NUL character")),
    ] as [(String, MediaLocationError)])
    func refusals(text: String, expected: MediaLocationError) {
        #expect(throws: expected) { try MediaLocation(parsing: text) }
    }

    @Test("a file's URL percent-encodes every byte that needs it, and parses back to the same path")
    func urlRoundTrip() throws {
        let path = FilePath(bytes: Array("/media/a b#".utf8) + [0xE9] + Array("%.mp4".utf8))
        let location = MediaLocation(path)
        #expect(location.url == "file:///media/a%20b%23%E9%25.mp4")
        #expect(try MediaLocation(parsing: location.url) == location)
    }

    @Test("descriptions escape what would forge or garble a line of output")
    func descriptions() {
        #expect(FilePath(bytes: Array("caf".utf8) + [0xE9]).description == "caf\\xE9")
        #expect(FilePath("a\nwarning: b\u{1B}[31m").description == "a\\nwarning: b\\u{1B}[31m")
        #expect(MediaLocation(remoteURL: "https://x/\r\n").description == "https://x/\\r\\n")
    }

    @Test("parent, last component and resolution", arguments: [
        ("out/a.mp4", "out", "a.mp4"), ("a.mp4", ".", "a.mp4"), ("/a.mp4", "/", "a.mp4"), ("/x/y/", "/x", "y"),
    ] as [(FilePath, FilePath, FilePath)])
    func components(path: FilePath, parent: FilePath, last: FilePath) {
        #expect(path.parent == parent)
        #expect(path.lastComponent == last)
    }
}
