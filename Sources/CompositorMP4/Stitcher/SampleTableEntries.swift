import CompositorCore

/// One output sample as its track's tables give it.
struct SampleTableEntry {
    /// 1-based, as `stss` numbers samples.
    var number: UInt32
    var duration: UInt32
    var compositionOffset: Int32
    var isSync: Bool
    var size: UInt32
}

/// A placed track's samples turned into table entries, in decode order. A sample's duration is the
/// gap to the next sample's decode time (the last one's, to the media's end), so each entry is
/// made when the next sample arrives. The one place these rules live: planning counts the entries
/// with it, writing writes them.
struct SampleTableEntryMaker {
    let kind: TrackKind
    let timescale: Int32
    let mediaEnd: Int64
    /// The file errors name.
    let file: String
    private var previous: TrackSample?
    private var number: UInt32 = 0

    init(_ track: PlacedTrack, file: String) {
        kind = track.kind
        timescale = track.timescale
        mediaEnd = track.mediaEnd
        self.file = file
    }

    /// Takes the next sample; returns the entry of the one before it.
    mutating func add(_ sample: TrackSample) throws(MP4Error) -> SampleTableEntry? {
        defer { previous = sample }
        guard let previous else { return nil }
        return try entry(previous, nextDecode: sample.decode)
    }

    /// The last sample's entry, after every sample was added.
    mutating func finish() throws(MP4Error) -> SampleTableEntry? {
        guard let last = previous else { return nil }
        previous = nil
        return try entry(last, nextDecode: mediaEnd)
    }

    private mutating func entry(_ sample: TrackSample, nextDecode: Int64) throws(MP4Error) -> SampleTableEntry {
        number += 1
        let (duration, overflow) = nextDecode.subtractingReportingOverflow(sample.decode)
        guard !overflow, let duration = UInt32(exactly: duration) else {
            throw .timeOverflow(file: file, reason: "a \(kind) sample would last \(nextDecode &- sample.decode) ticks of 1/\(timescale) s, outside 0...\(UInt32.max)")
        }
        let (offset, offsetOverflow) = sample.composition.subtractingReportingOverflow(sample.decode)
        guard !offsetOverflow, let offset = Int32(exactly: offset) else {
            throw .timeOverflow(file: file, reason: "a composition offset of \(sample.composition &- sample.decode) ticks does not fit 32 bits")
        }
        return SampleTableEntry(number: number, duration: duration, compositionOffset: offset, isSync: sample.isSync, size: sample.size)
    }

    /// Every entry of `track`, in order.
    static func forEach(of track: PlacedTrack, file: String, _ body: (SampleTableEntry) throws(MP4Error) -> Void) throws(MP4Error) {
        var maker = SampleTableEntryMaker(track, file: file)
        var samples = track.samples()
        while let sample = try exact(file, { () throws(MediaTimeError) in try samples.next() }) {
            if let entry = try maker.add(sample) { try body(entry) }
        }
        if let entry = try maker.finish() { try body(entry) }
    }
}

/// Equal consecutive values as runs of at most `UInt32.max`, as `stts` and `ctts` code them.
struct RunLengthCoder<Value: Equatable> {
    private var run: (count: UInt32, value: Value)?

    /// Takes a value; returns the run it ends, if it ends one.
    mutating func add(_ value: Value) -> (count: UInt32, value: Value)? {
        if let current = run, current.value == value, current.count < UInt32.max {
            run = (current.count + 1, value)
            return nil
        }
        defer { run = (1, value) }
        return run
    }

    /// The last run, after every value was added.
    mutating func finish() -> (count: UInt32, value: Value)? {
        defer { run = nil }
        return run
    }
}

/// What decides a track's table boxes: their entry counts, and which are written and how, gathered
/// from every entry while planning.
struct SampleTableCounts {
    private(set) var samples = 0
    private(set) var timeToSampleEntries = 0
    private(set) var compositionOffsetEntries = 0
    /// A sample presents away from its decode time: the track needs `ctts`.
    private(set) var hasCompositionOffsets = false
    /// `ctts` version 1 (signed offsets).
    private(set) var hasNegativeCompositionOffsets = false
    private(set) var syncSamples = 0
    /// The size every sample has, when they all have one (and it is not 0): `stsz` lists none.
    private(set) var commonSize: UInt32?
    private var durations = RunLengthCoder<UInt32>()
    private var offsets = RunLengthCoder<Int32>()

    mutating func add(_ entry: SampleTableEntry) {
        if durations.add(entry.duration) != nil { timeToSampleEntries += 1 }
        if offsets.add(entry.compositionOffset) != nil { compositionOffsetEntries += 1 }
        hasCompositionOffsets = hasCompositionOffsets || entry.compositionOffset != 0
        hasNegativeCompositionOffsets = hasNegativeCompositionOffsets || entry.compositionOffset < 0
        if entry.isSync { syncSamples += 1 }
        if samples == 0 {
            commonSize = entry.size > 0 ? entry.size : nil
        } else if commonSize != entry.size {
            commonSize = nil
        }
        samples += 1
    }

    mutating func finish() {
        if durations.finish() != nil { timeToSampleEntries += 1 }
        if offsets.finish() != nil { compositionOffsetEntries += 1 }
    }

    /// Every sample is a sync sample: the track needs no `stss`.
    var allSync: Bool { syncSamples == samples }
}
