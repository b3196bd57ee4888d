/// Where a clip's media lives: a URL or file path, as the schedule gave it (relative paths are
/// resolved by whoever reads the schedule file, see `ScheduleDocument`).
public struct MediaSource: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let url: String

    public init(url: String) { self.url = url }
    public init(stringLiteral url: String) { self.url = url }

    public var description: String { url }
}
