import CompositorCore

/// The values of VAST's macros for one beacon, and how a URL gets them (VAST 4.3, 6.1): each
/// `[MACRO]` this library knows is replaced by its value percent-encoded (RFC 3986: everything but
/// `A-Z a-z 0-9 - . _ ~`), or by `-1` when the value is unknown here; any other bracketed text is
/// left as it is.
public struct BeaconMacros: Hashable, Sendable {
    /// `[CACHEBUSTING]`: a random 8-digit number, new for each batch of beacons.
    public var cacheBusting: String
    /// `[TIMESTAMP]`: the time of the request, ISO 8601 with milliseconds and offset.
    public var timestamp: String
    /// `[CONTENTPLAYHEAD]` and `[MEDIAPLAYHEAD]`: the content time.
    public var contentPlayhead: MediaTime?
    /// `[ADPLAYHEAD]`: the time into the ad.
    public var adPlayhead: MediaTime?
    /// `[ASSETURI]`: the ad's media file.
    public var assetURI: String?
    /// `[BREAKPOSITION]`: 1 pre-roll, 2 mid-roll, 3 post-roll, 4 stand-alone.
    public var breakPosition: Int?
    /// `[ERRORCODE]`.
    public var errorCode: VASTErrorCode?

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - cacheBusting: `[CACHEBUSTING]`: a random 8-digit number, new for each batch of beacons.
    ///   - timestamp: `[TIMESTAMP]`: the time of the request, ISO 8601 with milliseconds and offset.
    ///   - contentPlayhead: `[CONTENTPLAYHEAD]` and `[MEDIAPLAYHEAD]`: the content time.
    ///   - adPlayhead: `[ADPLAYHEAD]`: the time into the ad.
    ///   - assetURI: `[ASSETURI]`: the ad's media file.
    ///   - breakPosition: `[BREAKPOSITION]`: 1 pre-roll, 2 mid-roll, 3 post-roll, 4 stand-alone.
    ///   - errorCode: `[ERRORCODE]`.
    public init(cacheBusting: String, timestamp: String, contentPlayhead: MediaTime? = nil, adPlayhead: MediaTime? = nil,
                assetURI: String? = nil, breakPosition: Int? = nil, errorCode: VASTErrorCode? = nil) {
        self.cacheBusting = cacheBusting
        self.timestamp = timestamp
        self.contentPlayhead = contentPlayhead
        self.adPlayhead = adPlayhead
        self.assetURI = assetURI
        self.breakPosition = breakPosition
        self.errorCode = errorCode
    }

    /// `template` with its macros filled.
    ///
    /// ```swift
    /// macros.expand("http://127.0.0.1/e?code=[ERRORCODE]&t=[ADPLAYHEAD]")  // ".../e?code=303&t=00%3A00%3A05.000"
    /// ```
    ///
    /// - Parameter template: A URL as the VAST or VMAP writes it.
    /// - Returns: The URL to request.
    public func expand(_ template: String) -> String {
        guard template.contains("[") else { return template }
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "["), let close = rest[open...].firstIndex(of: "]") {
            result += rest[..<open]
            let name = rest[rest.index(after: open)..<close]
            if let value = value(of: name) {
                result += BeaconMacros.percentEncoded(value)
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The value of macro `name`: nil for one this library does not know (left as written), `-1`
    /// for one it knows but has no value for here.
    private func value(of name: Substring) -> String? {
        let unknown = "-1"
        switch name {
        case "CACHEBUSTING": return cacheBusting
        case "TIMESTAMP": return timestamp
        case "CONTENTPLAYHEAD", "MEDIAPLAYHEAD": return contentPlayhead.map(VASTTime.format) ?? unknown
        case "ADPLAYHEAD": return adPlayhead.map(VASTTime.format) ?? unknown
        case "ASSETURI": return assetURI ?? unknown
        case "BREAKPOSITION": return breakPosition.map(String.init) ?? unknown
        case "ERRORCODE": return errorCode.map(\.description) ?? unknown
        default: return nil
        }
    }

    /// RFC 3986 percent-encoding: every byte but the unreserved characters as `%XX`.
    ///
    /// - Parameter text: A macro's value.
    /// - Returns: It, encoded.
    public static func percentEncoded(_ text: String) -> String { percentEncodedUnreserved(text) }
}
