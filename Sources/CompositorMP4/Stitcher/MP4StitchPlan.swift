import CompositorCore
import CompositorIO

/// What a stitch will produce, decided before a byte is written: for every piece, the source range
/// that really plays and where it plays in the output, plus the output's exact layout.
///
/// `MP4Stitcher.plan()` makes it (reading only the sources' `moov` boxes); `MP4Stitcher.write(_:to:)`
/// writes it. A plan is a value: callers can build timelines from it without writing anything.
package struct MP4StitchPlan: Sendable {
    /// One piece as it will play.
    package struct Piece: Sendable, Hashable {
        package let path: FilePath
        /// The range the caller asked for.
        package let requestedRange: MediaTimeRange
        /// The source range that plays: the requested one in `sampleAccurate` mode, the snapped
        /// one in `keyframeAligned` mode.
        package let sourceRange: MediaTimeRange
        /// Where the piece plays in the output, `[start, end)`: contiguous from 0, in order.
        package let compositionRange: MediaTimeRange
        /// Whether the source has a video / an audio track (a missing one is filled).
        package let sourceHasVideo: Bool
        package let sourceHasAudio: Bool
    }

    package let cutMode: MP4CutMode
    package let pieces: [Piece]
    /// The output's length: the end of the last piece's composition range.
    package var duration: MediaTime { pieces.last?.compositionRange.end ?? .zero }
    /// The size of the file `write` will produce, in bytes.
    package var outputSize: UInt64 { layout.fileSize }
    /// What may not play as expected (see `MP4StitchDiagnostic`).
    package var diagnostics: [MP4StitchDiagnostic] = []

    let layout: StitchLayout
}

/// Everything `write` needs: the sources, the output tracks and the byte copy list.
struct StitchLayout: Sendable {
    /// Sources by index: the file named, and where its samples were read from (the versions of
    /// the files as planned).
    var sources: [(path: FilePath, store: MP4SampleStore)]
    var movieTimescale: Int32
    /// The composition's length in movie ticks.
    var movieDuration: UInt64
    /// The mdat payload, in order.
    var segments: CopySegmentList
    /// Synthetic sample bytes (silent audio frames) that segments refer to.
    var syntheticPayloads: [[UInt8]]
    var mdatPayloadSize: UInt64
    /// What comes before the mdat payload: ftyp, moov and the mdat header.
    var header: StitchHeader

    var fileSize: UInt64 { header.size + mdatPayloadSize }
}

/// A run of mdat bytes: copied from a source, a synthetic payload repeated, or zeros no sample
/// refers to (they put the copy after them at its source's page phase, see
/// `StitchLayoutBuilder.pageSize`).
enum CopySegment: Sendable, Equatable {
    case source(file: Int, offset: UInt64, length: UInt64)
    case synthetic(payload: Int, repeatCount: Int)
    case padding(length: UInt64)
}

extension MP4StitchPlan {
    /// The bytes of MP4 source files the write copies, in the order it copies them, as it copies
    /// them: from file to file (`streamed`: what a render streams from a remote source, read
    /// through its spool's path), or read into memory first (`read`: copies under
    /// `MP4Stitcher.smallCopy`, fetched ahead).
    package var copiedFileRanges: (streamed: [(path: FilePath, range: Range<UInt64>)], read: [FilePath: [Range<UInt64>]]) {
        var streamed: [(path: FilePath, range: Range<UInt64>)] = []
        var read: [FilePath: [Range<UInt64>]] = [:]
        for segment in layout.segments {
            guard case .source(let file, let offset, let length) = segment, layout.sources.indices.contains(file),
                  case .file(let path, _) = layout.sources[file].store else { continue }
            if length < MP4Stitcher.smallCopy {
                read[path, default: []].append(offset..<(offset + length))
            } else {
                streamed.append((path, offset..<(offset + length)))
            }
        }
        return (streamed, read)
    }
}
