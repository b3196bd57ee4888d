import CompositorAds
import CompositorCore
import CompositorIO

extension VASTResolver {
    /// A resolver that fetches ad documents through `transport` (http and https). A local file (a
    /// path or `file:` URL) is read when the app names it or a local document does; a document from
    /// an ad server never makes it read one.
    ///
    /// - Parameters:
    ///   - options: Depth, timeouts, media file selection.
    ///   - transport: The HTTP client (`DefaultHTTPTransport` by default).
    ///   - limits: Redirects and body size; the time allowed is `options`' per hop.
    public init(options: Options = Options(), transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default) {
        self.init(options: options, fetch: AdServerFetch.fetch(transport: transport, limits: limits, maximumBytes: options.documentLimits.maximumBytes))
    }
}

/// Ad documents fetched through the transport, or read from local files where allowed.
enum AdServerFetch {
    static func fetch(transport: any HTTPTransport, limits: HTTPTransportLimits, maximumBytes: Int) -> AdDocumentFetch {
        { url, referrer, timeout throws(AdDocumentFetchError) in
            let location: MediaLocation
            do { location = try MediaLocation(parsing: url) } catch {
                throw AdDocumentFetchError(url: URIReference.redactedForDisplay(url), timedOut: false, reason: "\(error)")
            }
            if let path = location.filePath {
                guard referrer.map(isLocal) ?? true else {
                    throw AdDocumentFetchError(url: url, timedOut: false, reason: "a local file, named by a document from an ad server: never read")
                }
                do throws(FileError) { return try ReadableFile.contents(of: path, limit: maximumBytes) } catch {
                    throw AdDocumentFetchError(url: url, timedOut: false, reason: error.reasonText)
                }
            }
            var hop = limits
            hop.requestTimeout = timeout
            hop.maximumBodyBytes = min(limits.maximumBodyBytes, maximumBytes)
            hop.maximumRetries = 0  // the chain's time is short and shared: a failed hop is reported, not retried
            do throws(HTTPTransportError) { return try await HTTPFetch.get(url, transport: transport, limits: hop).response.body } catch {
                switch error.problem {
                case .timedOut, .loadTimedOut:
                    throw AdDocumentFetchError(url: error.url, timedOut: true, reason: error.reason)
                default:
                    throw AdDocumentFetchError(url: error.url, timedOut: false, reason: error.reason)
                }
            }
        }
    }

    /// Whether `url` names a local file.
    private static func isLocal(_ url: String) -> Bool {
        (try? MediaLocation(parsing: url))?.filePath != nil
    }
}
