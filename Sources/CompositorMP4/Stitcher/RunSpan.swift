import CompositorCore

/// Consecutive samples of a run that follow one rule: a source track's samples `first..<end`,
/// silent frames, or one sample given outright. Shifts and window extensions change the rule's
/// parameters, never a sample.
struct RunSpan: Sendable {
    enum Samples: Sendable {
        case source(SourceSamples)
        case silence(SilentFrames)
        case single(TrackSample)
        case keyframeCopies(KeyframeCopies)
    }

    /// A source track as the output sees it: one per source and track kind, shared by every
    /// span cut from it (a span is kept small: a render of 10,000 breaks holds 120,000).
    final class SourceTrack: Sendable {
        let table: MP4SampleTable
        /// The source's index among the layout's files.
        let file: Int
        /// The output description of each of the source track's descriptions.
        let descriptions: [Int]
        /// The in-band parameter sets of each of the source track's descriptions, which its
        /// keyframes carry; empty for none (see `DescriptionTable.mergeIntoOne`).
        let inBand: [InBandParameterSets?]

        init(table: MP4SampleTable, file: Int, descriptions: [Int], inBand: [InBandParameterSets?]) {
            self.table = table
            self.file = file
            self.descriptions = descriptions
            self.inBand = inBand
        }
    }

    /// A source's samples, each timed from the source's own: decode `convert(decode - decodeBase)`,
    /// composition `convert(composition - compositionBase)` (or the decode time, for audio laid
    /// back to back).
    struct SourceSamples: Sendable {
        let source: SourceTrack
        let range: Range<Int>
        let convert: TickConverter
        let decodeBase: Int64
        let compositionBase: Int64
        let sync: SyncRule

        var table: MP4SampleTable { source.table }
    }

    /// Which of a source span's samples are sync samples.
    enum SyncRule: Sendable {
        /// Those the source flags.
        case flagged
        /// Those the source flags that present after this composition time (source ticks): a
        /// picture flagged sync before a piece's window was found not to be a decode start, so it
        /// is unflagged and a player does not start there.
        case flaggedPresentingAfter(Int64)
        /// Every sample, each presenting at its decode time (audio laid back to back).
        case allPresentingAtDecodeTime
    }

    /// `count` silent frames, the first decoding at `start`.
    struct SilentFrames: Sendable {
        let silence: SilenceSource
        let start: Int64
        let timescale: Int32
        let isLeadIn: Bool
    }

    /// A source's sync samples copied again after a run, hidden: the `n`-th decodes and presents
    /// at `start + n` (see `LayoutContext.appendTrailingKeyframes`).
    struct KeyframeCopies: Sendable {
        let keyframes: SpareKeyframes
        let start: Int64
    }

    /// Sync samples of a source a run may copy again: `first`, then `second` (or `first` again).
    struct SpareKeyframes: Sendable {
        let source: SourceTrack
        let first: Int
        let second: Int?
    }

    /// Samples presenting at or after `from` (in the span's ticks before `shift`) present `by` later.
    struct Delay: Sendable {
        let from: Int64
        let by: Int64
        func apply(_ time: Int64) -> Int64 { time >= from ? time + by : time }
    }

    let samples: Samples
    let count: Int
    /// Added to every decode and composition time (after the delays).
    private var shift: Int64 = 0
    private var delays: [Delay] = []
    /// The span's earliest and latest composition times, as its samples have them.
    private(set) var minComposition: Int64
    private(set) var maxComposition: Int64

    /// Samples `range` of `table`, timed as `SourceSamples` says: checked (every time converts
    /// without overflow) as the span's composition range is found.
    static func source(_ samples: SourceSamples) throws(MediaTimeError) -> RunSpan {
        var low = Int64.max, high = Int64.min
        for index in samples.range {
            let time = try samples.composition(index)
            low = min(low, time)
            high = max(high, time)
        }
        // Decode times only grow: the first and last convert, so every one between does.
        _ = try samples.decode(samples.range.lowerBound)
        _ = try samples.decode(samples.range.upperBound - 1)
        return RunSpan(samples: .source(samples), count: samples.range.count, minComposition: low, maxComposition: high)
    }

    /// `count` frames of `silence` from decode time `start`; `nil` for none.
    static func silence(_ silence: SilenceSource, count: Int64, from start: Int64, timescale: Int32,
                        leadIn: Bool = false) throws(MediaTimeError) -> RunSpan? {
        guard count > 0 else { return nil }
        let frames = SilentFrames(silence: silence, start: start, timescale: timescale, isLeadIn: leadIn)
        return RunSpan(samples: .silence(frames), count: Int(count), minComposition: start,
                       maxComposition: try frames.decode(count - 1))
    }

    /// `count` copies of `keyframes` from decode time `start`.
    static func keyframeCopies(_ keyframes: SpareKeyframes, count: Int, from start: Int64) -> RunSpan {
        RunSpan(samples: .keyframeCopies(KeyframeCopies(keyframes: keyframes, start: start)), count: count,
                minComposition: start, maxComposition: start + Int64(count) - 1)
    }

    static func single(_ sample: TrackSample) -> RunSpan {
        RunSpan(samples: .single(sample), count: 1, minComposition: sample.composition, maxComposition: sample.composition)
    }

    private init(samples: Samples, count: Int, minComposition: Int64, maxComposition: Int64) {
        self.samples = samples
        self.count = count
        self.minComposition = minComposition
        self.maxComposition = maxComposition
    }

    /// Moves every time of the span later by `ticks`.
    mutating func shift(by ticks: Int64) {
        shift += ticks
        minComposition += ticks
        maxComposition += ticks
    }

    /// Samples presenting at or after `from` present `by` later (`by` > 0). A delay keeps the
    /// order of composition times, so it maps the span's earliest and latest to the new ones.
    mutating func delayComposition(from: Int64, by ticks: Int64) {
        let delay = Delay(from: from - shift, by: ticks)
        delays.append(delay)
        minComposition = delay.apply(minComposition - shift) + shift
        maxComposition = delay.apply(maxComposition - shift) + shift
    }

    /// The largest amount by which one of the span's samples decodes after it presents (`nil` for
    /// none). A shift moves decode and composition alike, so it does not change a lead. A source
    /// span kept in its own timescale with no delays leads by its composition base less its
    /// decode base, less each sample's composition offset: found from the offsets alone.
    func largestDecodeLead() throws(MediaTimeError) -> Int64? {
        guard count > 0 else { return nil }
        if case .source(let source) = samples, delays.isEmpty, !source.presentsAtDecodeTime,
           source.convert.from == source.convert.to {
            let offsets = source.table.compositionOffsets
            let smallest = offsets.isEmpty ? 0 : Int64(offsets[source.range].min()!)
            return (source.compositionBase &- source.decodeBase) &- smallest
        }
        var lead = Int64.min
        var block: [TrackSample] = []
        var position = 0
        while position < count {
            let end = min(count, position + Self.samplesPerBlock)
            block.removeAll(keepingCapacity: true)
            try samples(position..<end, into: &block)
            for sample in block { lead = max(lead, sample.decode - sample.composition) }
            position = end
        }
        return lead
    }

    /// How many samples are made at a time where a span's are all looked at: enough that its
    /// rule is looked at rarely, few enough that they take little memory.
    static let samplesPerBlock = 1024

    /// The `position`-th sample of the span.
    func sample(at position: Int) throws(MediaTimeError) -> TrackSample {
        var one: [TrackSample] = []
        try samples(position..<position + 1, into: &one)
        return one[0]
    }

    /// Appends the samples at `positions` (in the span) to `buffer`, moved by `shift`: the span's
    /// rule is looked at once for them all.
    func samples(_ positions: Range<Int>, into buffer: inout [TrackSample],
                 shift: (decode: Int64, composition: Int64) = (0, 0)) throws(MediaTimeError) {
        let first = buffer.count
        switch samples {
        case .source(let source):
            let track = source.source
            var walk = track.table.walk(positions.lowerBound + source.range.lowerBound..<positions.upperBound + source.range.lowerBound)
            while let walked = walk.next() {
                let decode = try source.decode(time: walked.decodeTime)
                let isSync = switch source.sync {
                case .flagged: walked.isSync
                case .flaggedPresentingAfter(let floor): walked.isSync && walked.compositionTime > floor
                case .allPresentingAtDecodeTime: true
                }
                let description = Int(walked.descriptionIndex)
                var sample = TrackSample(
                    bytes: .source(file: track.file, offset: walked.offset), size: walked.size, decode: decode,
                    composition: source.presentsAtDecodeTime ? decode : try source.composition(time: walked.compositionTime),
                    isSync: isSync, description: track.descriptions[description])
                if !track.inBand.isEmpty, walked.isSync, let parameterSets = track.inBand[description] {
                    try sample.carry(parameterSets)
                }
                buffer.append(sample)
            }
        case .silence(let frames):
            for position in positions {
                let time = try frames.decode(Int64(position))
                buffer.append(TrackSample(bytes: .synthetic(payload: frames.silence.payload), size: frames.silence.size, decode: time,
                                          composition: time, isSync: true, description: frames.silence.description, isLeadIn: frames.isLeadIn))
            }
        case .single(let single):
            buffer.append(single)
        case .keyframeCopies(let copies):
            let source = copies.keyframes.source
            for position in positions {
                let index = position == 0 ? copies.keyframes.first : copies.keyframes.second ?? copies.keyframes.first
                let time = copies.start + Int64(position)
                buffer.append(TrackSample(bytes: .source(file: source.file, offset: source.table.offsets[index]), size: source.table.sizes[index],
                                          decode: time, composition: time, isSync: true,
                                          description: source.descriptions[Int(source.table.descriptionIndices[index])]))
            }
        }
        for index in first..<buffer.count {
            for delay in delays { buffer[index].composition = delay.apply(buffer[index].composition) }
            buffer[index].decode += self.shift + shift.decode
            buffer[index].composition += self.shift + shift.composition
        }
    }
}

extension RunSpan.SourceSamples {
    var presentsAtDecodeTime: Bool { if case .allPresentingAtDecodeTime = sync { true } else { false } }

    func decode(_ index: Int) throws(MediaTimeError) -> Int64 { try decode(time: table.decodeTimes[index]) }

    func composition(_ index: Int) throws(MediaTimeError) -> Int64 {
        presentsAtDecodeTime ? try decode(index) : try composition(time: table.compositionTime(index))
    }

    /// A source decode time in output ticks.
    func decode(time: Int64) throws(MediaTimeError) -> Int64 { try convert.convert(time - decodeBase) }

    /// A source composition time in output ticks (not for audio laid back to back).
    func composition(time: Int64) throws(MediaTimeError) -> Int64 { try convert.convert(time - compositionBase) }
}

extension RunSpan.SilentFrames {
    func decode(_ frame: Int64) throws(MediaTimeError) -> Int64 { start + (try silence.offset(ofFrame: frame, timescale: timescale)) }
}

/// Walks placed runs' samples in order, a block at a time.
struct SampleCursor {
    private let runs: [PlacedRun]
    private let compositionShift: Int64
    /// The run and span of the sample `next` returned last.
    private var run = 0
    private var span = 0
    /// The next position in `span` to read into the block.
    private var position = 0
    private var block: [TrackSample] = []
    private var inBlock = 0

    init(_ runs: [PlacedRun], compositionShift: Int64) {
        self.runs = runs
        self.compositionShift = compositionShift
        block.reserveCapacity(RunSpan.samplesPerBlock)
    }

    /// The piece of the sample `next` returned last.
    var piece: Int { runs[run].piece }

    mutating func next() throws(MediaTimeError) -> TrackSample? {
        if inBlock == block.count {
            // Samples of one span per block, so `run` and `span` name the block's.
            if !block.isEmpty, position == runs[run].spans[span].count {
                span += 1
                position = 0
            }
            while run < runs.count, span == runs[run].spans.count {
                run += 1
                span = 0
            }
            guard run < runs.count else { return nil }
            let spans = runs[run].spans
            let end = min(spans[span].count, position + RunSpan.samplesPerBlock)
            block.removeAll(keepingCapacity: true)
            let start = runs[run].start
            try spans[span].samples(position..<end, into: &block, shift: (start, start + compositionShift))
            position = end
            inBlock = 0
        }
        defer { inBlock += 1 }
        return block[inBlock]
    }
}
