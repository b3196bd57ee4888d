import CompositorCore
import CompositorHLS

/// Helpers shared by the HLS tests.
package enum HLSTest {
    package static let url = "https://127.0.0.1/vod/movie/index.m3u8"

    package static func parse(_ text: String, url: String = url) throws -> HLSPlaylist {
        try HLSPlaylistParser().parse(Array(text.utf8), url: url)
    }

    package static func media(_ text: String, url: String = url) throws -> HLSMediaPlaylist {
        try HLSPlaylistParser().parseMediaPlaylist(Array(text.utf8), url: url)
    }

    package static func multivariant(_ text: String, url: String = url) throws -> HLSMultivariantPlaylist {
        try HLSPlaylistParser().parseMultivariantPlaylist(Array(text.utf8), url: url)
    }

    /// A media playlist around `body`, with a target duration of 10.
    package static func mediaText(_ body: String, target: Int = 10) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:\(target)\n" + body
    }

    /// The error parsing `text` throws, or `nil` when it parses.
    package static func error(_ text: String, url: String = url) -> HLSParseError? {
        do {
            _ = try HLSPlaylistParser().parse(Array(text.utf8), url: url)
            return nil
        } catch {
            return error
        }
    }

    package static func time(_ text: String) -> MediaTime {
        do { return try MediaTime(parsing: text) } catch { fatalError("bad test time \(text)") }
    }
}
