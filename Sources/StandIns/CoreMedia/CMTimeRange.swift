// Stand-in for CoreMedia's CMTimeRange (CoreMedia/CMTimeRange.h).
#if !canImport(CoreMedia)

/// `CMTimeRange` (CMTimeRange.h): a start and a duration.
public struct CMTimeRange: Sendable, Equatable, CustomStringConvertible {
    public var start: CMTime
    public var duration: CMTime

    /// `CMTimeRangeMake`.
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// `CMTimeRangeFromTimeToTime`: `duration` is `end - start`.
    public init(start: CMTime, end: CMTime) {
        self.init(start: start, duration: end - start)
    }

    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)

    /// `CMTimeRangeGetEnd`.
    public var end: CMTime { start + duration }
    /// `CMTIMERANGE_IS_VALID`: both times valid and the duration not negative.
    public var isValid: Bool { start.isValid && duration.isValid && duration.epoch == 0 && duration.value >= 0 }
    public var isEmpty: Bool { isValid && duration == .zero }

    /// `CMTimeRangeContainsTime`: `start <= time < end`.
    public func containsTime(_ time: CMTime) -> Bool { start <= time && time < end }

    public var description: String { "[\(start), \(end))" }
}
#endif
