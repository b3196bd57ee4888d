import CompositorCore

/// Every sample of a track, in decode order: where its bytes are, when it decodes and presents,
/// whether it is a sync sample (keyframe), which sample description it uses.
///
/// Expanded from the run-length tables of `stbl` (stts, ctts, stss, stsc, stsz, stco), with every
/// count checked against the others.
package struct MP4SampleTable: Sendable {
    /// File offset of each sample's first byte.
    package let offsets: [UInt64]
    package let sizes: [UInt32]
    /// Decode time of each sample, in media timescale ticks, from 0.
    package let decodeTimes: [Int64]
    /// Decode duration of each sample, in ticks.
    package let durations: [UInt32]
    /// Composition minus decode time per sample; empty when the track has no `ctts`.
    package let compositionOffsets: [Int32]
    /// 0-based index into the track's sample descriptions, per sample.
    package let descriptionIndices: [UInt16]
    /// Whether each sample is a sync sample; `nil` when every sample is (no `stss`).
    private let syncFlags: [Bool]?
    /// The smallest composition offset (0 without any): decode times only grow, so once a
    /// sample's decode time plus this reaches a time, no later sample presents before it.
    package let smallestCompositionOffset: Int64

    init(offsets: [UInt64], sizes: [UInt32], decodeTimes: [Int64], durations: [UInt32],
         compositionOffsets: [Int32], descriptionIndices: [UInt16], syncFlags: [Bool]?) {
        self.offsets = offsets
        self.sizes = sizes
        self.decodeTimes = decodeTimes
        self.durations = durations
        self.compositionOffsets = compositionOffsets
        self.descriptionIndices = descriptionIndices
        self.syncFlags = syncFlags
        smallestCompositionOffset = compositionOffsets.min().map(Int64.init) ?? 0
    }

    /// A table from per-sample values, kept compact: no composition offsets when all are 0, no
    /// sync flags when every sample is one (as `ctts` and `stss` are left out).
    init(offsets: [UInt64], sizes: [UInt32], decodeTimes: [Int64], durations: [UInt32],
         compositionOffsetPerSample: [Int32], descriptionIndices: [UInt16], syncPerSample: [Bool]) {
        self.init(offsets: offsets, sizes: sizes, decodeTimes: decodeTimes, durations: durations,
                  compositionOffsets: compositionOffsetPerSample.allSatisfy { $0 == 0 } ? [] : compositionOffsetPerSample,
                  descriptionIndices: descriptionIndices, syncFlags: syncPerSample.allSatisfy { $0 } ? nil : syncPerSample)
    }

    package var count: Int { sizes.count }

    /// The same samples, `distance` bytes further on in their store.
    func movingOffsets(by distance: UInt64) -> MP4SampleTable {
        MP4SampleTable(offsets: offsets.map { $0 + distance }, sizes: sizes, decodeTimes: decodeTimes, durations: durations,
                       compositionOffsets: compositionOffsets, descriptionIndices: descriptionIndices, syncFlags: syncFlags)
    }

    /// Whether every sample is a sync sample (the track has no `stss`).
    package var allSamplesAreSync: Bool { syncFlags == nil }

    package func isSync(_ index: Int) -> Bool { syncFlags?[index] ?? true }

    package func compositionOffset(_ index: Int) -> Int64 {
        compositionOffsets.isEmpty ? 0 : Int64(compositionOffsets[index])
    }

    /// Composition (presentation, before the edit list) time of a sample, in ticks.
    package func compositionTime(_ index: Int) -> Int64 { decodeTimes[index] + compositionOffset(index) }

    /// Decode time just after the last sample: the media's length in ticks.
    package var decodeEnd: Int64 {
        guard let last = decodeTimes.last else { return 0 }
        return last + Int64(durations[durations.count - 1])
    }
}
