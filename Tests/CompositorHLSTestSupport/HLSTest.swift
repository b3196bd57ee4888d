import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Helpers shared by the HLS tests.
enum HLSTest {
    static let url = "https://cdn.example.com/vod/movie/index.m3u8"

    static func parse(_ text: String, url: String = url) throws -> HLSPlaylist {
        try HLSPlaylistParser().parse(Array(text.utf8), url: url)
    }

    static func media(_ text: String, url: String = url) throws -> HLSMediaPlaylist {
        try HLSPlaylistParser().parseMediaPlaylist(Array(text.utf8), url: url)
    }

    static func multivariant(_ text: String, url: String = url) throws -> HLSMultivariantPlaylist {
        try HLSPlaylistParser().parseMultivariantPlaylist(Array(text.utf8), url: url)
    }

    /// A media playlist around `body`, with a target duration of 10.
    static func mediaText(_ body: String, target: Int = 10) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:\(target)\n" + body
    }

    /// The error parsing `text` throws, or `nil` when it parses.
    static func error(_ text: String, url: String = url) -> HLSParseError? {
        do {
            _ = try HLSPlaylistParser().parse(Array(text.utf8), url: url)
            return nil
        } catch {
            return error
        }
    }

    static func time(_ text: String) -> MediaTime {
        do { return try MediaTime(parsing: text) } catch { fatalError("bad test time \(text)") }
    }
}
