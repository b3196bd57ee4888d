/// A half-open span of media time, `[start, end)`.
///
/// `MediaTimeRange(start: .init(seconds: 23), duration: .init(seconds: 17))` covers 23 s up to,
/// not including, 40 s. An empty range (`start == end`) contains nothing.
public struct MediaTimeRange: Hashable, Sendable {
    public let start: MediaTime
    public let end: MediaTime

    /// `end` must not be before `start`.
    ///
    /// - Parameters:
    ///   - start: The first instant in the range.
    ///   - end: The first instant after it.
    public init(start: MediaTime, end: MediaTime) {
        precondition(start <= end, "MediaTimeRange end \(end) is before its start \(start)")
        self.start = start
        self.end = end
    }

    /// `[start, start + duration)`; `duration` must not be negative. When the sum rounds (see
    /// `MediaTime.+`), the end is kept at or after the start.
    ///
    /// - Parameters:
    ///   - start: The first instant in the range.
    ///   - duration: Its length, not negative.
    public init(start: MediaTime, duration: MediaTime) {
        precondition(!duration.isNegative, "MediaTimeRange duration \(duration) is negative")
        self.init(start: start, end: MediaTime.max(start, start + duration))
    }

    /// `end - start`: exact when the two share a timescale within `Int32`, else rounded as
    /// `MediaTime.-` says (never negative).
    public var duration: MediaTime { MediaTime.max(.zero, end - start) }
    public var isEmpty: Bool { start == end }

    /// Whether `start <= time < end`.
    ///
    /// - Parameter time: The instant to test.
    /// - Returns: `true` when `time` is in the range.
    public func contains(_ time: MediaTime) -> Bool { start <= time && time < end }

    /// The overlap of two ranges, or `nil` when they share no instant.
    ///
    /// - Parameter other: Another range.
    /// - Returns: The instants in both ranges, or `nil`.
    public func intersection(_ other: MediaTimeRange) -> MediaTimeRange? {
        let s = MediaTime.max(start, other.start), e = MediaTime.min(end, other.end)
        return s < e ? MediaTimeRange(start: s, end: e) : nil
    }

    /// The range moved by `offset`. When a sum rounds (see `MediaTime.+`), the end is kept at or
    /// after the start.
    ///
    /// - Parameter offset: How far to move it; negative moves it earlier.
    /// - Returns: The moved range, as long as this one (unless a sum rounds).
    public func shifted(by offset: MediaTime) -> MediaTimeRange {
        let newStart = start + offset
        return MediaTimeRange(start: newStart, end: MediaTime.max(newStart, end + offset))
    }
}

extension MediaTimeRange: CustomStringConvertible {
    public var description: String { "[\(start), \(end))" }
}
