import Compositor
import CompositorCore
#if canImport(AVFoundation)
import CoreMedia

extension MediaTime {
    /// The same time as a `CMTime`.
    public var cmTime: CMTime { CMTime(value: value, timescale: timescale) }

    /// `time` as a `MediaTime`, or `nil` when it is invalid, indefinite or infinite.
    public init?(_ time: CMTime) {
        guard time.isNumeric, time.timescale > 0 else { return nil }
        self.init(value: time.value, timescale: time.timescale)
    }
}

extension MediaTimeRange {
    /// The same range as a `CMTimeRange`.
    public var cmTimeRange: CMTimeRange { CMTimeRange(start: start.cmTime, end: end.cmTime) }

    /// `range` as a `MediaTimeRange`, or `nil` when it is invalid or not numeric.
    public init?(_ range: CMTimeRange) {
        guard range.isValid, let start = MediaTime(range.start), let end = MediaTime(range.end), start <= end else { return nil }
        self.init(start: start, end: end)
    }
}
#endif
