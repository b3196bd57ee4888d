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
///   sequence number they start at.
/// - A date-time: the pod replaces the content from the first segment starting at or after it, for
///   the pod's length.
/// - `"on-demand"`: the pod plays when the app (or the demo's `insert ID`) asks, from the next
///   segment the content publishes, for its length, as `ID-SEQ`.
package struct LiveSchedule: Sendable, Equatable {
    package enum Trigger: Sendable, Equatable {
        case markers
        case date(HLSDateTime)
        case onDemand
    }

    package struct Break: Sendable, Equatable {
        package var id: String
        package var trigger: Trigger
        package var ads: [Ad]
    }

    /// The live content: a media or multivariant playlist.
    package var content: ContentClip
    package var breaks: [Break]

    /// The break of `"at": "markers"` (the first, when several say so).
    package var markerBreak: Break? { breaks.first { $0.trigger == .markers } }
}

extension ScheduleDocument {
    /// Reads a live schedule (`LiveSchedule`) from the file at `path`.
    package static func readLive(path: FilePath) throws(ScheduleDocumentError) -> LiveSchedule {
        let bytes: [UInt8]
        do { bytes = try ReadableFile.contents(of: path, limit: maximumBytes) } catch {
            throw .unreadable(path: path, reason: error.reasonText)
        }
        return try decodeLive(bytes, baseFolder: path.parent)
    }

    /// Reads a live schedule from JSON bytes; relative URLs are resolved against `baseFolder`.
    package static func decodeLive(_ bytes: some Collection<UInt8>, baseFolder: FilePath?) throws(ScheduleDocumentError) -> LiveSchedule {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch { throw .syntax(line: error.line, column: error.column, reason: error.reason) }
        return try decodeLive(root, baseFolder: baseFolder)
    }
}
