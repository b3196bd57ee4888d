import CompositorCore

/// An output track with every sample at its final time: what the `trak` box will describe.
struct PlacedTrack: Sendable {
    var kind: TrackKind
    var timescale: Int32
    var descriptions: [MP4SampleDescription]
    /// The samples in decode order, as spans at their output times (`decode` and `composition`
    /// are absolute output ticks).
    private(set) var spans: [RunSpan] = []
    /// The piece each span belongs to, parallel to `spans`.
    private(set) var pieceOfSpan: [Int] = []
    private(set) var sampleCount = 0
    /// Decode time at which the track's media ends (the last sample's decode time + duration).
    var mediaEnd: Int64 = 0
    var edits: [MP4EditListEntry] = []
    /// Decode time at which each placed run starts, in run order.
    private(set) var runStarts: [Int64] = []
    /// Presentation before the media starts, in track ticks (keyframe-aligned video that starts
    /// after the first piece); shown as an empty edit.
    var presentationDelay: Int64 = 0
    /// How the pictures are shown: the sources' (which are all alike).
    var displayMatrix: DisplayMatrix = .identity

    init(kind: TrackKind, timescale: Int32, descriptions: [MP4SampleDescription]) {
        self.kind = kind
        self.timescale = timescale
        self.descriptions = descriptions
    }

    /// Room for `count` more spans: a track of 10,000 breaks has 100,000, which grown by
    /// doubling would hold two copies at once.
    mutating func reserveCapacity(spans count: Int) {
        spans.reserveCapacity(spans.count + count)
        pieceOfSpan.reserveCapacity(pieceOfSpan.count + count)
    }

    /// Appends a run placed at decode time `start`.
    mutating func append(_ run: TrackRun, at start: Int64, piece: Int) {
        for var span in run.spans {
            span.shift(decode: start, composition: start)
            spans.append(span)
            pieceOfSpan.append(piece)
            sampleCount += span.count
        }
        runStarts.append(start)
    }

    /// The samples in decode order, one at a time.
    func samples() -> SampleCursor { SampleCursor(spans[...]) }

    var minComposition: Int64? { spans.map(\.minComposition).min() }

    /// The piece that sample `index` belongs to.
    func piece(ofSample index: Int) -> Int? {
        var first = 0
        for (span, piece) in zip(spans, pieceOfSpan) {
            if index < first + span.count { return piece }
            first += span.count
        }
        return nil
    }

    /// Moves every time of the track (samples, runs, media end) by `ticks`.
    mutating func shift(by ticks: Int64) {
        for index in spans.indices { spans[index].shift(decode: ticks, composition: ticks) }
        runStarts = runStarts.map { $0 + ticks }
        mediaEnd += ticks
    }

    /// Moves every composition time (and media edit) later by `shift`, so that no composition
    /// offset and no edit media time is negative.
    mutating func shiftComposition(by shift: Int64) {
        guard shift != 0 else { return }
        for index in spans.indices { spans[index].shift(decode: 0, composition: shift) }
        for index in edits.indices where edits[index].mediaTime != nil { edits[index].mediaTime! += shift }
    }

    /// The largest amount by which a sample decodes after it presents (0 without any).
    func largestDecodeLead() throws(MediaTimeError) -> Int64 {
        var cursor = samples()
        var lead: Int64 = 0
        while let sample = try cursor.next() { lead = max(lead, sample.decode - sample.composition) }
        return lead
    }
}
