import CompositorCore
import CompositorIO
import CompositorMP4
import CompositorTestSupport
import Foundation
import Testing

/// A piece from a fixture, times written as exact decimal or rational strings.
package func piece(_ path: String, _ start: String, _ end: String) -> MP4StitchPiece {
    MP4StitchPiece(path: FilePath(path), range: MediaTimeRange(start: try! MediaTime(parsing: start), end: try! MediaTime(parsing: end)))
}

/// Stitches, then lets ffmpeg judge: exactly the sources' frames in each piece's range, audio that
/// decodes cleanly through every sample description, both tracks as long as the composition, one
/// edit per piece (or fewer, joined where the media runs on), and our own reader reading the output back.
package func stitchAndJudge(cutMode: MP4CutMode = .sampleAccurate, _ pieces: [MP4StitchPiece],
                            sourceLocation: SourceLocation = #_sourceLocation) async throws -> MP4StitchPlan? {
    let stitcher = MP4Stitcher(pieces: pieces, cutMode: cutMode)
    let plan = try stitcher.plan()
    // Composition ranges are contiguous from 0 and as long as the source ranges that play.
    var cursor = MediaTime.zero
    for piece in plan.pieces {
        #expect(piece.compositionRange.start == cursor, sourceLocation: sourceLocation)
        #expect(piece.compositionRange.duration == piece.sourceRange.duration, sourceLocation: sourceLocation)
        cursor = piece.compositionRange.end
    }
    let tools = try FFmpeg.require()
    let folder = try MP4Fixtures.makeScratchFolder()
    // COMPOSITOR_KEEP_OUTPUT=1 keeps the stitched files for inspection.
    defer { if ProcessInfo.processInfo.environment["COMPOSITOR_KEEP_OUTPUT"] != "1" { MP4Fixtures.remove(folder) } else { print("kept", folder) } }
    let output = folder + "/stitched.mp4"
    try stitcher.write(plan, to: FilePath(output))
    #expect(MP4Fixtures.listing(folder) == ["stitched.mp4"], "temporary files left behind", sourceLocation: sourceLocation)

    var judge = MP4StitchJudge(tools: tools)
    try await judge.check(output, against: plan, sourceLocation: sourceLocation)

    let movie = try MP4Reader.read(path: FilePath(output))
    #expect(movie.tracks.count == (plan.pieces.contains { $0.sourceHasAudio } ? 1 : 0) + (plan.pieces.contains { $0.sourceHasVideo } ? 1 : 0),
            sourceLocation: sourceLocation)
    #expect(UInt64(try Data(contentsOf: URL(fileURLWithPath: output)).count) == plan.outputSize, sourceLocation: sourceLocation)
    for track in movie.tracks {
        #expect(track.presentationDuration == plan.duration, "\(track.kind) edit list total", sourceLocation: sourceLocation)
        guard cutMode == .sampleAccurate, let edits = track.editList else { continue }
        // One edit per piece with the piece's boundaries, joined where the media runs on (a cut
        // on a keyframe with nothing hidden); where a piece lacks this track (or its track starts
        // late), video extends the edit before it (the last frame holds) or starts with an empty
        // edit, and audio plays an edit of silence.
        var editBoundaries: [MediaTime] = [.zero]
        for edit in edits { editBoundaries.append(editBoundaries.last! + MediaTime(value: Int64(edit.segmentDuration), timescale: movie.timescale)) }
        // Where each media segment a piece shows of this track starts showing: at the piece's
        // start, later when the source's track starts late (after its leading empty edits), and
        // where the source's next segment starts (a source that is itself a stitch).
        let startsByPiece = try plan.pieces.map { piece -> [MediaTime] in
            guard let sourceTrack = try MP4Reader.read(path: piece.path).tracks.first(where: { $0.kind == track.kind }) else { return [] }
            return try SourceTrackTimeline.timelines(of: sourceTrack, file: "\(piece.path)").compactMap { timeline in
                let start = MediaTime.max(piece.sourceRange.start, timeline.presentationStart)
                guard start < MediaTime.min(piece.sourceRange.end, timeline.presentationEnd) else { return nil }
                return piece.compositionRange.start + (start - piece.sourceRange.start)
            }
        }
        let mediaStarts = startsByPiece.flatMap { $0 }
        // Where a piece's media starts inside an edit, the edit was joined: its media runs on.
        var editStart = MediaTime.zero
        for edit in edits {
            let editEnd = editStart + MediaTime(value: Int64(edit.segmentDuration), timescale: movie.timescale)
            for start in mediaStarts where editStart < start && start < editEnd {
                #expect(edit.mediaTime != nil, "\(track.kind): media starts at \(start) inside an empty edit", sourceLocation: sourceLocation)
            }
            editStart = editEnd
        }
        #expect(Set(editBoundaries).isSubset(of: Set([.zero] + plan.pieces.map(\.compositionRange.end) + mediaStarts)),
                "\(track.kind): every edit boundary is a piece boundary or where a piece's media starts", sourceLocation: sourceLocation)
        // Audio plays an edit of silence where a piece has none (or its audio starts late).
        let silences = track.kind == .audio
            ? zip(plan.pieces, startsByPiece).filter { piece, starts in starts.first.map { $0 > piece.compositionRange.start } ?? true }.count
            : 0
        #expect(edits.filter { $0.mediaTime != nil }.count <= mediaStarts.count + silences,
                "\(track.kind): at most one media edit per piece, and one of silence per gap in audio", sourceLocation: sourceLocation)
    }
    return plan
}

extension MP4CutMode {
    /// The cut modes that join sources of different formats (44.1 and 48 kHz audio, other SPS):
    /// the web-safe output refuses those (`MP4WebSafeTests`).
    package static let mixingFormats: [MP4CutMode] = [.sampleAccurate, .keyframeAligned]
}
