import CompositorCore
import CompositorIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Joins pieces of MP4 files into one MP4 with one video and one audio track, copying samples
/// byte for byte (never re-encoding).
///
/// ```swift
/// let stitcher = MP4Stitcher(pieces: [
///     MP4StitchPiece(path: "ad.mp4", range: MediaTimeRange(start: .zero, end: MediaTime(seconds: 5))),
///     MP4StitchPiece(path: "movie.mp4", range: MediaTimeRange(start: .zero, end: MediaTime(value: 17, timescale: 2))),
/// ])
/// let plan = try stitcher.plan()            // what will play where; nothing written yet
/// try stitcher.write(plan, to: "out.mp4")   // moov first, one pass, atomic
/// ```
///
/// The output has `moov` before `mdat` and is written in one pass with a fixed-size buffer; it
/// appears atomically (temporary file, `fsync`, rename) and sources are never modified.
///
/// What the output holds:
/// - One video and one audio track (a track no piece has is left out). Each distinct setting of a
///   codec (other SPS/PPS, other sample rate or channels) gets its own sample description,
///   switched at chunk boundaries; two codecs in one track is `MP4Error.codecMismatch`.
/// - Timescales that make every cut exact when they fit 32 bits: the video track's is the least
///   common multiple of the sources' and the cut times'; the audio track's is the first audio
///   source's (ffmpeg counts priming in such ticks as samples); the movie's, 1000 or a multiple in
///   which every boundary is whole. Boundaries are rounded cumulatively otherwise, never per piece.
/// - `sampleAccurate`: one edit per piece per track, identical boundaries; consecutive edits whose
///   media follows on (nothing hidden at the join) are one edit. Where a piece's source lacks a
///   track, or its track ends first, video lengthens its previous edit (the last frame holds; at
///   the very start, an empty edit: there is no frame to hold) and audio plays an edit of silent
///   AAC frames of its own, after a hidden one, so the sound before stops at the cut.
/// - With several sample descriptions in a track, each piece also carries the hidden samples
///   ffmpeg's edit-list reader looks for on its own (keyframes after a video piece, a second of
///   silence before an audio piece), so that its sample-description bookkeeping stays in step.
/// - `keyframeAligned`: samples back to back with one edit per track; video pieces start on a
///   keyframe and end before one, so no video sample is hidden; audio takes whole frames, chosen
///   so it never drifts more than half a frame from the video's boundaries.
package struct MP4Stitcher: Sendable {
    package var pieces: [MP4StitchPiece]
    package var cutMode: MP4CutMode
    /// The samples all sources together may expand: `MP4SampleBudget.render()`, 2 GiB, by default.
    package var sampleBudget = MP4SampleBudget.render()
    /// MP4 sources read before (by a source catalog), by path: used as they are, not read again.
    /// A file changed since is still refused when its samples are copied (its version is checked).
    package var movies: [FilePath: MP4Movie] = [:]
    /// What to call a source in errors and diagnostics, by path, when not its path: a remote
    /// source read through a local spool file is called by its URL.
    package var names: [FilePath: String] = [:]

    /// Bytes copied per read/write: memory use does not grow with the input. 1 MiB (two halves,
    /// `BufferedOutput`): 4 MiB made a sample-heavy render's peak 1.7 MiB larger and it no faster
    /// (`Benchmarks/render-memory`, `Benchmarks/render`).
    package static let copyBufferSize = 1 << 20
    /// Bytes between progress reports.
    static let progressStep = 16 << 20
    /// Copies shorter than this go through the copy buffer.
    static let smallCopy: UInt64 = 1 << 20

    package init(pieces: [MP4StitchPiece], cutMode: MP4CutMode = .sampleAccurate) {
        self.pieces = pieces
        self.cutMode = cutMode
    }

    /// Plans the output (reading the sources' `moov` boxes, and the headers of the keyframes
    /// pieces start at): where each piece plays and what source range really plays. Nothing is
    /// written.
    package func plan() throws(MP4Error) -> MP4StitchPlan {
        var planner = StitchPlanner(pieces: pieces, cutMode: cutMode, sampleBudget: sampleBudget, readBefore: movies, names: names)
        return try planner.makePlan()
    }

    /// Plans and writes in one go; returns the plan that was written.
    @discardableResult
    package func stitch(to outputPath: FilePath, progress: (MP4StitchProgress) -> Void = { _ in }) throws(MP4Error) -> MP4StitchPlan {
        let plan = try plan()
        try write(plan, to: outputPath, progress: progress)
        return plan
    }

    /// Writes `plan` to `outputPath`. On any failure nothing is left at `outputPath` that was not
    /// there before, and no temporary file remains. `isCancelled` is asked before each segment
    /// and each step of a long copy; `true` ends the write with `MP4Error.cancelled`.
    package func write(
        _ plan: MP4StitchPlan, to outputPath: FilePath, progress: (MP4StitchProgress) -> Void = { _ in },
        isCancelled: () -> Bool = { false }
    ) throws(MP4Error) {
        let layout = plan.layout
        var files = SourceFiles(layout.sources.map(\.store))
        // Made before the output, so freed after it: discarding the output waits for a write of
        // the buffer still running.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.copyBufferSize, alignment: 16)
        defer { buffer.deallocate() }
        let output = try mp4Errors { () throws(FileError) in try AtomicOutputFile(path: outputPath, inputs: layout.sources.flatMap(\.store.files)) }
        defer { output.discard() }

        let total = layout.fileSize
        try mp4Errors { () throws(FileError) in try output.reserve(total) }
        // Small copies (an ad's few chunks, a piece between close breaks) are gathered in the
        // buffer and written together: a system copy per segment costs more than its bytes.
        var out = BufferedOutput(output, buffer: buffer)
        try layout.header.write(to: &out)
        var written = layout.header.size
        var reported: UInt64 = 0
        for segment in layout.segments {
            if isCancelled() { throw .cancelled(file: outputPath.description) }
            switch segment {
            case .source(let fileIndex, let offset, let length) where length < Self.smallCopy:
                let bytes = try files.read(from: fileIndex, offset: offset, count: Int(length))
                try bytes.withUnsafeBytes { raw in Result { () throws(MP4Error) in try out.append(raw) } }.get()
                written += length
            case .source(let fileIndex, let offset, let length):
                // In steps, so progress is reported as the copy goes.
                var done: UInt64 = 0
                while done < length {
                    if isCancelled() { throw .cancelled(file: outputPath.description) }
                    let count = min(UInt64(Self.progressStep), length - done)
                    try files.copy(from: fileIndex, offset: offset + done, length: count, to: &out)
                    done += count
                    written += count
                    progress(MP4StitchProgress(bytesWritten: written, totalBytes: total))
                }
                reported = written
            case .synthetic(let payload, let repeatCount):
                let bytes = layout.syntheticPayloads[payload]
                try bytes.withUnsafeBytes { raw in
                    Result { () throws(MP4Error) in for _ in 0..<repeatCount { try out.append(raw) } }
                }.get()
                written += UInt64(bytes.count * repeatCount)
            case .padding(let length):
                try out.appendZeros(Int(length))
                written += length
            }
            // What the buffer has written out, in steps like a long copy's.
            let flushed = written - UInt64(out.pending)
            if flushed >= reported + UInt64(Self.progressStep) {
                progress(MP4StitchProgress(bytesWritten: flushed, totalBytes: total))
                reported = flushed
            }
        }
        try out.flush()
        progress(MP4StitchProgress(bytesWritten: written, totalBytes: total))
        guard written == total else {
            throw .io(file: outputPath.description, operation: "write", reason: "wrote \(written) bytes, planned \(total)")
        }
        try files.closeAll()
        try mp4Errors { () throws(FileError) in try output.commit() }
    }
}
