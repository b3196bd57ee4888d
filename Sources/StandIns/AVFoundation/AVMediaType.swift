// Stand-in for AVMediaType (AVFoundation/AVMediaFormat.h).
#if !canImport(AVFoundation)

/// `AVMediaType`: a four-character media type string.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let video = AVMediaType("vide")
    public static let audio = AVMediaType("soun")
    public static let text = AVMediaType("text")
}
#endif
