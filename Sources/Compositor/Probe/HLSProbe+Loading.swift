import CompositorCore
import CompositorHLS
import CompositorIO

/// Reads playlist bytes for a URL. The built-in loader reads local files (paths and `file:` URLs);
/// an app that fetches over HTTP supplies its own `load`.
///
/// ```swift
/// let loader = HLSPlaylistLoader { url in try myHTTPClient.bytes(url) }
/// ```
public struct HLSPlaylistLoader: Sendable {
    /// The limits applied to what is loaded and parsed.
    package let limits: HLSParseLimits
    public let load: @Sendable (String) throws -> [UInt8]
    /// The bytes of the playlist at a URL and the URL they came from in the end (after redirects):
    /// what its relative URIs resolve against.
    package let fetch: @Sendable (String) throws -> (bytes: [UInt8], url: String)

    /// A loader that reads playlists by `load`.
    ///
    /// - Parameter load: Returns the bytes of the playlist at a URL, or throws.
    public init(load: @escaping @Sendable (String) throws -> [UInt8]) {
        self.init(limits: .default, load: load)
    }

    package init(limits: HLSParseLimits, load: @escaping @Sendable (String) throws -> [UInt8]) {
        self.limits = limits
        self.load = load
        self.fetch = { url in (try load(url), url) }
    }

    /// A loader whose reads may end at another URL than asked for (a redirect).
    package init(limits: HLSParseLimits, fetch: @escaping @Sendable (String) throws -> (bytes: [UInt8], url: String)) {
        self.limits = limits
        self.load = { url in try fetch(url).bytes }
        self.fetch = fetch
    }

    /// Reads `http:` and `https:` URLs through `transport`, following redirects under `limits`
    /// (the body limit is the smaller of `limits.maximumBodyBytes` and the playlist limit); any
    /// other URL (`file:`, a path) is refused, so a remote document never reaches a local file.
    package static func remote(transport: any HTTPTransport, limits: HTTPTransportLimits) -> HLSPlaylistLoader {
        let parseLimits = HLSParseLimits.default
        var transportLimits = limits
        transportLimits.maximumBodyBytes = min(limits.maximumBodyBytes, parseLimits.maximumPlaylistBytes)
        return HLSPlaylistLoader(limits: parseLimits) { [transportLimits] url in
            // Playlist loading is synchronous (the parser asks for the next playlist as it reads);
            // it runs on the library's blocking threads, so it may wait for the fetch.
            let fetched = waitForTask { () -> Result<(url: String, response: HTTPTransportResponse), HTTPTransportError> in
                do throws(HTTPTransportError) {
                    return .success(try await HTTPFetch.get(url, transport: transport, limits: transportLimits))
                } catch { return .failure(error) }
            }
            let got = try fetched.get()
            return (got.response.body, got.url)
        }
    }

    /// Reads local files: URI references without a scheme and `file:` URLs, through
    /// `MediaLocation(resolvedURI:)` (so escapes are decoded there and only there). A file larger than the playlist limit is refused before it is read.
    public static let fileSystem = fileSystem(limits: .default)

    package static func fileSystem(limits: HLSParseLimits) -> HLSPlaylistLoader {
        HLSPlaylistLoader(limits: limits) { url in try readPlaylistFile(url, limit: limits.maximumPlaylistBytes) }
    }

    /// Bytes for fixed URLs, for tests and in-memory sources.
    package static func inMemory(_ files: [String: String], limits: HLSParseLimits = .default) -> HLSPlaylistLoader {
        HLSPlaylistLoader(limits: limits) { url in
            guard let text = files[url] else { throw HLSLoadError(path: url, reason: "no such playlist") }
            return Array(text.utf8)
        }
    }

    static func readPlaylistFile(_ url: String, limit: Int) throws -> [UInt8] {
        let location: MediaLocation
        do { location = try MediaLocation(resolvedURI: url) } catch { throw HLSLoadError(path: url, reason: error.description) }
        guard let path = location.filePath else {
            throw HLSLoadError(path: url, reason: "only local files can be read without a custom loader")
        }
        do { return try ReadableFile.contents(of: path, limit: limit) } catch {
            throw HLSLoadError(path: path.description, reason: error.reasonText)
        }
    }
}

/// Why a playlist file could not be read.
package struct HLSLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    package let path: String
    package let reason: String
    package var description: String { "\(path): \(reason)" }
}
