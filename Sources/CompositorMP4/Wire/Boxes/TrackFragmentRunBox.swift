import CompositorCore

/// `trun`: a run of a track fragment's samples, contiguous in the file (ISO/IEC 14496-12, 8.8.8).
/// Each per-sample field is present by a flag; an absent one takes the `tfhd`'s or `trex`'s
/// default. Composition offsets are read as signed in both versions (as ffmpeg does: writers put
/// negative offsets in version 0 boxes too), and written as version 1 only when one is negative.
struct TrackFragmentRunBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "trun"

    static let dataOffsetPresent: UInt32 = 0x001
    static let firstSampleFlagsPresent: UInt32 = 0x004
    static let sampleDurationPresent: UInt32 = 0x100
    static let sampleSizePresent: UInt32 = 0x200
    static let sampleFlagsPresent: UInt32 = 0x400
    static let compositionOffsetPresent: UInt32 = 0x800

    /// `sample_depends_on` 2 (depends on no other sample): a sync sample.
    static let syncSampleFlags: UInt32 = 0x0200_0000
    /// `sample_depends_on` 1 and `sample_is_non_sync_sample`.
    static let nonSyncSampleFlags: UInt32 = 0x0101_0000

    /// Whether sample flags mark a sync sample: `sample_is_non_sync_sample` clear.
    static func isSync(flags: UInt32) -> Bool { flags & 0x0001_0000 == 0 }

    var sampleCount: UInt32
    /// Where the run's first byte is, from the track fragment's base data offset; `nil`: right
    /// after the run before.
    var dataOffset: Int32?
    /// Flags of the first sample, instead of the others' (a keyframe starting a run of
    /// non-sync samples, in one field).
    var firstSampleFlags: UInt32?
    var durations: [UInt32]?
    var sizes: [UInt32]?
    var flags: [UInt32]?
    var compositionOffsets: [Int32]?

    init(sampleCount: UInt32, dataOffset: Int32?, firstSampleFlags: UInt32? = nil, durations: [UInt32]?, sizes: [UInt32]?,
         flags: [UInt32]?, compositionOffsets: [Int32]?) {
        self.sampleCount = sampleCount
        self.dataOffset = dataOffset
        self.firstSampleFlags = firstSampleFlags
        self.durations = durations
        self.sizes = sizes
        self.flags = flags
        self.compositionOffsets = compositionOffsets
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let flags = try FullBoxHeader.read(from: &reader).flags
        sampleCount = try reader.readUInt32()
        dataOffset = flags & Self.dataOffsetPresent != 0 ? try reader.readInt32() : nil
        firstSampleFlags = flags & Self.firstSampleFlagsPresent != 0 ? try reader.readUInt32() : nil
        let fields = [Self.sampleDurationPresent, Self.sampleSizePresent, Self.sampleFlagsPresent, Self.compositionOffsetPresent]
            .filter { flags & $0 != 0 }.count
        // The per-sample fields must be there before anything of their count is made.
        try reader.requireTable(count: UInt64(sampleCount), entrySize: 4 * fields, "trun")
        func column<T>(_ present: UInt32, _: T.Type) -> [T]? {
            guard flags & present != 0 else { return nil }
            var column: [T] = []
            column.reserveCapacity(Int(sampleCount))
            return column
        }
        var durations = column(Self.sampleDurationPresent, UInt32.self)
        var sizes = column(Self.sampleSizePresent, UInt32.self)
        var sampleFlags = column(Self.sampleFlagsPresent, UInt32.self)
        var offsets = column(Self.compositionOffsetPresent, Int32.self)
        // Optional chaining reads a field only when its column is there.
        for _ in 0..<(fields == 0 ? 0 : sampleCount) {
            durations?.append(try reader.readUInt32())
            sizes?.append(try reader.readUInt32())
            sampleFlags?.append(try reader.readUInt32())
            offsets?.append(try reader.readInt32())
        }
        self.durations = durations
        self.sizes = sizes
        self.flags = sampleFlags
        self.compositionOffsets = offsets
    }

    func writePayload(to writer: inout ByteWriter) {
        let signed = compositionOffsets?.contains { $0 < 0 } ?? false
        var flagBits: UInt32 = 0
        if dataOffset != nil { flagBits |= Self.dataOffsetPresent }
        if firstSampleFlags != nil { flagBits |= Self.firstSampleFlagsPresent }
        if durations != nil { flagBits |= Self.sampleDurationPresent }
        if sizes != nil { flagBits |= Self.sampleSizePresent }
        if flags != nil { flagBits |= Self.sampleFlagsPresent }
        if compositionOffsets != nil { flagBits |= Self.compositionOffsetPresent }
        writer.writeVersion(signed ? 1 : 0, flags: flagBits)
        writer.write(sampleCount)
        if let dataOffset { writer.write(dataOffset) }
        if let firstSampleFlags { writer.write(firstSampleFlags) }
        for index in 0..<Int(sampleCount) {
            if let durations { writer.write(durations[index]) }
            if let sizes { writer.write(sizes[index]) }
            if let flags { writer.write(flags[index]) }
            if let compositionOffsets { writer.write(compositionOffsets[index]) }
        }
    }
}
