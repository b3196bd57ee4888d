import CompositorCore
import CompositorTS

/// `hvcC`: HEVC's decoder configuration record (ISO/IEC 14496-15, 8.3.3.1), as far as the
/// stitcher and the packagers need it: the size of each NAL unit's length prefix in the samples,
/// and the parameter sets of its arrays.
package struct HEVCDecoderConfiguration: Sendable, Equatable {
    /// Bytes in each sample's NAL unit length prefix: 1, 2 or 4.
    package var nalLengthSize: Int
    /// The VPS, SPS and PPS NAL units (types 32-34) of the record's arrays, in its order (other
    /// arrays, such as SEI, are skipped).
    package var parameterSets: [[UInt8]]

    init(nalLengthSize: Int, parameterSets: [[UInt8]]) {
        self.nalLengthSize = nalLengthSize
        self.parameterSets = parameterSets
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let start = reader.offset
        // Version 0 is what muxers wrote before the record was standardised; its layout is the same.
        let version = try reader.readUInt8()
        guard version <= 1 else { throw .unsupported("hvcC configuration version \(version)", at: start) }
        // Profile, tier, level, segmentation, chroma and bit depth, frame rate: 20 bytes.
        try reader.skip(20)
        nalLengthSize = Int(try reader.readUInt8() & 0x3) + 1
        guard nalLengthSize != 3 else { throw .malformed("hvcC NAL length size 3 is not allowed", at: start + 21) }
        parameterSets = []
        // Some early writers end the record here; it then names no parameter sets.
        guard reader.remaining > 0 else { return }
        for _ in 0..<(try reader.readUInt8()) {
            let type = try reader.readUInt8() & 0x3F
            for _ in 0..<(try reader.readUInt16()) {
                // readBytes checks the length against the bytes left before it allocates.
                let unit = try reader.readBytes(Int(try reader.readUInt16()))
                if VideoCodingFormat.hevc.parameterSetTypes.contains(type) { parameterSets.append(unit) }
            }
        }
    }
}
