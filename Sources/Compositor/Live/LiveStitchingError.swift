import CompositorCore
import CompositorHLS

/// Why following live content stopped, in the schedule's terms: the URL, the ad, the file.
package struct LiveStitchingError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Cause: Equatable, Sendable {
        /// The content could not be loaded or read (after the retries the loop allows).
        case content(url: String, reason: String)
        /// The content is not live HLS (an MP4, say).
        case notLive(url: String, reason: String)
        /// Valid content this stitcher does not take yet (renditions in playlists of their own).
        case unsupported(url: String, reason: String)
        /// An ad cannot play in this content.
        case ad(item: String, reason: String)
        /// The stitcher cannot go on consistently (it missed segments, say).
        case stitch(LiveStitchError)
        case cannotWrite(path: String, reason: String)
        /// The decisions written by an earlier run cannot be taken up.
        case cannotResume(path: String, reason: String)
        /// `insert` named no on-demand break.
        case noSuchBreak(id: String, known: [String])
    }

    package let cause: Cause

    package init(_ cause: Cause) { self.cause = cause }

    package var description: String {
        switch cause {
        case .content(let url, let reason): return "\(url): \(reason)"
        case .notLive(let url, let reason): return "\(url): \(reason)"
        case .unsupported(let url, let reason): return "\(url): not supported: \(reason)"
        case .ad(let item, let reason): return "ad \(quoted(item)): \(reason)"
        case .stitch(let error): return error.description
        case .cannotWrite(let path, let reason): return "\(path): \(reason)"
        case .cannotResume(let path, let reason):
            return "\(path): cannot carry on the stream an earlier run left: \(reason) (remove the file to start a new stream)"
        case .noSuchBreak(let id, let known):
            return "no on-demand break \(quoted(id))" + (known.isEmpty ? " (the schedule has none)" : " (on-demand breaks: \(known.map(quoted).joined(separator: ", ")))")
        }
    }
}
