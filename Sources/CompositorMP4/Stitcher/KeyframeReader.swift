import CompositorCore
import CompositorTS

/// Reads the keyframes a stitch may start a piece at, to check each against its bitstream
/// (see `DecodeStart`), and gives the bytes of one that must be marked as a splice. Only the
/// NAL unit headers of the few keyframes near each cut are read, each once.
struct KeyframeReader {
    private var files: SourceFiles
    private var known: [SampleKey: DecodeStart] = [:]
    /// Each track's samples flagged sync.
    private var flagged: [TrackKey: [Int]] = [:]
    /// Each timeline's flagged samples by presentation time (see `keyframeTimes`).
    private var presented: [TimelineKey: [Keyframe]] = [:]

    /// A sample flagged sync and when it presents.
    typealias Keyframe = (time: MediaTime, sample: Int)

    private struct TrackKey: Hashable {
        var source: Int
        var track: UInt32
    }

    /// A media segment of a track (see `SourceTrackTimeline`): pieces of one share it.
    private struct TimelineKey: Hashable {
        var track: TrackKey
        var mediaStart: Int64
        var presentationStart: MediaTime
    }

    private struct SampleKey: Hashable {
        var track: TrackKey
        var sample: Int
    }

    /// Bytes read at once while walking a keyframe's NAL unit headers.
    static let readAhead = 1024

    init(sources: [MP4SampleStore]) { files = SourceFiles(sources) }

    /// What sample `index` of `timeline` (of source `source`) is as a decode start: `.none` when
    /// the sample table does not flag it sync, else what its NAL units say.
    mutating func decodeStart(_ index: Int, of timeline: SourceTrackTimeline, source: Int) throws(MP4Error) -> DecodeStart {
        let samples = timeline.samples
        guard samples.isSync(index) else { return .none }
        let key = SampleKey(track: TrackKey(source: source, track: timeline.track.trackID), sample: index)
        if let start = known[key] { return start }
        let offset = samples.offsets[index]
        let size = Int(samples.sizes[index])
        if isMPEG4Visual(index, in: timeline) {
            let start = try mpeg4VisualDecodeStart(offset: offset, size: size, source: source)
            known[key] = start
            return start
        }
        guard let syntax = syntax(of: index, in: timeline) else { return .closed }
        // The headers of a keyframe's first NAL units (delimiter, SEI, parameter sets, first
        // slice) are usually in its first few hundred bytes: read once, more only when not.
        var window = (start: 0, bytes: [UInt8]())
        let start = try syntax.decodeStart(ofSampleOf: size) { (position, count) throws(MP4Error) in
            if position < window.start || position + count > window.start + window.bytes.count {
                let length = min(size - position, max(count, Self.readAhead))
                window = (position, try files.read(from: source, offset: offset + UInt64(position), count: length))
            }
            return Array(window.bytes[(position - window.start)..<(position - window.start + count)])
        }
        known[key] = start
        return start
    }

    /// The samples `timeline` flags sync, in decode order (found once per track).
    mutating func flaggedSync(in timeline: SourceTrackTimeline, source: Int) -> [Int] {
        let key = TrackKey(source: source, track: timeline.track.trackID)
        if let found = flagged[key] { return found }
        let found = timeline.samples.syncSampleIndices
        flagged[key] = found
        return found
    }

    /// The samples `timeline` flags sync that present from its media start on, with the times
    /// they present at, in time order: found once per timeline, however many pieces cut it.
    mutating func keyframeTimes(in timeline: SourceTrackTimeline, source: Int) throws(MediaTimeError) -> [Keyframe] {
        let key = TimelineKey(track: TrackKey(source: source, track: timeline.track.trackID),
                              mediaStart: timeline.mediaStart, presentationStart: timeline.presentationStart)
        if let found = presented[key] { return found }
        let mediaStartTime = MediaTime(value: timeline.mediaStart, timescale: timeline.timescale)
        var found: [Keyframe] = []
        for index in flaggedSync(in: timeline, source: source) {
            let cts = timeline.compositionTime(index)
            guard cts >= mediaStartTime else { continue }
            found.append((try timeline.presentationTime(ofMedia: cts), index))
        }
        found.sort { $0.time < $1.time }
        presented[key] = found
        return found
    }

    /// Of `candidates` (samples flagged sync, in time order; those before `split` at or before
    /// the time wanted), the index of the last before `split` at which decoding can start, else
    /// of the first such from `split` on.
    mutating func nearestStart<Candidates: RandomAccessCollection<Int>>(
        among candidates: Candidates, split: Candidates.Index, of timeline: SourceTrackTimeline, source: Int
    ) throws(MP4Error) -> Candidates.Index? {
        var position = split
        while position > candidates.startIndex {
            position = candidates.index(before: position)
            if try decodeStart(candidates[position], of: timeline, source: source) != .none { return position }
        }
        position = split
        while position < candidates.endIndex {
            if try decodeStart(candidates[position], of: timeline, source: source) != .none { return position }
            position = candidates.index(after: position)
        }
        return nil
    }

    /// Sample `index`'s bytes with its CRA picture marked as a splice (see `DecodeStart`).
    mutating func splicedBytes(_ index: Int, of timeline: SourceTrackTimeline, source: Int) throws(MP4Error) -> [UInt8] {
        let samples = timeline.samples
        var bytes = try files.read(from: source, offset: samples.offsets[index], count: Int(samples.sizes[index]))
        syntax(of: index, in: timeline)?.markAsSplice(&bytes)
        return bytes
    }

    /// Checks and closes the files read.
    mutating func close() throws(MP4Error) { try files.closeAll() }

    /// Whether sample `index` is MPEG-4 Part 2 (Visual, `mp4v` of object type 0x20).
    private func isMPEG4Visual(_ index: Int, in timeline: SourceTrackTimeline) -> Bool {
        let descriptions = timeline.track.sampleDescriptions
        let description = Int(timeline.samples.descriptionIndices[index])
        guard descriptions.indices.contains(description) else { return false }
        return descriptions[description].format == "mp4v" && descriptions[description].objectTypeIndication == 0x20
    }

    /// An MPEG-4 Part 2 sample is a start when its first VOP is intra-coded (an I-VOP): the
    /// sync flags of files remuxed from AVI are not (the N-VOP placeholder after a packed I+B
    /// sample is flagged a keyframe, and `mpeg4_unpack_bframes` moves the B-VOP into it). The
    /// headers before the VOP (VOS, VO, VOL, GOV, user data) are short: the first kilobyte is
    /// read, the whole sample only when the VOP start is not in it.
    private mutating func mpeg4VisualDecodeStart(offset: UInt64, size: Int, source: Int) throws(MP4Error) -> DecodeStart {
        var bytes = try files.read(from: source, offset: offset, count: min(size, Self.readAhead))
        var coding = MPEG4VisualPictureOrder.codings(in: bytes).first
        if coding == nil, size > bytes.count {
            bytes = try files.read(from: source, offset: offset, count: size)
            coding = MPEG4VisualPictureOrder.codings(in: bytes).first
        }
        return coding == .intra ? .closed : .none
    }

    private func syntax(of index: Int, in timeline: SourceTrackTimeline) -> NALUnitSyntax? {
        let descriptions = timeline.track.sampleDescriptions
        let description = Int(timeline.samples.descriptionIndices[index])
        guard descriptions.indices.contains(description) else { return nil }
        return NALUnitSyntax(descriptions[description].codec)
    }
}
