import Testing
import CompositorHLSTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

@Suite("URI references (RFC 3986)")
struct URIReferenceTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 section 5.4.1.
    static let normal: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ]

    /// RFC 3986 section 5.4.2 (strict parser).
    static let abnormal: [(String, String)] = [
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ]

    /// The playlist parser's resolver gives the same URL, or refuses it where the reference policy
    /// does (`g:h` from an http playlist).
    static func expectResolver(base: String, _ reference: String, resolvesTo expected: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let resolved = Result { () throws(HLSParseError.Problem) in try HLSURIResolver(base: base).resolve(reference) }
        if let reason = ReferencePolicy(document: base).refusal(of: expected) {
            #expect(resolved == .failure(.referenceRefused(uri: reference, reason: reason)), sourceLocation: sourceLocation)
        } else {
            #expect(resolved == .success(expected), sourceLocation: sourceLocation)
        }
    }

    @Test("resolves the normal examples of section 5.4.1", arguments: normal)
    func normalExamples(reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
        Self.expectResolver(base: Self.base, reference, resolvesTo: expected)
    }

    @Test("resolves the abnormal examples of section 5.4.2", arguments: abnormal)
    func abnormalExamples(reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
        Self.expectResolver(base: Self.base, reference, resolvesTo: expected)
    }

    @Test("resolves against file URLs and plain paths", arguments: [
        ("file:///srv/media/main.m3u8", "seg/1.ts", "file:///srv/media/seg/1.ts"),
        ("file:///srv/media/main.m3u8", "../ads/a.ts", "file:///srv/ads/a.ts"),
        ("/srv/media/main.m3u8", "1.ts", "/srv/media/1.ts"),
        ("/srv/media/main.m3u8", "/other/1.ts", "/other/1.ts"),
        ("https://h.example", "a.ts", "https://h.example/a.ts"),
    ])
    func fileBases(base: String, reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: base) == expected)
    }

    /// RFC 3986 resolves against absolute bases only. A playlist read by a relative path (a schedule's
    /// `../media/master.m3u8`) is a relative base: the `..` that cannot cancel must stay, or the
    /// variants are looked for in another folder.
    @Test("resolves against relative bases, keeping the leading '..' that cannot cancel", arguments: [
        ("../splice/master.m3u8", "a.m3u8", "../splice/a.m3u8"),
        ("../splice/master.m3u8", "../ads/b.ts", "../ads/b.ts"),
        ("../splice/master.m3u8", "../../../x.ts", "../../../x.ts"),
        ("./../media/master.m3u8", "index_0_av.m3u8", "../media/index_0_av.m3u8"),
        ("sched/../media/master.m3u8", "index_0_av.m3u8", "media/index_0_av.m3u8"),
        ("media/master.m3u8", "../../up.ts", "../up.ts"),
        ("media/v/master.m3u8", "./x/../y/./z.ts", "media/v/y/z.ts"),
        ("media/master.m3u8", ".", "media/"),
        ("media/master.m3u8", "..", "./"),
        ("media/master.m3u8", "../..", "../"),
        ("../master.m3u8", "?y", "../master.m3u8?y"),
        ("../master.m3u8", "g#s", "../g#s"),
        ("master.m3u8", "a.ts", "a.ts"),
        ("master.m3u8", "./c:d.ts", "./c:d.ts"),
        ("master.m3u8", "/abs/a.ts", "/abs/a.ts"),
        ("master.m3u8", "https://127.0.0.1/a.ts", "https://127.0.0.1/a.ts"),
    ])
    func relativeBases(base: String, reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: base) == expected)
        Self.expectResolver(base: base, reference, resolvesTo: expected)
    }

    @Test("a schedule's relative multivariant playlist finds its variants beside it")
    func relativeMultivariant() throws {
        // The schedule is read from its own folder (`.`) and names `../media/master.m3u8`.
        let location = try MediaLocation(parsing: "../media/master.m3u8", relativeTo: ".")
        let url = hlsURL(location)
        let files = [
            url: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nindex_0_av.m3u8\n",
            "../media/index_0_av.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns0.ts\n#EXT-X-ENDLIST\n",
        ]
        let result = try HLSProbe.probe(url: url, loader: .inMemory(files))
        #expect(result.variants.map(\.url) == ["../media/index_0_av.m3u8"])
        #expect(result.duration == MediaTime(seconds: 4))
    }

    @Test("splits into the five components")
    func components() {
        let uri = URIReference(parsing: "https://user@h.example:8443/p/a.m3u8?x=1#t=3")
        #expect(uri.scheme == "https")
        #expect(uri.authority == "user@h.example:8443")
        #expect(uri.path == "/p/a.m3u8")
        #expect(uri.query == "x=1")
        #expect(uri.fragment == "t=3")
        #expect(uri.description == "https://user@h.example:8443/p/a.m3u8?x=1#t=3")
    }

    @Test("writes a target relative to a base when they share scheme and host", arguments: [
        ("https://127.0.0.1/v/out/stitched.m3u8", "https://127.0.0.1/v/out/seg1.ts", "seg1.ts"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "https://127.0.0.1/v/out/hi/seg1.ts?t=1", "hi/seg1.ts?t=1"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "https://127.0.0.1/v/ads/a.ts", "../ads/a.ts"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "https://127.0.0.1/x.ts", "../../x.ts"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "https://127.0.0.1/v/out/a:b.ts", "./a:b.ts"),
        ("file:///tmp/o/s.m3u8", "file:///tmp/src/a.ts", "../src/a.ts"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "https://other/v/a.ts", "https://other/v/a.ts"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "http://127.0.0.2/v/out/a.ts", "http://127.0.0.2/v/out/a.ts"),
        ("https://127.0.0.1/v/out/stitched.m3u8", "skd://key", "skd://key"),
    ])
    func relative(base: String, target: String, expected: String) {
        let relative = URIReference.relativize(target, from: base)
        #expect(relative == expected)
        #expect(URIReference.resolve(relative, against: base) == target)
    }
}
