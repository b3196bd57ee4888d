/// One H.264 access unit as a transport stream carries it (Annex B), and the MP4 sample it becomes:
/// each NAL unit prefixed by its 4-byte length, without the access unit delimiter and the
/// parameter sets (those go into the sample entry's `avcC`, ISO/IEC 14496-15, 5.3.3).
package struct H264AccessUnit: Sendable {
    /// NAL unit types (ITU-T H.264, table 7-1).
    static let idrSlice: UInt8 = 5
    static let sequenceParameterSet: UInt8 = 7
    static let pictureParameterSet: UInt8 = 8
    static let accessUnitDelimiter: UInt8 = 9

    /// The units the MP4 sample keeps, as ranges of the PES payload.
    package let sampleUnits: [Range<Int>]
    package let sequenceParameterSets: [Range<Int>]
    package let pictureParameterSets: [Range<Int>]
    /// Whether decoding can start here: the access unit holds an IDR picture.
    package let isIDR: Bool

    /// The MP4 sample's size in bytes.
    package var sampleSize: Int { sampleUnits.reduce(0) { $0 + 4 + $1.count } }

    /// Splits `payload` (one PES packet's elementary stream bytes), found `offset` bytes into the segment.
    package init(payload: UnsafeRawBufferPointer, at offset: UInt64) throws(TSParseFailure) {
        var sample: [Range<Int>] = [], sps: [Range<Int>] = [], pps: [Range<Int>] = []
        var idr = false
        for unit in try AnnexB.nalUnits(in: payload, at: offset) {
            switch payload[unit.lowerBound] & 0x1F {
            case Self.accessUnitDelimiter: break
            case Self.sequenceParameterSet: sps.append(unit)
            case Self.pictureParameterSet: pps.append(unit)
            case let type:
                if type == Self.idrSlice { idr = true }
                sample.append(unit)
            }
        }
        guard !sample.isEmpty else { throw .malformed("a video PES packet without a picture", at: offset) }
        sampleUnits = sample
        sequenceParameterSets = sps
        pictureParameterSets = pps
        isIDR = idr
    }

    /// Writes the MP4 sample (`sampleSize` bytes) from `payload` into `output`, which must have room.
    package func writeSample(from payload: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        var position = 0
        for unit in sampleUnits {
            let length = UInt32(unit.count)
            output[position] = UInt8(length >> 24)
            output[position + 1] = UInt8((length >> 16) & 0xFF)
            output[position + 2] = UInt8((length >> 8) & 0xFF)
            output[position + 3] = UInt8(length & 0xFF)
            UnsafeMutableRawBufferPointer(rebasing: output[(position + 4)..<(position + 4 + unit.count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: payload[unit]))
            position += 4 + unit.count
        }
    }

    /// The id a parameter set is known by: `seq_parameter_set_id` or `pic_parameter_set_id`, the
    /// first Exp-Golomb code after the header byte (and, for an SPS, profile and level).
    package static func parameterSetID(_ unit: some Collection<UInt8>, isSequence: Bool, at offset: UInt64) throws(TSParseFailure) -> UInt32 {
        var reader = BitReader(Array(AnnexB.rbsp(unit).dropFirst(isSequence ? 4 : 1)))
        do { return try reader.unsignedGolomb() } catch {
            throw .malformed("a \(isSequence ? "sequence" : "picture") parameter set too short for its id", at: offset)
        }
    }
}

/// The AAC frames in one audio PES packet's ADTS bytes.
package enum ADTSFrames {
    /// Each frame's header and where its raw AAC data is in `payload`. Frames must fill the payload
    /// exactly: a frame split between PES packets is unsupported.
    package static func split(_ payload: UnsafeRawBufferPointer, at offset: UInt64) throws(TSParseFailure) -> [(header: ADTSHeader, data: Range<Int>)] {
        var frames: [(ADTSHeader, Range<Int>)] = []
        var position = 0
        while position < payload.count {
            let header = try ADTSHeader(UnsafeRawBufferPointer(rebasing: payload[position...]), at: offset)
            guard position + header.frameLength <= payload.count else {
                throw .unsupported("an ADTS frame of \(header.frameLength) bytes continued in the next PES packet", at: offset)
            }
            frames.append((header, (position + header.headerLength)..<(position + header.frameLength)))
            position += header.frameLength
        }
        return frames
    }
}
