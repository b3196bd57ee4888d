import CompositorCore
import CompositorIO
import CompositorMP4
import CompositorTestSupport

extension Robust {
    /// Reads `path` as the fuzz target does: read, probe, and plan stitches of its whole natural
    /// duration, and of that followed by its second half, in both cut modes (the target skips the
    /// plans for movies of more than 2^18 samples; this does not). Returns the reader's error, if any;
    /// planning may throw typed errors, which are returned as descriptions.
    @discardableResult
    package static func exerciseMP4(_ path: String) -> (readError: MP4Error?, planOutcomes: [String]) {
        let movie: MP4Movie
        do { movie = try MP4Reader.read(path: FilePath(path)) } catch { return (error, []) }
        _ = movie.summary
        for track in movie.tracks {
            _ = track.presentationDuration
            for index in 0..<track.samples.count { _ = track.samples.compositionTime(index) }
        }
        let natural = movie.naturalDuration
        guard natural > .zero else { return (nil, []) }
        var outcomes: [String] = []
        let whole = MP4StitchPiece(path: FilePath(path), range: MediaTimeRange(start: .zero, end: natural))
        var plans = [[whole]]
        let middle = MediaTime(value: natural.value / 2, timescale: natural.timescale)
        if middle > .zero { plans.append([whole, MP4StitchPiece(path: FilePath(path), range: MediaTimeRange(start: middle, end: natural))]) }
        for pieces in plans {
            for mode in MP4CutMode.allCases {
                do {
                    let plan = try MP4Stitcher(pieces: pieces, cutMode: mode).plan()
                    outcomes.append("\(mode) \(pieces.count): planned \(plan.outputSize) bytes")
                } catch {
                    outcomes.append("\(mode) \(pieces.count): \(error)")
                }
            }
        }
        return (nil, outcomes)
    }
}
