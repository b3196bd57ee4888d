import CompositorCore

/// An output track with every sample at its final time: what the `trak` box will describe.
struct PlacedTrack: Sendable {
    var kind: TrackKind
    var timescale: Int32
    var descriptions: [MP4SampleDescription]
    /// The pieces' runs in decode order, each placed at its start: a sample's output time is its
    /// time in the run plus the run's `start` (and `compositionShift` for composition). The runs
    /// share their spans with the layout that built them: placing copies none.
    private(set) var runs: [PlacedRun] = []
    /// Added to every composition time (see `shiftComposition`).
    private(set) var compositionShift: Int64 = 0
    private(set) var sampleCount = 0
    /// Decode time at which the track's media ends (the last sample's decode time + duration).
    var mediaEnd: Int64 = 0
    var edits: [MP4EditListEntry] = []
    /// Decode time at which each placed run starts, in run order.
    var runStarts: [Int64] { runs.map(\.start) }
    /// Presentation before the media starts, in track ticks (keyframe-aligned video that starts
    /// after the first piece); shown as an empty edit.
    var presentationDelay: Int64 = 0
    /// Media before the first sample's presentation that the edit hides, in track ticks
    /// (keyframe-aligned Opus: its `PreSkip`, which its decoder discards).
    var hiddenLead: Int64 = 0
    /// How the pictures are shown: the sources' (which are all alike).
    var displayMatrix: DisplayMatrix = .identity

    init(kind: TrackKind, timescale: Int32, descriptions: [MP4SampleDescription]) {
        self.kind = kind
        self.timescale = timescale
        self.descriptions = descriptions
    }

    /// Room for `count` more runs (a run per piece: 30,000 for 10,000 breaks).
    mutating func reserveCapacity(runs count: Int) { runs.reserveCapacity(runs.count + count) }

    /// Appends a run placed at decode time `start`.
    mutating func append(_ run: TrackRun, at start: Int64, piece: Int) {
        let placed = PlacedRun(run.spans, start: start, piece: piece)
        runs.append(placed)
        sampleCount += placed.sampleCount
    }

    /// The samples in decode order, one at a time.
    func samples() -> SampleCursor { SampleCursor(runs, compositionShift: compositionShift) }

    var minComposition: Int64? {
        runs.compactMap { run in run.minComposition.map { $0 + run.start } }.min().map { $0 + compositionShift }
    }

    /// The piece that sample `index` belongs to.
    func piece(ofSample index: Int) -> Int? {
        var first = 0
        for run in runs {
            if index < first + run.sampleCount { return run.piece }
            first += run.sampleCount
        }
        return nil
    }

    /// Moves every time of the track (samples, runs, media end) by `ticks`.
    mutating func shift(by ticks: Int64) {
        for index in runs.indices { runs[index].start += ticks }
        mediaEnd += ticks
    }

    /// Moves every composition time (and media edit) later by `shift`, so that no composition
    /// offset and no edit media time is negative.
    mutating func shiftComposition(by shift: Int64) {
        guard shift != 0 else { return }
        compositionShift += shift
        for index in edits.indices where edits[index].mediaTime != nil { edits[index].mediaTime! += shift }
    }

    /// The largest amount by which a sample decodes after it presents (0 without any).
    func largestDecodeLead() throws(MediaTimeError) -> Int64 {
        var lead: Int64 = 0
        for run in runs {
            for span in run.spans {
                if let spanLead = try span.largestDecodeLead() { lead = max(lead, spanLead - compositionShift) }
            }
        }
        return lead
    }
}

/// A run's spans placed in an output track: each sample's times plus `start`.
struct PlacedRun: Sendable {
    let spans: [RunSpan]
    var start: Int64
    /// The piece the run belongs to.
    let piece: Int
    let sampleCount: Int
    /// The earliest composition time before `start` is added; `nil` for no samples.
    let minComposition: Int64?

    init(_ spans: [RunSpan], start: Int64, piece: Int) {
        self.spans = spans
        self.start = start
        self.piece = piece
        sampleCount = spans.reduce(0) { $0 + $1.count }
        minComposition = spans.map(\.minComposition).min()
    }
}
