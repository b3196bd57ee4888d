import CompositorCore

/// `mfhd`: a movie fragment's sequence number, from 1 (ISO/IEC 14496-12, 8.8.5).
struct MovieFragmentHeaderBox: MP4WritableBox, Equatable {
    static let type: FourCC = "mfhd"
    var sequenceNumber: UInt32

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(sequenceNumber)
    }
}

/// `tfhd`: a track fragment's track, where its data is counted from, and the sample values that
/// hold for every sample its runs do not give (8.8.7). Each value is present by a flag.
///
/// Written as CMAF requires: `default-base-is-moof`, every sample value given by the `trun`.
struct TrackFragmentHeaderBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "tfhd"

    static let baseDataOffsetPresent: UInt32 = 0x01
    static let sampleDescriptionIndexPresent: UInt32 = 0x02
    static let defaultSampleDurationPresent: UInt32 = 0x08
    static let defaultSampleSizePresent: UInt32 = 0x10
    static let defaultSampleFlagsPresent: UInt32 = 0x20
    static let durationIsEmpty: UInt32 = 0x01_0000
    static let defaultBaseIsMoof: UInt32 = 0x02_0000

    var trackID: UInt32
    /// An absolute file offset the runs' data offsets count from.
    var baseDataOffset: UInt64?
    /// 1-based, into the track's `stsd`.
    var sampleDescriptionIndex: UInt32?
    var defaultSampleDuration: UInt32?
    var defaultSampleSize: UInt32?
    var defaultSampleFlags: UInt32?
    /// Data offsets count from the `moof`'s first byte (without a base data offset).
    var defaultBaseIsMoof: Bool

    init(trackID: UInt32, baseDataOffset: UInt64? = nil, sampleDescriptionIndex: UInt32? = nil,
         defaultSampleDuration: UInt32? = nil, defaultSampleSize: UInt32? = nil, defaultSampleFlags: UInt32? = nil,
         defaultBaseIsMoof: Bool = true) {
        self.trackID = trackID
        self.baseDataOffset = baseDataOffset
        self.sampleDescriptionIndex = sampleDescriptionIndex
        self.defaultSampleDuration = defaultSampleDuration
        self.defaultSampleSize = defaultSampleSize
        self.defaultSampleFlags = defaultSampleFlags
        self.defaultBaseIsMoof = defaultBaseIsMoof
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let flags = try FullBoxHeader.read(from: &reader).flags
        trackID = try reader.readUInt32()
        baseDataOffset = flags & Self.baseDataOffsetPresent != 0 ? try reader.readUInt64() : nil
        sampleDescriptionIndex = flags & Self.sampleDescriptionIndexPresent != 0 ? try reader.readUInt32() : nil
        defaultSampleDuration = flags & Self.defaultSampleDurationPresent != 0 ? try reader.readUInt32() : nil
        defaultSampleSize = flags & Self.defaultSampleSizePresent != 0 ? try reader.readUInt32() : nil
        defaultSampleFlags = flags & Self.defaultSampleFlagsPresent != 0 ? try reader.readUInt32() : nil
        defaultBaseIsMoof = flags & Self.defaultBaseIsMoof != 0
    }

    func writePayload(to writer: inout ByteWriter) {
        var flags: UInt32 = defaultBaseIsMoof ? Self.defaultBaseIsMoof : 0
        if baseDataOffset != nil { flags |= Self.baseDataOffsetPresent }
        if sampleDescriptionIndex != nil { flags |= Self.sampleDescriptionIndexPresent }
        if defaultSampleDuration != nil { flags |= Self.defaultSampleDurationPresent }
        if defaultSampleSize != nil { flags |= Self.defaultSampleSizePresent }
        if defaultSampleFlags != nil { flags |= Self.defaultSampleFlagsPresent }
        writer.writeVersion(0, flags: flags)
        writer.write(trackID)
        if let baseDataOffset { writer.write(baseDataOffset) }
        for value in [sampleDescriptionIndex, defaultSampleDuration, defaultSampleSize, defaultSampleFlags] {
            if let value { writer.write(value) }
        }
    }
}

/// `tfdt`: the decode time of a track fragment's first sample, in media ticks (8.8.12); written
/// as version 1 (64 bits) always.
struct TrackFragmentDecodeTimeBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "tfdt"
    var baseMediaDecodeTime: UInt64

    init(baseMediaDecodeTime: UInt64) { self.baseMediaDecodeTime = baseMediaDecodeTime }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let version = try FullBoxHeader.read(from: &reader).version
        baseMediaDecodeTime = version == 1 ? try reader.readUInt64() : UInt64(try reader.readUInt32())
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(1)
        writer.write(baseMediaDecodeTime)
    }
}

/// `trex`: a track's fragment defaults in `mvex` (8.8.3), for what neither `tfhd` nor `trun` give.
/// Written as sample description 1, the rest given per sample by each `trun`.
struct TrackExtendsBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "trex"
    var trackID: UInt32
    /// 1-based, into the track's `stsd`.
    var defaultSampleDescriptionIndex: UInt32 = 1
    var defaultSampleDuration: UInt32 = 0
    var defaultSampleSize: UInt32 = 0
    var defaultSampleFlags: UInt32 = 0

    init(trackID: UInt32) { self.trackID = trackID }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        trackID = try reader.readUInt32()
        defaultSampleDescriptionIndex = try reader.readUInt32()
        defaultSampleDuration = try reader.readUInt32()
        defaultSampleSize = try reader.readUInt32()
        defaultSampleFlags = try reader.readUInt32()
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        for value in [trackID, defaultSampleDescriptionIndex, defaultSampleDuration, defaultSampleSize, defaultSampleFlags] {
            writer.write(value)
        }
    }
}
