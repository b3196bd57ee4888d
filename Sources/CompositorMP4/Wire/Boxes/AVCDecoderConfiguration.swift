import CompositorCore

/// `avcC`: H.264's decoder configuration record (ISO/IEC 14496-15, 5.3.3.1): profile, level,
/// NAL length size and the parameter sets.
package struct AVCDecoderConfiguration: Sendable, Equatable {
    package var profile: UInt8
    package var compatibility: UInt8
    package var level: UInt8
    /// Bytes in each sample's NAL unit length prefix: 1, 2 or 4.
    package var nalLengthSize: Int
    package var sequenceParameterSets: [[UInt8]]
    package var pictureParameterSets: [[UInt8]]

    init(profile: UInt8, compatibility: UInt8, level: UInt8, nalLengthSize: Int,
         sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]]) {
        self.profile = profile
        self.compatibility = compatibility
        self.level = level
        self.nalLengthSize = nalLengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let start = reader.offset
        let version = try reader.readUInt8()
        guard version == 1 else { throw .unsupported("avcC configuration version \(version)", at: start) }
        profile = try reader.readUInt8()
        compatibility = try reader.readUInt8()
        level = try reader.readUInt8()
        nalLengthSize = Int(try reader.readUInt8() & 0x3) + 1
        guard nalLengthSize != 3 else { throw .malformed("avcC NAL length size 3 is not allowed", at: start + 4) }
        let spsCount = Int(try reader.readUInt8() & 0x1F)
        sequenceParameterSets = []
        for _ in 0..<spsCount {
            let length = Int(try reader.readUInt16())
            sequenceParameterSets.append(try reader.readBytes(length))
        }
        let ppsCount = Int(try reader.readUInt8())
        pictureParameterSets = []
        for _ in 0..<ppsCount {
            let length = Int(try reader.readUInt16())
            pictureParameterSets.append(try reader.readBytes(length))
        }
    }
}
