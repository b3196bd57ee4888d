import CompositorCore
import CompositorHLS
import CompositorIO

/// Loading a live playlist, as both the stitcher (the content) and the player's follower (the
/// stitched stream) do: its bytes over http(s) through the transport or from a local file, and
/// when to load it again.
package enum LivePlaylistLoad {
    /// A load that failed: the URL and why, in the words of the transport or the file system.
    package struct Failure: Error, Sendable {
        package let url: String
        package let reason: String
    }

    /// The playlist's bytes and the URL they came from (after redirects).
    ///
    /// - Parameters:
    ///   - url: An http(s) URL, or a `file:` URL or absolute path.
    ///   - transport: What loads http(s) URLs.
    ///   - limits: Timeouts and retries of the load.
    /// - Throws: `Failure` naming the URL.
    package static func bytes(_ url: String, transport: any HTTPTransport, limits: HTTPTransportLimits) async throws(Failure) -> (bytes: [UInt8], url: String) {
        if HTTPFetch.isHTTP(url) {
            do {
                let (final, response) = try await HTTPFetch.get(url, transport: transport, limits: limits)
                return (response.body, final)
            } catch {
                throw Failure(url: url, reason: error.description)
            }
        }
        guard let path = (try? MediaLocation(resolvedURI: url))?.filePath else { throw Failure(url: url, reason: "neither a file nor an http(s) URL") }
        do { return (try ReadableFile.contents(of: path, limit: HLSParseLimits.default.maximumPlaylistBytes), url) } catch {
            throw Failure(url: url, reason: error.reasonText)
        }
    }

    /// How many failed loads in a row a follower outlasts (the last playlist stays meanwhile).
    package static let tolerableFailures = 4

    /// How long after a load began the next one is due (RFC 8216bis 6.3.4): the target duration
    /// after a load that found a change, half of it after one that did not or that failed.
    ///
    /// - Parameters:
    ///   - targetDuration: The playlist's `EXT-X-TARGETDURATION`, in seconds (`nil`: none loaded yet).
    ///   - changed: Whether the load found the playlist changed.
    /// - Returns: The wait, from when the load began: 1 s before any playlist was loaded.
    package static func reloadDelay(targetDuration: Int64?, changed: Bool) -> Duration {
        // Bounded, so a hostile target duration cannot overflow the arithmetic: a day at most.
        guard let targetDuration = targetDuration.map({ min(max($0, 1), 86_400) }) else { return .seconds(1) }
        return changed ? .seconds(targetDuration) : .milliseconds(targetDuration * 500)
    }
}
