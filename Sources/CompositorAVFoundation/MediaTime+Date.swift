import Compositor
import CompositorCore
import Foundation

extension MediaTime {
    /// `date` as seconds since 1970, to the microsecond (a `Date` is a `Double`: digits finer
    /// than that, this far from 1970, are noise), or `nil` for a date no `MediaTime` holds.
    ///
    /// - Parameter date: A player's date (`AVPlayerItem.currentDate()`).
    init?(secondsSince1970 date: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard micros.isFinite, abs(micros) < 9e18 else { return nil }
        self.init(value: Int64(micros), timescale: 1_000_000)
    }
}

extension Date {
    /// The date `time` seconds after 1970.
    init(secondsSince1970 time: MediaTime) { self.init(timeIntervalSince1970: time.seconds) }
}
