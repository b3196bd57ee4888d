import CompositorCore
import CompositorHLS

/// Follows a stitched live stream for a player's session: loads its playlist (a multivariant
/// playlist's first variant of the highest `BANDWIDTH`, as the export and the stitcher choose) and
/// reloads it as RFC 8216bis 6.3.4 has a client reload, handing each changed load over as a
/// `LiveTimeline` until the stream ends (`EXT-X-ENDLIST`) or the task is cancelled.
///
/// ```swift
/// let follower = LiveStreamFollower(url: "https://example.com/live/stitched.m3u8", transport: transport)
/// let first = try await follower.load()
/// try await follower.follow(after: first, clock: ContinuousClock()) { load in session.update(timeline: load.timeline) }
/// ```
package struct LiveStreamFollower: Sendable {
    /// One load of the stream.
    package struct Load: Sendable {
        package let timeline: LiveTimeline
        /// The media playlist as loaded.
        package let playlist: HLSMediaPlaylist
        /// The playlist's bytes: a reload with the same bytes found no change.
        package let bytes: [UInt8]
        package let targetDuration: Int64
        /// The media playlist's URL (the variant's, when `url` is multivariant).
        package let mediaURL: String
    }

    /// The stitched playlist, as the player loads it.
    package let url: String
    let transport: any HTTPTransport
    let limits: HTTPTransportLimits

    package init(url: String, transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default) {
        self.url = url
        self.transport = transport
        self.limits = limits
    }

    /// Loads the stream now.
    ///
    /// - Parameter mediaURL: The media playlist to load (a variant found before), or `nil` to
    ///   start from `url`.
    /// - Returns: The stream at this load.
    /// - Throws: `LiveTimelineError` naming the URL: not loaded, malformed (with its line), a
    ///   multivariant playlist without variants, or without program date-times.
    package func load(mediaURL: String? = nil) async throws(LiveTimelineError) -> Load {
        var (bytes, final) = try await fetch(mediaURL ?? url)
        let parsed: HLSPlaylist
        do { parsed = try HLSPlaylistParser().parse(bytes, url: final) } catch {
            throw LiveTimelineError(url: final, reason: error.description)
        }
        var playlist: HLSMediaPlaylist
        switch parsed {
        case .media(let media):
            playlist = media
        case .multivariant(let multivariant):
            guard mediaURL == nil, let variant = multivariant.variant(playing: nil) else {
                throw LiveTimelineError(url: final, reason: mediaURL == nil ? "a multivariant playlist without variants" : "a multivariant playlist where a variant's media playlist was")
            }
            (bytes, final) = try await fetch(variant.resolvedURI)
            do { playlist = try HLSMediaPlaylist(parsing: bytes, url: final) } catch {
                throw LiveTimelineError(url: final, reason: error.description)
            }
        }
        return Load(timeline: try LiveTimeline(stitchedPlaylist: playlist, url: final), playlist: playlist, bytes: bytes, targetDuration: playlist.targetDuration, mediaURL: final)
    }

    /// Reloads the stream after `first` until it ends or the task is cancelled, calling `reloaded`
    /// with every load that changed it. A failed load is tried again half a target duration later;
    /// `LivePlaylistLoad.tolerableFailures` in a row are outlasted.
    ///
    /// - Parameters:
    ///   - first: The load the player started from.
    ///   - clock: What the reloads wait on (a test's clock need not wait).
    ///   - reloaded: Gets each changed stream, in order.
    /// - Throws: The last `LiveTimelineError` when one failure too many came in a row.
    package func follow<C: Clock>(
        after first: Load, clock: C, reloaded: (Load) async -> Void
    ) async throws(LiveTimelineError) where C.Duration == Duration {
        var last = first
        var began = clock.now
        var changed = true
        var failures = 0
        while !last.timeline.hasEnded {
            let next = began.advanced(by: LivePlaylistLoad.reloadDelay(targetDuration: last.targetDuration, changed: changed))
            do { try await clock.sleep(until: next, tolerance: nil) } catch { return }
            began = clock.now
            do throws(LiveTimelineError) {
                let load = try await self.load(mediaURL: last.mediaURL)
                failures = 0
                changed = load.bytes != last.bytes
                last = load
                if changed { await reloaded(load) }
            } catch {
                failures += 1
                guard failures <= LivePlaylistLoad.tolerableFailures else { throw error }
                changed = false
            }
        }
    }

    private func fetch(_ url: String) async throws(LiveTimelineError) -> (bytes: [UInt8], url: String) {
        do { return try await LivePlaylistLoad.bytes(url, transport: transport, limits: limits) } catch {
            throw LiveTimelineError(url: error.url, reason: error.reason)
        }
    }
}
