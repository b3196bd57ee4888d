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

    /// The playlist's bytes (or the part of a segment `range` names) and the URL they came from
    /// (after redirects).
    ///
    /// - Parameters:
    ///   - url: An http(s) URL, or a `file:` URL or absolute path.
    ///   - range: The bytes to load (`EXT-X-BYTERANGE`), or `nil` for all of them.
    ///   - transport: What loads http(s) URLs.
    ///   - limits: Timeouts and retries of the load.
    /// - Throws: `Failure` naming the URL.
    package static func bytes(
        _ url: String, range: ClosedRange<UInt64>? = nil, transport: any HTTPTransport, limits: HTTPTransportLimits
    ) async throws(Failure) -> (bytes: [UInt8], url: String) {
        if HTTPFetch.isHTTP(url) {
            do throws(HTTPTransportError) {
                let (final, response) = try await HTTPFetch.get(url, byteRange: range, transport: transport, limits: limits)
                // A server that ignores the range answers 200 with the whole body.
                if let range, response.status == 200 {
                    guard range.upperBound < UInt64(response.body.count) else {
                        throw HTTPTransportError(url: final, problem: .badResponse("\(response.body.count) bytes, where bytes \(range.lowerBound)-\(range.upperBound) were asked for"))
                    }
                    return (Array(response.body[Int(range.lowerBound)...Int(range.upperBound)]), final)
                }
                return (response.body, final)
            } catch {
                throw Failure(url: error.url, reason: error.reason)
            }
        }
        guard let path = (try? MediaLocation(resolvedURI: url))?.filePath else { throw Failure(url: url, reason: "neither a file nor an http(s) URL") }
        do throws(FileError) {
            guard let range else { return (try ReadableFile.contents(of: path, limit: HLSParseLimits.default.maximumPlaylistBytes), url) }
            let last = range.upperBound - range.lowerBound
            guard last < UInt64(limits.maximumBodyBytes) else {
                throw FileError(path, .tooLarge(bytes: last &+ 1, limit: UInt64(limits.maximumBodyBytes)))
            }
            return (try ReadableFile(path: path).read(at: range.lowerBound, count: Int(last) + 1), url)
        } catch {
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
