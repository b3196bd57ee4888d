import CompositorCore
/// The parts of an HEVC sequence parameter set (ITU-T H.265, 7.3.2.2) an MP4 sample entry needs:
/// its id, the general profile, tier and level (the 12 bytes `hvcC` copies), sub-layers, chroma
/// format, bit depths and the picture size inside the conformance window.
package struct HEVCSequenceParameterSet: Sendable, Equatable {
    package let id: UInt32
    /// `general_profile_space`, `general_tier_flag`, `general_profile_idc`, the 32 compatibility
    /// flags, the 48 bits of constraint flags and `general_level_idc`, as the SPS writes them.
    package let profileTierLevel: [UInt8]
    package let maxSubLayers: Int
    package let temporalIDNesting: Bool
    package let chromaFormat: UInt8
    package let bitDepthLuma: UInt8
    package let bitDepthChroma: UInt8
    package let width: Int
    package let height: Int

    package var profile: UInt8 { profileTierLevel[0] & 0x1F }
    package var level: UInt8 { profileTierLevel[11] }

    /// Parses the SPS NAL unit `unit` (its 2-byte header first), found `offset` bytes into the segment.
    package init(unit: some Collection<UInt8>, at offset: UInt64) throws(WireFailure) {
        let rbsp = AnnexB.rbsp(unit)
        guard rbsp.count >= 15, (rbsp[0] >> 1) & 0x3F == 33 else {
            throw .malformed("an HEVC sequence parameter set too short to read", at: offset)
        }
        maxSubLayers = Int((rbsp[2] >> 1) & 0x7) + 1
        temporalIDNesting = rbsp[2] & 1 == 1
        profileTierLevel = Array(rbsp[3..<15])
        var reader = BitReader(Array(rbsp.dropFirst(15)))
        do {
            // Sub-layer profiles and levels (7.3.3): flags for each, padded to 8 when there are any.
            var present: [(profile: Bool, level: Bool)] = []
            for _ in 1..<maxSubLayers { present.append((try reader.flag(), try reader.flag())) }
            if maxSubLayers > 1 { _ = try reader.bits(2 * (9 - maxSubLayers)) }
            for layer in present {
                if layer.profile { _ = try reader.bits(32); _ = try reader.bits(32); _ = try reader.bits(24) }
                if layer.level { _ = try reader.bits(8) }
            }
            id = try reader.unsignedGolomb()
            guard id <= 15 else { throw WireFailure.malformed("HEVC SPS id \(id)", at: offset) }
            let chromaFormat = try reader.unsignedGolomb()
            guard chromaFormat <= 3 else { throw WireFailure.malformed("HEVC SPS chroma_format_idc \(chromaFormat)", at: offset) }
            let separateColourPlanes = chromaFormat == 3 ? try reader.flag() : false
            let fullWidth = Int(try reader.unsignedGolomb()), fullHeight = Int(try reader.unsignedGolomb())
            var window = (left: 0, right: 0, top: 0, bottom: 0)
            if try reader.flag() {
                window = (Int(try reader.unsignedGolomb()), Int(try reader.unsignedGolomb()),
                          Int(try reader.unsignedGolomb()), Int(try reader.unsignedGolomb()))
            }
            let bitDepthLuma = try reader.unsignedGolomb() + 8, bitDepthChroma = try reader.unsignedGolomb() + 8
            guard bitDepthLuma <= 16, bitDepthChroma <= 16 else {
                throw WireFailure.malformed("HEVC SPS bit depth \(bitDepthLuma)/\(bitDepthChroma)", at: offset)
            }
            // Window offsets count in chroma samples (SubWidthC, SubHeightC: table 6-1).
            let (unitX, unitY) = separateColourPlanes ? (1, 1) : [(1, 1), (2, 2), (2, 1), (1, 1)][Int(chromaFormat)]
            // Every value is below 2^32, so the sums and products fit Int64.
            let size = try CroppedPictureSize(full: (fullWidth, fullHeight), crop: (unitX * (window.left + window.right), unitY * (window.top + window.bottom)),
                                              name: "HEVC SPS", at: offset)
            (width, height) = (size.width, size.height)
            self.chromaFormat = UInt8(chromaFormat)
            self.bitDepthLuma = UInt8(bitDepthLuma)
            self.bitDepthChroma = UInt8(bitDepthChroma)
        } catch let failure as WireFailure {
            throw failure
        } catch {
            throw .malformed("an HEVC sequence parameter set that ends before its bit depths", at: offset)
        }
    }
}
