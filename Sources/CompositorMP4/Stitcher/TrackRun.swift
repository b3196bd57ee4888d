import CompositorCore

/// Where an output sample's bytes come from.
enum SampleBytes: Sendable, Equatable {
    /// Copied from a source file (by index into the layout's sources) at this offset.
    case source(file: Int, offset: UInt64)
    /// A synthetic payload (a silent audio frame), by index into the layout's payloads.
    case synthetic(payload: Int)
    /// A synthetic payload (a keyframe's parameter sets, carried in-band), then the rest copied
    /// from a source file at this offset.
    case prefixed(payload: Int, file: Int, offset: UInt64)

    /// Where the bytes copied from a source start, for the sample's own (not a prefix's).
    var sourcePosition: (file: Int, offset: UInt64)? {
        switch self {
        case .source(let file, let offset), .prefixed(_, let file, let offset): (file, offset)
        case .synthetic: nil
        }
    }
}

/// One output sample, as the tables describe it.
struct TrackSample: Sendable {
    // In this order, the flags fill the bytes' padding: a span holding a sample stays small.
    var bytes: SampleBytes
    var isSync: Bool
    /// Synthetic samples that come before the piece's copied media (audio lead-in, a keyframe
    /// marked as a splice): their chunks are laid out first.
    var isLeadIn: Bool
    var size: UInt32
    var decode: Int64
    var composition: Int64
    /// Index into the output track's sample descriptions.
    var description: Int

    init(bytes: SampleBytes, size: UInt32, decode: Int64, composition: Int64, isSync: Bool, description: Int, isLeadIn: Bool = false) {
        self.bytes = bytes
        self.isSync = isSync
        self.isLeadIn = isLeadIn
        self.size = size
        self.decode = decode
        self.composition = composition
        self.description = description
    }

    /// Puts `parameterSets` before the bytes of a sample copied from a source.
    mutating func carry(_ parameterSets: InBandParameterSets) throws(MediaTimeError) {
        guard case .source(let file, let offset) = bytes else { return }
        let (total, overflow) = size.addingReportingOverflow(parameterSets.length)
        guard !overflow else { throw .overflow("a \(size)-byte sample with its parameter sets in-band is past 4 GiB") }
        bytes = .prefixed(payload: parameterSets.payload, file: file, offset: offset)
        size = total
    }
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
        for index in spans.indices { spans[index].shift(by: ticks) }
        decodeEnd += ticks
        windowStart += ticks
    }

    /// The samples in decode order, one at a time.
    func samples() -> SampleCursor { SampleCursor([PlacedRun(spans, start: 0, piece: 0)], compositionShift: 0) }

    /// The first and the last sample, for the description of silence put before or after them
    /// (a span is never empty).
    func firstSample() throws(MediaTimeError) -> TrackSample? { try spans.first?.sample(at: 0) }
    func lastSample() throws(MediaTimeError) -> TrackSample? { try spans.last.map { (span) throws(MediaTimeError) in try span.sample(at: span.count - 1) } }
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
