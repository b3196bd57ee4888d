import CompositorCore

/// Every sample of a track, in decode order: where its bytes are, when it decodes and presents,
/// whether it is a sync sample (keyframe), which sample description it uses.
///
/// Kept compact, a few bytes a sample: sizes as `UInt32`; offsets as their low 32 bits with the
/// high bits in runs; decode times and durations as runs of equal durations (`stts` entries);
/// description indices as runs; sync samples as a list (`stss`); composition offsets per sample
/// only when the track has any. The columns read as collections (`offsets[i]`, `durations[i]`),
/// each lookup a binary search over its runs, which a regular source has a handful of.
package struct MP4SampleTable: Sendable {
    /// The columns, shared by every copy: a table is held by each source track, timeline and
    /// run span made from it (20,000 pieces of one source held it 40,000 times).
    private final class Storage: Sendable {
        let offsets: SampleOffsets
        let sizes: [UInt32]
        let decodeTimes: SampleDecodeTimes
        let compositionOffsets: [Int32]
        let descriptionIndices: SampleDescriptionIndices
        let syncSamples: [UInt32]?
        let smallestCompositionOffset: Int64

        /// No composition offsets when all are 0, no sync list when it lists every sample (as
        /// `ctts` and `stss` are left out).
        init(offsets: SampleOffsets, sizes: [UInt32], decodeTimes: SampleDecodeTimes, compositionOffsets: [Int32],
             descriptionIndices: SampleDescriptionIndices, syncSamples: [UInt32]?) {
            self.offsets = offsets
            self.sizes = sizes
            self.decodeTimes = decodeTimes
            self.compositionOffsets = compositionOffsets.allSatisfy { $0 == 0 } ? [] : compositionOffsets
            self.descriptionIndices = descriptionIndices
            self.syncSamples = syncSamples?.count == sizes.count ? nil : syncSamples
            smallestCompositionOffset = compositionOffsets.min().map(Int64.init) ?? 0
        }
    }
    private let storage: Storage

    /// File offset of each sample's first byte.
    package var offsets: SampleOffsets { storage.offsets }
    package var sizes: [UInt32] { storage.sizes }
    /// Decode time of each sample, in media timescale ticks, from 0.
    package var decodeTimes: SampleDecodeTimes { storage.decodeTimes }
    /// Composition minus decode time per sample; empty when the track has no `ctts`.
    package var compositionOffsets: [Int32] { storage.compositionOffsets }
    /// 0-based index into the track's sample descriptions, per sample.
    package var descriptionIndices: SampleDescriptionIndices { storage.descriptionIndices }
    /// The sync samples' indices, ascending; `nil` when every sample is one (no `stss`).
    private var syncSamples: [UInt32]? { storage.syncSamples }
    /// The smallest composition offset (0 without any): decode times only grow, so once a
    /// sample's decode time plus this reaches a time, no later sample presents before it.
    package var smallestCompositionOffset: Int64 { storage.smallestCompositionOffset }

    /// Decode duration of each sample, in ticks.
    package var durations: SampleDurations { SampleDurations(decodeTimes: decodeTimes) }

    init(offsets: [UInt64], sizes: [UInt32], decodeTimes: [Int64], durations: [UInt32],
         compositionOffsets: [Int32], descriptionIndices: [UInt16], syncFlags: [Bool]?) {
        storage = Storage(offsets: SampleOffsets(offsets), sizes: sizes,
                          decodeTimes: SampleDecodeTimes(decodeTimes: decodeTimes, durations: durations),
                          compositionOffsets: compositionOffsets, descriptionIndices: SampleDescriptionIndices(descriptionIndices),
                          syncSamples: syncFlags.map { flags in flags.indices.filter { flags[$0] }.map { UInt32($0) } })
    }

    /// A table from per-sample values, kept compact (see `Storage`).
    init(offsets: [UInt64], sizes: [UInt32], decodeTimes: [Int64], durations: [UInt32],
         compositionOffsetPerSample: [Int32], descriptionIndices: [UInt16], syncPerSample: [Bool]) {
        self.init(offsets: offsets, sizes: sizes, decodeTimes: decodeTimes, durations: durations,
                  compositionOffsets: compositionOffsetPerSample, descriptionIndices: descriptionIndices, syncFlags: syncPerSample)
    }

    /// A table from columns already compact (as `MP4Reader` builds them from `stbl`, never
    /// holding a value per sample that the table does not keep).
    init(offsets: SampleOffsets, sizes: [UInt32], decodeTimes: SampleDecodeTimes, compositionOffsets: [Int32],
         descriptionIndices: SampleDescriptionIndices, syncSamples: [UInt32]?) {
        storage = Storage(offsets: offsets, sizes: sizes, decodeTimes: decodeTimes, compositionOffsets: compositionOffsets,
                          descriptionIndices: descriptionIndices, syncSamples: syncSamples)
    }

    private init(storage: Storage) { self.storage = storage }

    package var count: Int { sizes.count }

    /// The same samples, `distance` bytes further on in their store.
    func movingOffsets(by distance: UInt64) -> MP4SampleTable {
        MP4SampleTable(storage: Storage(offsets: SampleOffsets(offsets.map { $0 + distance }), sizes: sizes, decodeTimes: decodeTimes,
                                        compositionOffsets: compositionOffsets, descriptionIndices: descriptionIndices,
                                        syncSamples: syncSamples))
    }

    /// The same samples presenting at their decode times plus `compositionOffsets` (one per sample).
    func replacingCompositionOffsets(with compositionOffsets: [Int32]) -> MP4SampleTable {
        MP4SampleTable(storage: Storage(offsets: offsets, sizes: sizes, decodeTimes: decodeTimes,
                                        compositionOffsets: compositionOffsets, descriptionIndices: descriptionIndices,
                                        syncSamples: syncSamples))
    }

    /// The sync samples' indices, ascending: every sample's when all are sync.
    var syncSampleIndices: [Int] { syncSamples.map { $0.map(Int.init) } ?? Array(0..<count) }

    package func isSync(_ index: Int) -> Bool {
        guard let syncSamples else { return true }
        let position = syncSamples.partitioningIndex { Int($0) >= index }
        return position < syncSamples.count && Int(syncSamples[position]) == index
    }

    package func compositionOffset(_ index: Int) -> Int64 {
        compositionOffsets.isEmpty ? 0 : Int64(compositionOffsets[index])
    }

    /// Composition (presentation, before the edit list) time of a sample, in ticks.
    package func compositionTime(_ index: Int) -> Int64 { decodeTimes[index] + compositionOffset(index) }

    /// The first sample for which `predicate` holds, where it is false and then true along the
    /// presentation order (a sample's time reaching a point): a binary search when samples present
    /// in decode order (no composition offsets), a scan otherwise.
    package func firstSample(where predicate: (Int) -> Bool) -> Int? {
        guard compositionOffsets.isEmpty else { return (0..<count).first(where: predicate) }
        let found = (0..<count).partitioningIndex(where: predicate)
        return found < count ? found : nil
    }

    /// The last sample for which `predicate` holds, where it is true and then false along the
    /// presentation order (a sample's time before a point): searched as `firstSample(where:)`.
    package func lastSample(where predicate: (Int) -> Bool) -> Int? {
        guard compositionOffsets.isEmpty else { return (0..<count).last(where: predicate) }
        let end = (0..<count).partitioningIndex { !predicate($0) }
        return end > 0 ? end - 1 : nil
    }

    /// Decode time just after the last sample: the media's length in ticks.
    package var decodeEnd: Int64 {
        guard count > 0 else { return 0 }
        return decodeTimes[count - 1] + Int64(durations[count - 1])
    }
}

extension MP4SampleTable {
    /// One sample as the table has it.
    struct Sample {
        var offset: UInt64
        var size: UInt32
        var decodeTime: Int64
        var compositionOffset: Int64
        var isSync: Bool
        var descriptionIndex: UInt16

        var compositionTime: Int64 { decodeTime + compositionOffset }
    }

    /// Samples `range` in order, each column's run found once: looking each sample up on its own
    /// searches every column's runs again.
    struct Walk {
        private let table: MP4SampleTable
        private var index: Int
        private let end: Int
        private var decodeRun: Int
        private var highRun: Int
        private var descriptionRun: Int
        /// The first sync sample at or after `index`, in the sync list.
        private var nextSync: Int

        init(_ table: MP4SampleTable, _ range: Range<Int>) {
            self.table = table
            index = range.lowerBound
            end = range.upperBound
            let first = range.lowerBound
            decodeRun = max(0, table.decodeTimes.runs.partitioningIndex { $0.first > first } - 1)
            highRun = max(0, table.offsets.high.partitioningIndex { $0.first > first } - 1)
            descriptionRun = max(0, table.descriptionIndices.runs.partitioningIndex { $0.first > first } - 1)
            nextSync = table.syncSamples?.partitioningIndex { Int($0) >= first } ?? 0
        }

        mutating func next() -> Sample? {
            guard index < end else { return nil }
            defer { index += 1 }
            let runs = table.decodeTimes.runs
            while decodeRun + 1 < runs.count, runs[decodeRun + 1].first <= index { decodeRun += 1 }
            let high = table.offsets.high
            while highRun + 1 < high.count, high[highRun + 1].first <= index { highRun += 1 }
            let descriptions = table.descriptionIndices.runs
            while descriptionRun + 1 < descriptions.count, descriptions[descriptionRun + 1].first <= index { descriptionRun += 1 }
            var isSync = true
            if let sync = table.syncSamples {
                isSync = nextSync < sync.count && Int(sync[nextSync]) == index
                if isSync { nextSync += 1 }
            }
            let run = runs[decodeRun]
            return Sample(offset: UInt64(high[highRun].bits) << 32 | UInt64(table.offsets.low[index]), size: table.sizes[index],
                          decodeTime: run.start &+ Int64(index - run.first) &* Int64(run.duration),
                          compositionOffset: table.compositionOffset(index), isSync: isSync,
                          descriptionIndex: descriptions[descriptionRun].index)
        }
    }

    func walk(_ range: Range<Int>) -> Walk { Walk(self, range) }
}

/// The run that covers sample `index`, among runs that start at ascending samples (the first at 0).
private func run<Run>(_ runs: [Run], covering index: Int, first: (Run) -> Int) -> Run {
    runs[runs.partitioningIndex { first($0) > index } - 1]
}

/// Each sample's file offset: the low 32 bits per sample, the high bits in runs (they change
/// only every 4 GiB of a file read in order).
package struct SampleOffsets: RandomAccessCollection, Sendable {
    fileprivate private(set) var low: [UInt32] = []
    fileprivate private(set) var high: [(first: Int, bits: UInt32)] = []

    init(_ offsets: [UInt64]) {
        reserveCapacity(offsets.count)
        for offset in offsets { append(offset) }
    }

    init() {}

    mutating func reserveCapacity(_ count: Int) { low.reserveCapacity(count) }

    mutating func append(_ offset: UInt64) {
        let bits = UInt32(truncatingIfNeeded: offset >> 32)
        if high.last?.bits != bits { high.append((low.count, bits)) }
        low.append(UInt32(truncatingIfNeeded: offset))
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { low.count }
    package subscript(index: Int) -> UInt64 {
        let bits = high.count == 1 ? high[0].bits : run(high, covering: index, first: \.first).bits
        return UInt64(bits) << 32 | UInt64(low[index])
    }
}

/// Decode times and durations as runs: consecutive samples of one duration, each decoding where
/// the one before ends (an `stts` entry, or a stretch of a transport stream's frames).
package struct SampleDecodeTimes: RandomAccessCollection, Sendable, Equatable {
    fileprivate struct Run: Sendable, Equatable {
        let first: Int
        let start: Int64
        let duration: UInt32
    }
    fileprivate let runs: [Run]
    package let count: Int

    init(decodeTimes: [Int64], durations: [UInt32]) {
        var runs: [Run] = []
        for index in decodeTimes.indices {
            if let last = runs.last, durations[index] == last.duration,
               decodeTimes[index] == decodeTimes[index - 1] &+ Int64(durations[index - 1]) { continue }
            runs.append(Run(first: index, start: decodeTimes[index], duration: durations[index]))
        }
        self.runs = runs
        count = decodeTimes.count
    }

    /// Runs straight from `stts` entries, the first decoding at 0 (the caller has checked that
    /// the last ends within 64 bits): nothing per sample.
    init(timeToSample entries: [TimeToSampleBox.Entry]) {
        var runs: [Run] = []
        var count = 0
        var start: Int64 = 0
        for entry in entries where entry.count > 0 {
            if runs.last?.duration != entry.delta { runs.append(Run(first: count, start: start, duration: entry.delta)) }
            count += Int(entry.count)
            start &+= Int64(entry.count) &* Int64(entry.delta)
        }
        self.runs = runs
        self.count = count
    }

    /// Consecutive samples of one duration, in order: each run's duration and sample count.
    var durationRuns: [(duration: UInt32, count: Int)] {
        runs.indices.map { index in
            (runs[index].duration, (index + 1 < runs.count ? runs[index + 1].first : count) - runs[index].first)
        }
    }

    fileprivate func run(covering index: Int) -> Run {
        runs.count == 1 ? runs[0] : CompositorMP4.run(runs, covering: index, first: \.first)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    /// Exact: every time of a run was a decode time the source had, so none overflows.
    package subscript(index: Int) -> Int64 {
        let run = run(covering: index)
        return run.start &+ Int64(index - run.first) &* Int64(run.duration)
    }
}

/// Each sample's decode duration, from the decode time runs.
package struct SampleDurations: RandomAccessCollection, Sendable, Equatable {
    let decodeTimes: SampleDecodeTimes
    package var startIndex: Int { 0 }
    package var endIndex: Int { decodeTimes.count }
    package subscript(index: Int) -> UInt32 { decodeTimes.run(covering: index).duration }

    package static func == (a: SampleDurations, b: SampleDurations) -> Bool { a.elementsEqual(b) }
}

/// Each sample's description index, as runs of one index.
package struct SampleDescriptionIndices: RandomAccessCollection, Sendable {
    fileprivate private(set) var runs: [(first: Int, index: UInt16)] = []
    package private(set) var count = 0

    init(_ indices: [UInt16]) {
        for index in indices { append(index, count: 1) }
    }

    init() {}

    /// Appends `count` samples of description `index`.
    mutating func append(_ index: UInt16, count: Int) {
        guard count > 0 else { return }
        if runs.last?.index != index { runs.append((self.count, index)) }
        self.count += count
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    package subscript(sample: Int) -> UInt16 { runs.count == 1 ? runs[0].index : run(runs, covering: sample, first: \.first).index }
}
