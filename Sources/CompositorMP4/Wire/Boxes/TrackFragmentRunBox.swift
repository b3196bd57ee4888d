import CompositorCore

/// `trun`: the samples of a track fragment run (ISO/IEC 14496-12, 8.8.8), each with its duration,
/// size, flags and composition offset; written with every per-sample field present. Version 1
/// (signed composition offsets) only when an offset is negative.
struct TrackFragmentRunBox: MP4WritableBox, Equatable {
    static let type: FourCC = "trun"

    /// `sample_depends_on` 2 (depends on no other sample): a sync sample.
    static let syncSampleFlags: UInt32 = 0x0200_0000
    /// `sample_depends_on` 1 and `sample_is_non_sync_sample`.
    static let nonSyncSampleFlags: UInt32 = 0x0101_0000

    /// Where the run's first byte is, counted from the start of the `moof` (`default-base-is-moof`).
    var dataOffset: Int32
    var durations: ArraySlice<UInt32>
    var sizes: ArraySlice<UInt32>
    var syncFlags: [Bool]
    /// Composition minus decode time per sample; `nil` for a track without (audio).
    var compositionOffsets: [Int32]?

    func writePayload(to writer: inout ByteWriter) {
        let signed = compositionOffsets?.contains { $0 < 0 } ?? false
        // data-offset, sample-duration, -size, -flags, and -composition-time-offset when present.
        writer.writeVersion(signed ? 1 : 0, flags: 0x0000_0701 | (compositionOffsets == nil ? 0 : 0x800))
        writer.write(UInt32(durations.count))
        writer.write(dataOffset)
        for (index, (duration, size)) in zip(durations, sizes).enumerated() {
            writer.write(duration)
            writer.write(size)
            writer.write(syncFlags[index] ? Self.syncSampleFlags : Self.nonSyncSampleFlags)
            if let compositionOffsets { writer.write(compositionOffsets[index]) }
        }
    }
}
