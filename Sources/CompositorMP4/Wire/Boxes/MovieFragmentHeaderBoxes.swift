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

/// `tfhd`: a track fragment's track, its data counted from the `moof` (`default-base-is-moof`,
/// as CMAF requires), every sample value given by the `trun` (8.8.7).
struct TrackFragmentHeaderBox: MP4WritableBox, Equatable {
    static let type: FourCC = "tfhd"
    var trackID: UInt32

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0, flags: 0x02_0000)
        writer.write(trackID)
    }
}

/// `tfdt`: the decode time of a track fragment's first sample, in media ticks (8.8.12); version 1
/// (64 bits) always.
struct TrackFragmentDecodeTimeBox: MP4WritableBox, Equatable {
    static let type: FourCC = "tfdt"
    var baseMediaDecodeTime: UInt64

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(1)
        writer.write(baseMediaDecodeTime)
    }
}

/// `trex`: a track's fragment defaults in `mvex` (8.8.3): sample description 1, the rest given
/// per sample by each `trun`.
struct TrackExtendsBox: MP4WritableBox, Equatable {
    static let type: FourCC = "trex"
    var trackID: UInt32

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(trackID)
        writer.write(UInt32(1))  // default_sample_description_index
        writer.write(zeros: 12)  // default duration, size, flags
    }
}
