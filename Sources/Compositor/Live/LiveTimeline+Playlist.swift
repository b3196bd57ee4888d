import CompositorCore
import CompositorHLS

extension LiveTimeline {
    /// The stream a load of a stitched live playlist (`CompositorDemo live`'s `stitched.m3u8`, or
    /// one variant of it) holds: its window, its live edge and its breaks with their ads, on its
    /// program date-time clock. Feed each reload to `LivePlaybackSession.update(timeline:)`.
    ///
    /// ```swift
    /// let timeline = try LiveTimeline(stitchedPlaylist: Array(data), url: playlistURL)
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The playlist as loaded.
    ///   - url: Where it was loaded from (for messages, and relative URIs).
    /// - Throws: `LiveTimelineError` for a playlist that is malformed (with its line), that is a
    ///   multivariant playlist, or that has no segment with a program date-time.
    public init(stitchedPlaylist bytes: [UInt8], url: String) throws(LiveTimelineError) {
        let playlist: HLSMediaPlaylist
        do { playlist = try HLSMediaPlaylist(parsing: bytes, url: url) } catch {
            throw LiveTimelineError(url: url, reason: error.description)
        }
        self = try LiveTimeline(stitchedPlaylist: playlist, url: url)
    }

    /// `init(stitchedPlaylist:url:)` of a playlist already parsed.
    package init(stitchedPlaylist playlist: HLSMediaPlaylist, url: String) throws(LiveTimelineError) {
        guard let timeline = LiveTimeline(stitched: playlist) else {
            throw LiveTimelineError(url: url, reason: "no segment with EXT-X-PROGRAM-DATE-TIME: a live stream's clock is its dates")
        }
        self = timeline
    }
}

/// Why a playlist gives no `LiveTimeline`.
public struct LiveTimelineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The playlist's URL.
    public let url: String
    /// What is wrong with it.
    public let reason: String

    public var description: String { "\(url): \(reason)" }
}
