import CompositorCore

/// One piece of a stitched MP4: a range of a source's presentation timeline.
package struct MP4StitchPiece: Sendable, Hashable {
    /// What the samples come from.
    package enum Source: Sendable, Hashable {
        case mp4(FilePath)
        /// An HLS media playlist's segments, and those of the audio rendition the variant plays
        /// when its audio is in a playlist of its own. (Boxed: a render of 10,000 breaks holds
        /// 30,000 pieces.)
        indirect case hls(HLSSegmentSource, audioRendition: HLSSegmentSource? = nil)

        /// Every file it reads: the MP4, or the playlists, their init sections and their segments.
        package var files: [FilePath] {
            switch self {
            case .mp4(let path): return [path]
            case .hls(let source, let audio): return source.files + (audio?.files ?? [])
            }
        }
    }

    package var source: Source
    /// The wanted part of the source, `[start, end)`, in the source's presentation time (its edit
    /// list applied: 0 is the first instant a player shows).
    package var range: MediaTimeRange

    package init(path: FilePath, range: MediaTimeRange) {
        self.init(source: .mp4(path), range: range)
    }

    package init(source: Source, range: MediaTimeRange) {
        self.source = source
        self.range = range
    }

    /// The file the user named: the MP4, or the playlist.
    package var path: FilePath {
        switch source {
        case .mp4(let path): return path
        case .hls(let source, _): return source.playlist
        }
    }
}

/// How the stitcher cuts a piece out of its source.
public enum MP4CutMode: String, Sendable, Hashable, CaseIterable {
    /// Exactly the frames whose presentation time is in the range. Video is copied from the
    /// keyframe at or before the start and the lead-in is hidden by an edit-list entry per piece
    /// (the QuickTime / AVFoundation model); pieces joined where nothing is hidden share one.
    /// Needs a player that honours multi-entry edit lists.
    case sampleAccurate
    /// Cuts moved to keyframes: the start to the keyframe at or before it, the end to the keyframe
    /// at or before it (so adjacent ranges of one source stay contiguous), or, when that would
    /// leave nothing, the next keyframe; an end at or past the end of the video stays where it is.
    /// No video sample is hidden, the tracks have a single edit each, and the plan reports the
    /// ranges that really play.
    case keyframeAligned
    /// Keyframe-aligned cuts in a file browsers play too: one sample description per track.
    /// Equal audio configurations share one; H.264 or HEVC whose parameter sets differ share an
    /// `avc3` / `hev1` entry, every keyframe carrying its source's parameter sets in-band. Sources
    /// that cannot share one (AAC at 44.1 and 48 kHz, two picture sizes) are refused before
    /// anything is written (`MP4Error.formatMismatch`).
    case webSafe

    /// Whether cuts move to keyframes.
    package var alignsToKeyframes: Bool { self != .sampleAccurate }
}

/// How far writing has got, for a progress display.
public struct MP4StitchProgress: Sendable, Equatable {
    public let bytesWritten: UInt64
    public let totalBytes: UInt64

    /// 0...1.
    public var fraction: Double { totalBytes == 0 ? 1 : Double(bytesWritten) / Double(totalBytes) }
}
