import CompositorCore
import CompositorHLS
import CompositorIO

/// A schedule over live content: the schedule file format, its one content clip a live HLS
/// playlist, its breaks placed as the content plays.
///
/// ```json
/// { "content": [ { "id": "channel", "url": "http://127.0.0.1:8080/live/index.m3u8" } ],
///   "breaks": [ { "id": "ssai", "at": "markers", "ads": [ { "url": "ad1.mp4" }, { "url": "ad2.mp4" } ] },
///               { "id": "nine", "at": "2026-11-26T21:00:00Z", "ads": [ { "url": "ad1.mp4" } ] },
///               { "id": "news", "at": "on-demand", "ads": [ { "url": "bulletin.mp4" } ] } ] }
/// ```
///
/// - `"markers"`: the pod replaces every span the content marks as it appears (`EXT-X-CUE-OUT` to
///   `EXT-X-CUE-IN` or its duration, `SCTE35-OUT` date ranges), breaks `ID-SEQ` by the media
///   sequence number they start at. With `"slate": { "url": "slate.mp4" }` the slate, repeated,
///   fills what the ads leave of a span whose length the marker gives; otherwise the content does.
/// - A date-time: the pod replaces the content from the first segment starting at or after it, for
///   the pod's length.
/// - `"on-demand"`: the pod plays when the app (or the demo's `insert ID`) asks, from the next
///   segment the content publishes, for its length, as `ID-SEQ`.
public struct LiveSchedule: Sendable, Equatable {
    /// When a break plays.
    public enum Trigger: Sendable, Equatable {
        /// At every span the content marks.
        case markers
        /// From the first segment starting at or after this program date-time (seconds since 1970).
        case date(MediaTime)
        /// When the app asks ("insert now").
        case onDemand
    }

    public struct Break: Sendable, Equatable {
        public var id: String
        public var trigger: Trigger
        /// The pod, in play order.
        public var ads: [Ad]
        /// What fills the rest of a marked span of known length after the ads, repeated and cut
        /// at its end (`nil`: the content). A break at `"markers"` only.
        public var slate: Ad?

        /// - Parameters:
        ///   - id: The break's ID (a marked break plays as `ID-SEQ`).
        ///   - trigger: When it plays.
        ///   - ads: The pod, in play order.
        ///   - slate: What fills the rest of a marked span of known length (`"markers"` only).
        public init(id: String, trigger: Trigger, ads: [Ad], slate: Ad? = nil) {
            self.id = id
            self.trigger = trigger
            self.ads = ads
            self.slate = slate
        }
    }

    /// The live content: a media or multivariant playlist.
    public var content: ContentClip
    public var breaks: [Break]

    /// The break of `"at": "markers"` (the first, when several say so).
    public var markerBreak: Break? { breaks.first { $0.trigger == .markers } }
}

extension ScheduleDocument {
    /// Reads a live schedule (`LiveSchedule`) from the file at `path`.
    ///
    /// - Parameter path: The schedule file (JSON); relative URLs in it are resolved against its folder.
    /// - Returns: The live schedule.
    /// - Throws: `ScheduleDocumentError` naming the file, or the key and why.
    public static func readLive(path: FilePath) throws(ScheduleDocumentError) -> LiveSchedule {
        let bytes: [UInt8]
        do { bytes = try ReadableFile.contents(of: path, limit: maximumBytes) } catch {
            throw .unreadable(path: path, reason: error.reasonText)
        }
        return try decodeLive(bytes, baseFolder: path.parent)
    }

    /// Reads a live schedule from JSON bytes; relative URLs are resolved against `baseFolder`.
    ///
    /// - Parameters:
    ///   - bytes: The JSON text.
    ///   - baseFolder: What relative URLs are resolved against; `nil` leaves them relative.
    /// - Returns: The live schedule.
    /// - Throws: `ScheduleDocumentError` naming the key and why.
    public static func decodeLive(_ bytes: some Collection<UInt8>, baseFolder: FilePath?) throws(ScheduleDocumentError) -> LiveSchedule {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch { throw .syntax(line: error.line, column: error.column, reason: error.reason) }
        return try decodeLive(root, baseFolder: baseFolder)
    }
}
