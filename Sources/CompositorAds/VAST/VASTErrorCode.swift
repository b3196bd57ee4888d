/// A VAST error code, as the `[ERRORCODE]` macro reports it to the ad server (VAST 4.3, 2.3.6.3).
///
/// A struct with static members rather than an enum: ad servers send and expect codes this library
/// does not name, and a new one is not a breaking change.
public struct VASTErrorCode: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    /// Makes a value from its parts.
    ///
    /// - Parameter rawValue: The code (100, 303, ...).
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// 100: the XML is not well-formed (or is refused: too large, an entity declaration).
    public static let xmlParsing = VASTErrorCode(100)
    /// 101: well-formed, but not VAST as the schema says (a required element missing, a bad value).
    public static let schemaValidation = VASTErrorCode(101)
    /// 102: a VAST version this library does not read (VAST 1).
    public static let versionNotSupported = VASTErrorCode(102)
    /// 200: the ad is not what the player expected (not linear).
    public static let unexpectedAdType = VASTErrorCode(200)
    /// 202: the ad's duration is not what the break allows.
    public static let unexpectedDuration = VASTErrorCode(202)
    /// 300: a wrapper error of another kind (an `AdTagURI` that cannot be fetched).
    public static let wrapperGeneral = VASTErrorCode(300)
    /// 301: a wrapper's `VASTAdTagURI` timed out.
    public static let wrapperTimeout = VASTErrorCode(301)
    /// 302: the wrapper limit was reached, or a wrapper followed one that forbade it.
    public static let wrapperLimit = VASTErrorCode(302)
    /// 303: no ad after the wrappers (an empty response).
    public static let noAdsAfterWrapper = VASTErrorCode(303)
    /// 400: no linear ad could play (general).
    public static let linearGeneral = VASTErrorCode(400)
    /// 401: the chosen media file could not be fetched.
    public static let fileNotFound = VASTErrorCode(401)
    /// 402: fetching the media file timed out.
    public static let mediaTimeout = VASTErrorCode(402)
    /// 403: no media file of a type this output plays.
    public static let noSupportedMediaFile = VASTErrorCode(403)
    /// 405: the media file was fetched but cannot be played (not a movie, not joinable).
    public static let mediaNotDisplayable = VASTErrorCode(405)
    /// 900: an error not covered by another code.
    public static let undefined = VASTErrorCode(900)

    public var description: String { String(rawValue) }
}
