import Compositor
import CompositorCore
import CompositorIO
import CompositorMP4

/// The work of the `segments` fuzz target (Tests/Fuzz/SegmentsFuzz.swift), shared with the tests
/// that replay its seeds and regressions: an HLS source's segments read as a render reads them
/// (MPEG-TS: packets, tables, PES, Annex B video and ADTS audio; fragmented MP4: an init section,
/// `moof`s and `mdat`s), planned in both cut modes and rendered, and the render read back.
///
/// Input: five header bytes, then the media, which becomes one file; the segments (and the init
/// section) are byte ranges of it, as `EXT-X-BYTERANGE` names them.
///
/// ```
/// byte 0      bit 0: fragmented MP4 (else MPEG-TS); bit 1: the second segment follows an
///             EXT-X-DISCONTINUITY
/// bytes 1-2   cut 1, a byte offset into the media (big-endian)
/// bytes 3-4   cut 2
///
/// MPEG-TS        [segment 1 ][segment 2     ]      one segment when cut 1 is 0 or past the end
///                0        cut 1            end
/// fragmented MP4 [init ][segment 1][segment 2]    one segment when cut 2 is not inside segment 1
///                0    cut 1      cut 2       end
/// ```
///
/// Whatever the bytes, reading, planning and writing either succeed or throw their typed errors;
/// a crash, a hang or a render that does not read back as an MP4 is a bug.
package enum SegmentsFuzzHarness {
    /// What became of one input.
    package struct Outcome: Sendable {
        /// The source's read, when it threw.
        package var readError: MP4Error?
        /// A line per plan: "MODE PIECES: rendered N bytes", or the error that stopped it.
        package var steps: [String] = []
        /// Invariants broken: renders that do not read back. Empty unless there is a bug.
        package var broken: [String] = []
    }

    package static let headerSize = 5

    /// Runs `input` with `scratch`, an existing folder, for its files (`media` and `render.mp4` in
    /// it are replaced).
    package static func run(_ input: [UInt8], scratch: FilePath) -> Outcome {
        var outcome = Outcome()
        guard input.count > headerSize else { return outcome }
        let media = scratch.appending("media"), output = scratch.appending("render.mp4")
        let bytes = Array(input[headerSize...])
        if let failure = FuzzScratch.write(bytes, to: media) {
            outcome.broken.append(failure)
            return outcome
        }
        let source = self.source(in: media, flags: input[0], cut1: cut(input[1], input[2]), cut2: cut(input[3], input[4]),
                                 count: UInt64(bytes.count))

        let movie: MP4Movie
        do {
            var budget = MP4SampleBudget.render()
            movie = try MP4Reader.read(source, budget: &budget)
        } catch {
            outcome.readError = error
            return outcome
        }
        let natural = movie.naturalDuration
        guard natural > .zero else { return outcome }
        // The whole source, then its second half: so that piece boundaries add up and the second
        // piece starts inside it (mid-GOP for the sample-accurate mode).
        let whole = MP4StitchPiece(source: .hls(source), range: MediaTimeRange(start: .zero, end: natural))
        let middle = MediaTime(value: natural.value / 2, timescale: natural.timescale)
        let pieces = middle > .zero ? [whole, MP4StitchPiece(source: .hls(source), range: MediaTimeRange(start: middle, end: natural))] : [whole]
        for mode in MP4CutMode.allCases {
            let step = "\(mode) \(pieces.count)"
            do {
                let plan = try MP4Stitcher(pieces: pieces, cutMode: mode).stitch(to: output)
                outcome.steps.append("\(step): rendered \(plan.outputSize) bytes")
            } catch {
                outcome.steps.append("\(step): \(error)")
                continue
            }
            do { _ = try MP4Reader.read(path: output) } catch {
                outcome.broken.append("\(step): the render does not read back: \(error)")
            }
        }
        return outcome
    }

    private static func cut(_ high: UInt8, _ low: UInt8) -> UInt64 { UInt64(high) << 8 | UInt64(low) }

    /// The source the header describes, its segments and init section ranges of `media`.
    private static func source(in media: FilePath, flags: UInt8, cut1: UInt64, cut2: UInt64, count: UInt64) -> HLSSegmentSource {
        let second = flags & 2 != 0
        func segment(_ range: Range<UInt64>, discontinuity: Bool = false) -> HLSSegmentSource.Segment {
            HLSSegmentSource.Segment(path: media, byteRange: range, duration: MediaTime(seconds: 1), discontinuity: discontinuity)
        }
        guard flags & 1 != 0 else {
            let segments = cut1 > 0 && cut1 < count
                ? [segment(0..<cut1), segment(cut1..<count, discontinuity: second)] : [segment(0..<count)]
            return HLSSegmentSource(playlist: media, container: .transportStream, segments: segments)
        }
        let initEnd = min(cut1, count)
        let segments = cut2 > initEnd && cut2 < count
            ? [segment(initEnd..<cut2), segment(cut2..<count, discontinuity: second)] : [segment(initEnd..<count)]
        return HLSSegmentSource(playlist: media, container: .fragmentedMP4(initSection: .init(path: media, byteRange: 0..<initEnd)),
                                segments: segments)
    }
}
