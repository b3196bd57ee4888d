import Foundation
import Testing
import CompositorHLSTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("HLS probing")
struct HLSProbeTests {
    static func mediaText(_ durations: [String], endList: Bool = true, type: String? = nil) -> String {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n"
        if let type { text += "#EXT-X-PLAYLIST-TYPE:\(type)\n" }
        for (i, d) in durations.enumerated() { text += "#EXTINF:\(d),\ns\(i).ts\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    @Test("a VOD playlist's natural duration is the exact sum of EXTINF")
    func vodDuration() throws {
        let loader = HLSPlaylistLoader.inMemory(["mem://ad.m3u8": Self.mediaText(["4.004", "4.004", "2.002"])])
        let result = try HLSProbe.probe(url: "mem://ad.m3u8", loader: loader)
        #expect(result.kind == .media)
        #expect(result.duration == MediaTime(value: 10010, timescale: 1000))
        #expect(result.variants.isEmpty)
    }

    @Test("PLAYLIST-TYPE:VOD without EXT-X-ENDLIST is finite too")
    func vodWithoutEndList() throws {
        let playlist = try HLSTest.media(Self.mediaText(["3", "3"], endList: false, type: "VOD"))
        #expect(try HLSProbe.naturalDuration(of: playlist) == MediaTime(seconds: 6))
    }

    @Test("a live or unfinished event playlist has no natural duration", arguments: [nil, "EVENT"] as [String?])
    func liveIsAnError(type: String?) throws {
        let playlist = try HLSTest.media(Self.mediaText(["3", "3"], endList: false, type: type))
        let error = #expect(throws: HLSProbeError.self) { try HLSProbe.naturalDuration(of: playlist) }
        #expect(error == .notFinite(url: HLSTest.url, playlistType: type.flatMap(HLSPlaylistType.init(rawValue:))))
        #expect(error?.description.contains("no finite duration") == true)
    }

    @Test("a multivariant playlist is probed variant by variant and reports whether they agree")
    func multivariant() throws {
        let files = [
            "mem://v/master.m3u8": """
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=800000
                low.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=2000000
                high.m3u8
                """,
            "mem://v/low.m3u8": Self.mediaText(["6", "6", "3.5"]),
            "mem://v/high.m3u8": Self.mediaText(["6", "6", "3.52"]),
        ]
        let result = try HLSProbe.probe(url: "mem://v/master.m3u8", loader: .inMemory(files))
        #expect(result.kind == .multivariant)
        #expect(result.variants.map(\.url) == ["mem://v/low.m3u8", "mem://v/high.m3u8"])
        #expect(result.variants.map(\.bandwidth) == [800_000, 2_000_000])
        #expect(result.duration == HLSTest.time("15.52"))
        #expect(result.variantDurationSpread == HLSTest.time("0.02"))
        #expect(!result.variantsAgree)
    }

    @Test("a live variant makes the multivariant playlist unusable where a duration is needed")
    func liveVariant() {
        let files = [
            "mem://x/m.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlive.m3u8\n",
            "mem://x/live.m3u8": Self.mediaText(["2"], endList: false),
        ]
        #expect(throws: HLSProbeError.notFinite(url: "mem://x/live.m3u8", playlistType: nil)) {
            try HLSProbe.probe(url: "mem://x/m.m3u8", loader: .inMemory(files))
        }
    }

    @Test("invalid and missing playlists are typed errors naming the URL")
    func errors() {
        let loader = HLSPlaylistLoader.inMemory(["mem://bad.m3u8": "#EXTM3U\n#EXTINF:4,\n"])
        let error = #expect(throws: HLSProbeError.self) { try HLSProbe.probe(url: "mem://bad.m3u8", loader: loader) }
        guard case .invalidPlaylist(let url, let parseError)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(url == "mem://bad.m3u8")
        #expect(parseError.line == 2)
        #expect(throws: HLSProbeError.self) { try HLSProbe.probe(url: "mem://missing.m3u8", loader: loader) }
    }

    @Test("the file loader reads file URLs and paths, and refuses files over the limit before reading")
    func fileLoader() throws {
        let directory = try HLSTemporaryDirectory()
        let path = directory.path + "/my ad.m3u8"
        try hlsWriteFile(path, Self.mediaText(["5", "5"]))
        let byPath = try HLSProbe.probe(url: path)
        #expect(byPath.duration == MediaTime(seconds: 10))
        let byURL = try HLSProbe.probe(url: "file://" + directory.path + "/my%20ad.m3u8")
        #expect(byURL.duration == MediaTime(seconds: 10))
        let small = HLSPlaylistLoader.fileSystem(limits: HLSParseLimits(maximumPlaylistBytes: 20))
        let error = #expect(throws: HLSProbeError.self) { try HLSProbe.probe(url: path, loader: small) }
        guard case .unreadable(_, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("limit of 20"))
    }
}

/// A fresh directory under the system temporary directory, removed when the value is released.
final class HLSTemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/compositor-hls-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw HLSLoadError(path: "/tmp", reason: "mkdtemp failed")
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func hlsWriteFile(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "wb") else { throw HLSLoadError(path: path, reason: "cannot create") }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw HLSLoadError(path: path, reason: "short write") }
}
