import Compositor
import CompositorCore
#if canImport(CoreMedia)
import CoreMedia
#else
import CoreMediaStandIn
#endif

extension MediaTime {
    /// The same time as a `CMTime`.
    public var cmTime: CMTime { CMTime(value: value, timescale: timescale) }

    /// `time` as a `MediaTime`, or `nil` when it is invalid, indefinite or infinite.
    ///
    /// - Parameter time: A `CMTime`.
    public init?(_ time: CMTime) {
        guard time.isNumeric, time.timescale > 0 else { return nil }
        self.init(value: time.value, timescale: time.timescale)
    }

    /// `time` as a `MediaTime`, or a `PlayerTimeError` naming it.
    static func numeric(_ time: CMTime) throws(PlayerTimeError) -> MediaTime {
        guard let converted = MediaTime(time) else { throw .notNumeric(String(describing: time)) }
        return converted
    }
}

/// A `CMTime` passed where a time is needed was invalid, indefinite or infinite.
public enum PlayerTimeError: Error, Equatable, CustomStringConvertible {
    case notNumeric(String)

    public var description: String {
        switch self {
        case .notNumeric(let time): return "\(time) is not a time (invalid, indefinite or infinite)"
        }
    }
}

extension MediaTimeRange {
    /// The same range as a `CMTimeRange`.
    public var cmTimeRange: CMTimeRange { CMTimeRange(start: start.cmTime, end: end.cmTime) }

    /// `range` as a `MediaTimeRange`, or `nil` when it is invalid or not numeric.
    ///
    /// - Parameter range: A `CMTimeRange`.
    public init?(_ range: CMTimeRange) {
        guard range.isValid, let start = MediaTime(range.start), let end = MediaTime(range.end), start <= end else { return nil }
        self.init(start: start, end: end)
    }
}

/// The composition's queries for a player's times, `CMTime` in (any timescale; 10^9 on devices)
/// and out: each is the `MediaTime` query it names, labelled apart so that `.zero` and other
/// implicit members stay unambiguous. A time that is invalid, indefinite or infinite is a
/// `PlayerTimeError`.
extension Composition {
    /// `compositionTime(forContentTime:bias:)`: where the player shows `contentTime`.
    ///
    /// - Parameters:
    ///   - contentTime: A content time.
    ///   - bias: Which side of the breaks at that position to answer (after them by default).
    /// - Returns: The composition time, as the player's.
    /// - Throws: `PlayerTimeError.notNumeric` for a time that is not numeric.
    public func playerTime(forContentTime contentTime: CMTime, bias: BreakBias = .afterBreaks) throws(PlayerTimeError) -> CMTime {
        compositionTime(forContentTime: try MediaTime.numeric(contentTime), bias: bias).cmTime
    }

    /// `contentTime(forCompositionTime:)`: the content time at the player's `playerTime`.
    ///
    /// - Parameter playerTime: The player's time (composition time).
    /// - Returns: The content time.
    /// - Throws: `PlayerTimeError.notNumeric` for a time that is not numeric.
    public func contentTime(atPlayerTime playerTime: CMTime) throws(PlayerTimeError) -> CMTime {
        contentTime(forCompositionTime: try MediaTime.numeric(playerTime)).cmTime
    }

    /// `locate(_:)`: what plays at the player's `playerTime`.
    ///
    /// - Parameter playerTime: The player's time (composition time).
    /// - Returns: What plays there, or `nil` outside the composition.
    /// - Throws: `PlayerTimeError.notNumeric` for a time that is not numeric.
    public func locate(playerTime: CMTime) throws(PlayerTimeError) -> Location? {
        locate(try MediaTime.numeric(playerTime))
    }

    /// `seekBar(at:playedBreakIDs:)`: the seek bars at the player's `playerTime`.
    ///
    /// - Parameters:
    ///   - playerTime: The player's time (composition time).
    ///   - playedBreakIDs: The breaks whose markers show as played (none by default).
    /// - Returns: The main bar and, inside an ad, the ad's bar.
    /// - Throws: `PlayerTimeError.notNumeric` for a time that is not numeric.
    public func seekBar(atPlayerTime playerTime: CMTime, playedBreakIDs: Set<String> = []) throws(PlayerTimeError) -> SeekBarState {
        seekBar(at: try MediaTime.numeric(playerTime), playedBreakIDs: playedBreakIDs)
    }
}
