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
/// made when the next sample arrives. The one place these rules live: planning makes the entries
/// with it once, and keeps them for writing (`SampleTables`).
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
}

/// Equal consecutive values as runs of at most `UInt32.max`, as `stts` and `ctts` code them.
struct RunLengthCoder<Value: Equatable & Sendable>: Sendable {
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

/// A track's sample tables as planning finds them: what decides their boxes (entry counts, which
/// are written and how), and their entries, kept as LEB128 numbers (a few bytes a sample) until
/// the `moov` is written from them. Writing so never walks the samples again, and the placed
/// tracks need not outlive planning.
struct SampleTables: Sendable {
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
    /// `stts` runs (count, duration), `ctts` runs (count, offset zigzag), `stss` numbers (each
    /// as its step from the one before), `stsz` sizes.
    private var timeToSample = LEB128Pages()
    private var compositionOffsets = LEB128Pages()
    private var syncSampleSteps = LEB128Pages()
    private var sizes = LEB128Pages()
    private var lastSyncSample: UInt32 = 0

    mutating func add(_ entry: SampleTableEntry) {
        if let run = durations.add(entry.duration) { appendDurations(run) }
        if let run = offsets.add(entry.compositionOffset) { appendOffsets(run) }
        hasCompositionOffsets = hasCompositionOffsets || entry.compositionOffset != 0
        hasNegativeCompositionOffsets = hasNegativeCompositionOffsets || entry.compositionOffset < 0
        if entry.isSync {
            syncSamples += 1
            syncSampleSteps.append(UInt64(entry.number - lastSyncSample))
            lastSyncSample = entry.number
        }
        if samples == 0 {
            commonSize = entry.size > 0 ? entry.size : nil
        } else if commonSize != entry.size {
            commonSize = nil
        }
        sizes.append(UInt64(entry.size))
        samples += 1
    }

    mutating func finish() {
        if let run = durations.finish() { appendDurations(run) }
        if let run = offsets.finish() { appendOffsets(run) }
    }

    private mutating func appendDurations(_ run: (count: UInt32, value: UInt32)) {
        timeToSampleEntries += 1
        timeToSample.append(UInt64(run.count))
        timeToSample.append(UInt64(run.value))
    }

    private mutating func appendOffsets(_ run: (count: UInt32, value: Int32)) {
        compositionOffsetEntries += 1
        compositionOffsets.append(UInt64(run.count))
        compositionOffsets.append(zigzag: UInt64(bitPattern: Int64(run.value)))
    }

    /// Every sample is a sync sample: the track needs no `stss`.
    var allSync: Bool { syncSamples == samples }

    /// `stts` entries, in order.
    func forEachTimeToSample<Failure: Error>(_ body: (_ count: UInt32, _ duration: UInt32) throws(Failure) -> Void) throws(Failure) {
        var reader = LEB128Reader(timeToSample)
        while !reader.isAtEnd {
            try body(UInt32(truncatingIfNeeded: reader.number()), UInt32(truncatingIfNeeded: reader.number()))
        }
    }

    /// `ctts` entries, in order.
    func forEachCompositionOffset<Failure: Error>(_ body: (_ count: UInt32, _ offset: Int32) throws(Failure) -> Void) throws(Failure) {
        var reader = LEB128Reader(compositionOffsets)
        while !reader.isAtEnd {
            let count = UInt32(truncatingIfNeeded: reader.number())
            try body(count, Int32(truncatingIfNeeded: Int64(bitPattern: reader.zigzag())))
        }
    }

    /// `stss` sample numbers (1-based), in order.
    func forEachSyncSample<Failure: Error>(_ body: (UInt32) throws(Failure) -> Void) throws(Failure) {
        var reader = LEB128Reader(syncSampleSteps)
        var number: UInt32 = 0
        while !reader.isAtEnd {
            number &+= UInt32(truncatingIfNeeded: reader.number())
            try body(number)
        }
    }

    /// `stsz` sizes, in order.
    func forEachSize<Failure: Error>(_ body: (UInt32) throws(Failure) -> Void) throws(Failure) {
        var reader = LEB128Reader(sizes)
        while !reader.isAtEnd { try body(UInt32(truncatingIfNeeded: reader.number())) }
    }
}
