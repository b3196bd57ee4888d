import CompositorCore

/// Where an output sample's bytes come from.
enum SampleBytes: Sendable, Equatable {
    /// Copied from a source file (by index into the layout's sources) at this offset.
    case source(file: Int, offset: UInt64)
    /// A synthetic payload (a silent audio frame), by index into the layout's payloads.
    case synthetic(payload: Int)
}

/// One output sample, as the tables describe it.
struct TrackSample: Sendable {
    var bytes: SampleBytes
    var size: UInt32
    var decode: Int64
    var composition: Int64
    var isSync: Bool
    /// Index into the output track's sample descriptions.
    var description: Int
    /// Synthetic samples that come before the piece's copied media (audio lead-in, a keyframe
    /// marked as a splice): their chunks are laid out first.
    var isLeadIn: Bool = false
}

/// One piece's samples in one output track, timed relative to the run's first sample (decode
/// time 0) in the output track's ticks, with the edit window the piece shows.
///
/// The samples are kept as spans (a source's consecutive samples, a count of silent frames),
/// each timed by a rule, never one value per sample: a run costs the same memory whether it
/// holds ten samples or a million (see `RunSpan`).
struct TrackRun: Sendable {
    var spans: [RunSpan]
    /// Decode time just after the last sample, before any extension to reach the next piece.
    var decodeEnd: Int64
    /// The window the piece's edit shows, on the run's composition timeline.
    var windowStart: Int64
    var windowLength: Int64

    var windowEnd: Int64 { windowStart + windowLength }
    var count: Int { spans.reduce(0) { $0 + $1.count } }
    var minComposition: Int64 { spans.map(\.minComposition).min() ?? 0 }
    var maxComposition: Int64 { spans.map(\.maxComposition).max() ?? 0 }

    /// Whether every time of the run (decode, composition, window) is within `limit` ticks of its
    /// start, either way.
    func spans(within limit: Int64) -> Bool {
        let (windowEnd, overflow) = windowStart.addingReportingOverflow(windowLength)
        return !overflow && [decodeEnd, windowStart, windowEnd, minComposition, maxComposition].allSatisfy { (-limit...limit).contains($0) }
    }

    /// Lengthens the window by `ticks` (over a following piece that lacks this track). Samples
    /// that were hidden past the window's end (frames copied only because earlier frames
    /// reference them) move out of the way, later by as much, so they stay hidden.
    mutating func extendWindow(by ticks: Int64) {
        guard ticks > 0 else { return }
        let end = windowEnd
        for index in spans.indices { spans[index].delayComposition(from: end, by: ticks) }
        windowLength += ticks
    }

    /// Moves every time in the run later by `ticks` (to make room for samples put in front).
    mutating func shift(by ticks: Int64) {
        for index in spans.indices { spans[index].shift(decode: ticks, composition: ticks) }
        decodeEnd += ticks
        windowStart += ticks
    }

    /// The samples in decode order, one at a time.
    func samples() -> SampleCursor { SampleCursor(spans[...]) }

    /// The first and the last sample, for the description of silence put before or after them
    /// (a span is never empty).
    func firstSample() throws(MediaTimeError) -> TrackSample? { try spans.first?.sample(at: 0) }
    func lastSample() throws(MediaTimeError) -> TrackSample? { try spans.last.map { (span) throws(MediaTimeError) in try span.sample(at: span.count - 1) } }
}

/// Consecutive samples of a run that follow one rule: a source track's samples `first..<end`,
/// silent frames, or one sample given outright. Shifts and window extensions change the rule's
/// parameters, never a sample.
struct RunSpan: Sendable {
    enum Samples: Sendable {
        case source(SourceSamples)
        case silence(SilentFrames)
        case single(TrackSample)
    }

    /// A source's samples, each timed from the source's own: decode `convert(decode - decodeBase)`,
    /// composition `convert(composition - compositionBase)` (or the decode time, for audio laid
    /// back to back).
    struct SourceSamples: Sendable {
        let table: MP4SampleTable
        let file: Int
        let range: Range<Int>
        let convert: TickConverter
        let decodeBase: Int64
        let compositionBase: Int64
        let presentsAtDecodeTime: Bool
        /// The output description of each of the source track's descriptions.
        let descriptions: [Int]
        let sync: SyncRule
    }

    /// Which of a source span's samples are sync samples.
    enum SyncRule: Sendable {
        /// Those the source flags.
        case flagged
        /// Those the source flags that present after this composition time (source ticks): a
        /// picture flagged sync before a piece's window was found not to be a decode start, so it
        /// is unflagged and a player does not start there.
        case flaggedPresentingAfter(Int64)
        /// Every sample (audio laid back to back).
        case all
    }

    /// `count` silent frames, the first decoding at `start`.
    struct SilentFrames: Sendable {
        let silence: SilenceSource
        let start: Int64
        let timescale: Int32
        let isLeadIn: Bool
    }

    /// Samples presenting at or after `from` (in the span's ticks before `compositionShift`) present `by` later.
    struct Delay: Sendable {
        let from: Int64
        let by: Int64
        func apply(_ time: Int64) -> Int64 { time >= from ? time + by : time }
    }

    private(set) var samples: Samples
    let count: Int
    private var decodeShift: Int64 = 0
    private var compositionShift: Int64 = 0
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

    static func single(_ sample: TrackSample) -> RunSpan {
        RunSpan(samples: .single(sample), count: 1, minComposition: sample.composition, maxComposition: sample.composition)
    }

    private init(samples: Samples, count: Int, minComposition: Int64, maxComposition: Int64) {
        self.samples = samples
        self.count = count
        self.minComposition = minComposition
        self.maxComposition = maxComposition
    }

    mutating func shift(decode: Int64, composition: Int64) {
        decodeShift += decode
        compositionShift += composition
        minComposition += composition
        maxComposition += composition
    }

    /// Samples presenting at or after `from` present `by` later (`by` > 0). A delay keeps the
    /// order of composition times, so it maps the span's earliest and latest to the new ones.
    mutating func delayComposition(from: Int64, by ticks: Int64) {
        let delay = Delay(from: from - compositionShift, by: ticks)
        delays.append(delay)
        minComposition = delay.apply(minComposition - compositionShift) + compositionShift
        maxComposition = delay.apply(maxComposition - compositionShift) + compositionShift
    }

    /// The `position`-th sample of the span.
    func sample(at position: Int) throws(MediaTimeError) -> TrackSample {
        var one: [TrackSample] = []
        try samples(position..<position + 1, into: &one)
        return one[0]
    }

    /// Appends the samples at `positions` (in the span) to `buffer`: the span's rule is looked at
    /// once for them all.
    func samples(_ positions: Range<Int>, into buffer: inout [TrackSample]) throws(MediaTimeError) {
        let first = buffer.count
        switch samples {
        case .source(let source):
            let table = source.table
            for index in positions.lowerBound + source.range.lowerBound..<positions.upperBound + source.range.lowerBound {
                let decode = try source.decode(index)
                let isSync = switch source.sync {
                case .flagged: table.isSync(index)
                case .flaggedPresentingAfter(let floor): table.isSync(index) && table.compositionTime(index) > floor
                case .all: true
                }
                buffer.append(TrackSample(
                    bytes: .source(file: source.file, offset: table.offsets[index]), size: table.sizes[index], decode: decode,
                    composition: source.presentsAtDecodeTime ? decode : try source.composition(index),
                    isSync: isSync, description: source.descriptions[Int(table.descriptionIndices[index])]))
            }
        case .silence(let frames):
            for position in positions {
                let time = try frames.decode(Int64(position))
                buffer.append(TrackSample(bytes: .synthetic(payload: frames.silence.payload), size: frames.silence.size, decode: time,
                                          composition: time, isSync: true, description: frames.silence.description, isLeadIn: frames.isLeadIn))
            }
        case .single(let single):
            buffer.append(single)
        }
        for index in first..<buffer.count {
            for delay in delays { buffer[index].composition = delay.apply(buffer[index].composition) }
            buffer[index].decode += decodeShift
            buffer[index].composition += compositionShift
        }
    }
}

extension RunSpan.SourceSamples {
    func decode(_ index: Int) throws(MediaTimeError) -> Int64 { try convert.convert(table.decodeTimes[index] - decodeBase) }

    func composition(_ index: Int) throws(MediaTimeError) -> Int64 {
        presentsAtDecodeTime ? try decode(index) : try convert.convert(table.compositionTime(index) - compositionBase)
    }
}

extension RunSpan.SilentFrames {
    func decode(_ frame: Int64) throws(MediaTimeError) -> Int64 { start + (try silence.offset(ofFrame: frame, timescale: timescale)) }
}

/// Walks spans' samples in order, a block at a time.
struct SampleCursor {
    private let spans: ArraySlice<RunSpan>
    /// The span of the sample `next` returned last.
    private(set) var span: Int
    /// The next position in `span` to read into the block.
    private var position = 0
    private var block: [TrackSample] = []
    private var inBlock = 0
    private static let blockSize = 1024

    init(_ spans: ArraySlice<RunSpan>) {
        self.spans = spans
        span = spans.startIndex
        block.reserveCapacity(Self.blockSize)
    }

    mutating func next() throws(MediaTimeError) -> TrackSample? {
        if inBlock == block.count {
            // Samples of one span per block, so `span` names the block's.
            if !block.isEmpty, position == spans[span].count {
                span += 1
                position = 0
            }
            guard span < spans.endIndex else { return nil }
            let end = min(spans[span].count, position + Self.blockSize)
            block.removeAll(keepingCapacity: true)
            try spans[span].samples(position..<end, into: &block)
            position = end
            inBlock = 0
        }
        defer { inBlock += 1 }
        return block[inBlock]
    }
}

/// Converts tick counts between timescales, rounding to nearest; exact when the target timescale
/// is a multiple of the source's (which the stitcher arranges whenever it can).
struct TickConverter: Sendable {
    let from: Int32
    let to: Int32

    func convert(_ ticks: Int64) throws(MediaTimeError) -> Int64 {
        if from == to { return ticks }
        return try MediaTime.divide(ticks, times: Int64(to), by: Int64(from), rounding: .toNearestOrAwayFromZero)
    }
}

extension MediaTime {
    /// The time as a count of `timescale` ticks.
    func ticks(in timescale: Int32, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) throws(MediaTimeError) -> Int64 {
        try converted(to: timescale, rounding: rule).value
    }
}

/// A silent audio frame and how long it lasts, for filling audio with a given description.
struct SilenceSource: Sendable {
    /// Index of the payload in the layout.
    let payload: Int
    let size: UInt32
    let description: Int
    /// Samples per frame and sample rate: a frame lasts samplesPerFrame / sampleRate seconds.
    let samplesPerFrame: Int64
    let sampleRate: Int32

    /// Decode time of the `index`-th silent frame after a run position, in `timescale` ticks:
    /// cumulative, so rounding never drifts.
    func offset(ofFrame index: Int64, timescale: Int32) throws(MediaTimeError) -> Int64 {
        let (samples, overflow) = index.multipliedReportingOverflow(by: samplesPerFrame)
        guard !overflow else { throw .overflow("\(index) silent frames of \(samplesPerFrame) samples") }
        return try MediaTime.divide(samples, times: Int64(timescale), by: Int64(sampleRate), rounding: .toNearestOrAwayFromZero)
    }

    /// How many frames it takes to cover `ticks`.
    func framesToCover(_ ticks: Int64, timescale: Int32) throws(MediaTimeError) -> Int64 {
        guard ticks > 0 else { return 0 }
        var count = try MediaTime.divide(ticks, times: Int64(sampleRate), by: Int64(timescale) * samplesPerFrame, rounding: .up)
        while try offset(ofFrame: count, timescale: timescale) < ticks { count += 1 }
        return count
    }
}
