import CompositorCore

/// Reads the keyframes a stitch may start a piece at, to check each against its bitstream
/// (see `DecodeStart`), and gives the bytes of one that must be marked as a splice. Only the
/// NAL unit headers of the few keyframes near each cut are read, each once.
struct KeyframeReader {
    private var files: SourceFiles
    private var known: [SampleKey: DecodeStart] = [:]
    /// Each track's samples flagged sync.
    private var flagged: [TrackKey: [Int]] = [:]

    private struct TrackKey: Hashable {
        var source: Int
        var track: UInt32
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
        guard let syntax = syntax(of: index, in: timeline) else { return .closed }
        let offset = samples.offsets[index]
        let size = Int(samples.sizes[index])
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
        let found = (0..<timeline.samples.count).filter(timeline.samples.isSync)
        flagged[key] = found
        return found
    }

    /// Of `candidates` (samples flagged sync, in time order, the first `split` of them at or
    /// before the time wanted), the position of the last of those first `split` at which
    /// decoding can start, else of the first such after them.
    mutating func nearestStart(among candidates: [Int], split: Int, of timeline: SourceTrackTimeline,
                               source: Int) throws(MP4Error) -> Int? {
        for position in (0..<split).reversed() {
            if try decodeStart(candidates[position], of: timeline, source: source) != .none { return position }
        }
        for position in split..<candidates.count {
            if try decodeStart(candidates[position], of: timeline, source: source) != .none { return position }
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

    private func syntax(of index: Int, in timeline: SourceTrackTimeline) -> NALUnitSyntax? {
        let descriptions = timeline.track.sampleDescriptions
        let description = Int(timeline.samples.descriptionIndices[index])
        guard descriptions.indices.contains(description) else { return nil }
        return NALUnitSyntax(descriptions[description].codec)
    }
}
