import CompositorCore
import CompositorMP4
import CompositorTS

/// The work of the `packaging` fuzz target (Tests/Fuzz/PackagingFuzz.swift), shared with the tests
/// that replay its seeds and regressions: an MP4 file packaged into HLS segments of both
/// containers (MPEG-TS: Annex B with in-band parameter sets from the `avcC` or `hvcC`, ADTS from
/// the AudioSpecificConfig; fragmented MP4: an init segment, `moof`s and `mdat`s) of 0.2 s (a GOP
/// of the seeds, so most inputs make several), and the segments read back as an HLS source, as a
/// render of them would.
///
/// Input: the MP4 file. Whatever its bytes, packaging either succeeds or throws its typed error;
/// a crash, a hang, or segments that do not read back (the packager wrote what its own reader
/// refuses) is a bug. Two exceptions need not read back:
/// - TS segments of a source whose video samples hold a NAL unit Annex B cannot carry (a
///   `00 00 01` inside it, or a zero byte at its end: emulation prevention missing). Packaging
///   copies samples as they are, as ffmpeg does, rather than look at every byte of them; a reader
///   of the stream splits such a unit where the start code is.
/// - Fragmented MP4 segments of tracks whose timescales share no common one within 32 bits: the
///   init segment keeps the source's, and reading them refuses the arithmetic as the time rules
///   say (a `timeOverflow` naming the two times), as any stitch of such a source would.
package enum PackagingFuzzHarness {
    /// What became of one input.
    package struct Outcome: Sendable {
        /// A line per container: "CONTAINER: N segments, M bytes", or the error that stopped it.
        package var steps: [String] = []
        /// Invariants broken: packaged segments that do not read back. Empty unless there is a bug.
        package var broken: [String] = []
    }

    /// Runs `input` with `scratch`, an existing folder, for its files (`source.mp4` and
    /// `packaged` in it are replaced).
    package static func run(_ input: [UInt8], scratch: FilePath) -> Outcome {
        var outcome = Outcome()
        let source = scratch.appending("source.mp4"), packaged = scratch.appending("packaged")
        if let failure = FuzzScratch.write(input, to: source) {
            outcome.broken.append(failure)
            return outcome
        }
        for container in [MP4Packaging.Container.mpegTS, .fragmentedMP4] {
            let bytes: [UInt8], segments: HLSSegmentSource
            do {
                (bytes, segments) = try package(source, into: container, named: packaged)
            } catch {
                outcome.steps.append("\(container.rawValue): \(error)")
                continue
            }
            outcome.steps.append("\(container.rawValue): \(segments.segments.count) segments, \(bytes.count) bytes")
            if let failure = FuzzScratch.write(bytes, to: packaged) {
                outcome.broken.append(failure)
                continue
            }
            do {
                var budget = MP4SampleBudget.render()
                _ = try MP4Reader.read(segments, budget: &budget)
            } catch {
                if container == .mpegTS, let sample = firstSampleAnnexBCannotCarry(in: input, at: source) {
                    outcome.steps.append("MPEG-TS segments do not read back: video sample \(sample + 1) has a NAL unit Annex B cannot carry")
                } else if container == .fragmentedMP4, case .timeOverflow(_, let reason) = error, reason.contains("no common timescale") {
                    outcome.steps.append("fragmented MP4 segments do not read back: \(reason)")
                } else {
                    outcome.broken.append("\(container.rawValue): the segments do not read back: \(error)")
                }
            }
        }
        return outcome
    }

    /// The init segment and the segments, one after another, and the source that reads them from
    /// a file of those bytes at `path`.
    private static func package(_ source: FilePath, into container: MP4Packaging.Container,
                                named path: FilePath) throws(MP4Error) -> ([UInt8], HLSSegmentSource) {
        let packaging = try MP4Packaging(path: source, container: container, targetDuration: MediaTime(value: 1, timescale: 5))
        var writer = try packaging.segmentWriter()
        var bytes = writer.initSegment() ?? []
        let initSection = bytes.isEmpty ? nil : HLSSegmentSource.FileBytes(path: path, byteRange: 0..<UInt64(bytes.count))
        var segments: [HLSSegmentSource.Segment] = []
        var segment = OutputBytes()
        for (index, planned) in packaging.segments.enumerated() {
            try writer.segment(index, into: &segment)
            let start = UInt64(bytes.count)
            segment.withUnsafeBytes { bytes.append(contentsOf: $0) }
            segments.append(.init(path: path, byteRange: start..<UInt64(bytes.count), duration: planned.range.duration))
        }
        try writer.checkUnchanged()
        let container: HLSSegmentSource.Container = initSection.map { .fragmentedMP4(initSection: $0) } ?? .transportStream
        return (bytes, HLSSegmentSource(playlist: path, container: container, segments: segments))
    }

    /// The first video sample of the MP4 file `bytes` (at `path`) with a NAL unit that has a
    /// `00 00 01` inside it or ends in a zero byte; `nil` when there is none, or no such sample
    /// can be told (the file does not read, a length runs past its sample).
    private static func firstSampleAnnexBCannotCarry(in bytes: [UInt8], at path: FilePath) -> Int? {
        guard let movie = try? MP4Reader.read(path: path), let video = movie.videoTrack else { return nil }
        let samples = video.samples
        for index in 0..<samples.count {
            let lengthSize = video.sampleDescriptions[Int(samples.descriptionIndices[index])].codec.nalLengthSize ?? 4
            guard let start = Int(exactly: samples.offsets[index]), start <= bytes.count,
                  Int(samples.sizes[index]) <= bytes.count - start else { return nil }
            let end = start + Int(samples.sizes[index])
            var unit = start
            while unit + lengthSize <= end {
                var length = 0
                for byte in bytes[unit..<(unit + lengthSize)] { length = length << 8 | Int(byte) }
                unit += lengthSize
                guard length <= end - unit else { break }
                if !AnnexB.canCarry(bytes[unit..<(unit + length)]) { return index }
                unit += length
            }
        }
        return nil
    }
}
