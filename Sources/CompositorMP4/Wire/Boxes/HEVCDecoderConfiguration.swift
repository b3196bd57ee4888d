import CompositorCore

/// `hvcC`: HEVC's decoder configuration record (ISO/IEC 14496-15, 8.3.3.1), as far as the
/// stitcher needs it: the size of each NAL unit's length prefix in the samples.
package struct HEVCDecoderConfiguration: Sendable, Equatable {
    /// Bytes in each sample's NAL unit length prefix: 1, 2 or 4.
    package var nalLengthSize: Int

    init(parsing reader: inout ByteReader) throws(MP4ParseFailure) {
        let start = reader.offset
        // Version 0 is what muxers wrote before the record was standardised; its layout is the same.
        let version = try reader.readUInt8()
        guard version <= 1 else { throw .unsupported("hvcC configuration version \(version)", at: start) }
        // Profile, tier, level, segmentation, chroma and bit depth, frame rate: 20 bytes.
        try reader.skip(20)
        nalLengthSize = Int(try reader.readUInt8() & 0x3) + 1
        guard nalLengthSize != 3 else { throw .malformed("hvcC NAL length size 3 is not allowed", at: start + 21) }
    }
}
