import CompositorCore

/// A WebVTT file (W3C WebVTT), as an HLS subtitle segment or a DASH text representation holds one:
/// its `X-TIMESTAMP-MAP` (RFC 8216bis 3.1.4), its `STYLE` and `REGION` blocks, and its cues.
///
/// ```
/// WEBVTT
/// X-TIMESTAMP-MAP=MPEGTS:133200,LOCAL:00:00:00.000
///
/// 1
/// 00:00:00.500 --> 00:00:01.500 line:90%
/// first
/// ```
package struct WebVTTDocument: Equatable, Sendable {
    /// `X-TIMESTAMP-MAP`: the cue time `local` is the media timestamp `mpegts` (90 kHz).
    package struct TimestampMap: Equatable, Sendable {
        /// A 90 kHz timestamp (the 33-bit MPEG-2 clock for transport streams).
        package var mpegts: Int64
        /// The cue time it is.
        package var local: MediaTime
    }

    /// One cue: its text from `start` to `end`, with its identifier and settings as written.
    package struct Cue: Hashable, Sendable {
        package var identifier: String?
        package var start: MediaTime
        package var end: MediaTime
        /// The settings after the end time (`line:90% align:start`), or empty.
        package var settings: String
        /// The payload's lines, joined by line feeds.
        package var text: String

        package init(identifier: String? = nil, start: MediaTime, end: MediaTime, settings: String = "", text: String) {
            self.identifier = identifier
            self.start = start
            self.end = end
            self.settings = settings
            self.text = text
        }
    }

    package var timestampMap: TimestampMap?
    /// The `STYLE` and `REGION` blocks, each as written (they come before the first cue).
    package var headerBlocks: [String]
    package var cues: [Cue]

    package init(timestampMap: TimestampMap? = nil, headerBlocks: [String] = [], cues: [Cue] = []) {
        self.timestampMap = timestampMap
        self.headerBlocks = headerBlocks
        self.cues = cues
    }

    /// The file's text: the signature, the blocks, then the cues, times as `hh:mm:ss.ttt` (to the
    /// millisecond, rounded; a time before 0 is written as 0).
    package var text: String {
        var text = "WEBVTT\n"
        if let map = timestampMap { text += "X-TIMESTAMP-MAP=MPEGTS:\(map.mpegts),LOCAL:\(Self.timestamp(map.local))\n" }
        for block in headerBlocks { text += "\n" + block + "\n" }
        for cue in cues {
            text += "\n"
            if let identifier = cue.identifier { text += identifier + "\n" }
            text += Self.timestamp(cue.start) + " --> " + Self.timestamp(cue.end) + (cue.settings.isEmpty ? "" : " " + cue.settings) + "\n"
            text += cue.text + "\n"
        }
        return text
    }

    /// `hh:mm:ss.ttt`.
    static func timestamp(_ time: MediaTime) -> String {
        let millis = max(0, (try? time.converted(to: 1000, rounding: .toNearestOrAwayFromZero).value) ?? 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = millis % 1000
        let digits = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(two(millis / 3_600_000)):\(two(millis / 60_000 % 60)):\(two(millis / 1000 % 60)).\(digits)"
    }
}
