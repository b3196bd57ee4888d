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

        init(offsets: SampleOffsets, sizes: [UInt32], decodeTimes: SampleDecodeTimes, compositionOffsets: [Int32],
             descriptionIndices: SampleDescriptionIndices, syncSamples: [UInt32]?) {
            self.offsets = offsets
            self.sizes = sizes
            self.decodeTimes = decodeTimes
            self.compositionOffsets = compositionOffsets
            self.descriptionIndices = descriptionIndices
            self.syncSamples = syncSamples
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

    /// A table from per-sample values, kept compact: no composition offsets when all are 0, no
    /// sync flags when every sample is one (as `ctts` and `stss` are left out).
    init(offsets: [UInt64], sizes: [UInt32], decodeTimes: [Int64], durations: [UInt32],
         compositionOffsetPerSample: [Int32], descriptionIndices: [UInt16], syncPerSample: [Bool]) {
        self.init(offsets: offsets, sizes: sizes, decodeTimes: decodeTimes, durations: durations,
                  compositionOffsets: compositionOffsetPerSample.allSatisfy { $0 == 0 } ? [] : compositionOffsetPerSample,
                  descriptionIndices: descriptionIndices, syncFlags: syncPerSample.allSatisfy { $0 } ? nil : syncPerSample)
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
                                        compositionOffsets: compositionOffsets.allSatisfy { $0 == 0 } ? [] : compositionOffsets,
                                        descriptionIndices: descriptionIndices, syncSamples: syncSamples))
    }

    /// Whether every sample is a sync sample (the track has no `stss`).
    package var allSamplesAreSync: Bool { syncSamples == nil }

    package func isSync(_ index: Int) -> Bool {
        guard let syncSamples else { return true }
        let position = syncSamples.partitioningIndex { Int($0) >= index }
        return position < syncSamples.count && Int(syncSamples[position]) == index
    }

    /// The sync samples' indices, ascending.
    package var syncSampleIndices: [Int] { syncSamples.map { $0.map(Int.init) } ?? Array(0..<count) }

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

/// The run that covers sample `index`, among runs that start at ascending samples (the first at 0).
private func run<Run>(_ runs: [Run], covering index: Int, first: (Run) -> Int) -> Run {
    runs[runs.partitioningIndex { first($0) > index } - 1]
}

/// Each sample's file offset: the low 32 bits per sample, the high bits in runs (they change
/// only every 4 GiB of a file read in order).
package struct SampleOffsets: RandomAccessCollection, Sendable {
    private let low: [UInt32]
    private let high: [(first: Int, bits: UInt32)]

    init(_ offsets: [UInt64]) {
        low = offsets.map { UInt32(truncatingIfNeeded: $0) }
        var high: [(first: Int, bits: UInt32)] = []
        for (index, offset) in offsets.enumerated() where high.last?.bits != UInt32(offset >> 32) {
            high.append((index, UInt32(offset >> 32)))
        }
        self.high = high
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
    private let runs: [(first: Int, index: UInt16)]
    package let count: Int

    init(_ indices: [UInt16]) {
        var runs: [(first: Int, index: UInt16)] = []
        for (sample, index) in indices.enumerated() where runs.last?.index != index { runs.append((sample, index)) }
        self.runs = runs
        count = indices.count
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    package subscript(sample: Int) -> UInt16 { runs.count == 1 ? runs[0].index : run(runs, covering: sample, first: \.first).index }
}
