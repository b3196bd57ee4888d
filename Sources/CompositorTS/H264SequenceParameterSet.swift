import CompositorCore
/// The parts of an H.264 sequence parameter set (ITU-T H.264, 7.3.2.1.1) an MP4 sample entry needs:
/// profile, level, chroma format, bit depths and the cropped picture size.
package struct H264SequenceParameterSet: Sendable, Equatable {
    package let profile: UInt8
    package let constraints: UInt8
    package let level: UInt8
    package let chromaFormat: UInt8
    package let bitDepthLuma: UInt8
    package let bitDepthChroma: UInt8
    package let width: Int
    package let height: Int

    /// Profiles whose SPS carries chroma format and bit depths (7.3.2.1.1).
    private static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses the SPS NAL unit `unit` (its header byte first), found `offset` bytes into the segment.
    package init(unit: some Collection<UInt8>, at offset: UInt64) throws(WireFailure) {
        let rbsp = AnnexB.rbsp(unit)
        guard rbsp.count >= 4, rbsp[0] & 0x1F == 7 else { throw .malformed("a sequence parameter set too short to read", at: offset) }
        profile = rbsp[1]
        constraints = rbsp[2]
        level = rbsp[3]
        var reader = BitReader(Array(rbsp.dropFirst(4)))
        do {
            _ = try reader.unsignedGolomb()  // seq_parameter_set_id
            var chromaFormat: UInt32 = 1, separateColourPlanes = false
            var bitDepthLuma: UInt32 = 8, bitDepthChroma: UInt32 = 8
            if Self.highProfiles.contains(profile) {
                chromaFormat = try reader.unsignedGolomb()
                guard chromaFormat <= 3 else { throw WireFailure.malformed("SPS chroma_format_idc \(chromaFormat)", at: offset) }
                if chromaFormat == 3 { separateColourPlanes = try reader.flag() }
                bitDepthLuma = try reader.unsignedGolomb() + 8
                bitDepthChroma = try reader.unsignedGolomb() + 8
                guard bitDepthLuma <= 14, bitDepthChroma <= 14 else {
                    throw WireFailure.malformed("SPS bit depth \(bitDepthLuma)/\(bitDepthChroma)", at: offset)
                }
                _ = try reader.flag()  // qpprime_y_zero_transform_bypass_flag
                if try reader.flag() {  // seq_scaling_matrix_present_flag
                    for list in 0..<(chromaFormat == 3 ? 12 : 8) where try reader.flag() {
                        try Self.skipScalingList(&reader, size: list < 6 ? 16 : 64)
                    }
                }
            }
            _ = try reader.unsignedGolomb()  // log2_max_frame_num_minus4
            switch try reader.unsignedGolomb() {  // pic_order_cnt_type
            case 0: _ = try reader.unsignedGolomb()
            case 1:
                _ = try reader.flag()
                _ = try reader.signedGolomb()
                _ = try reader.signedGolomb()
                let cycle = try reader.unsignedGolomb()
                guard cycle <= 255 else { throw WireFailure.malformed("SPS num_ref_frames_in_pic_order_cnt_cycle \(cycle)", at: offset) }
                for _ in 0..<cycle { _ = try reader.signedGolomb() }
            case 2: break
            case let other: throw WireFailure.malformed("SPS pic_order_cnt_type \(other)", at: offset)
            }
            _ = try reader.unsignedGolomb()  // max_num_ref_frames
            _ = try reader.flag()  // gaps_in_frame_num_value_allowed_flag
            let widthInMacroblocks = Int(try reader.unsignedGolomb()) + 1
            let heightInMapUnits = Int(try reader.unsignedGolomb()) + 1
            let frameMacroblocksOnly = try reader.flag()
            if !frameMacroblocksOnly { _ = try reader.flag() }  // mb_adaptive_frame_field_flag
            _ = try reader.flag()  // direct_8x8_inference_flag
            var crop = (left: 0, right: 0, top: 0, bottom: 0)
            if try reader.flag() {
                crop = (Int(try reader.unsignedGolomb()), Int(try reader.unsignedGolomb()),
                        Int(try reader.unsignedGolomb()), Int(try reader.unsignedGolomb()))
            }
            // Crop units (7-19 to 7-22).
            let fieldFactor = frameMacroblocksOnly ? 1 : 2
            let (unitX, unitY): (Int, Int)
            if separateColourPlanes || chromaFormat == 0 {
                (unitX, unitY) = (1, fieldFactor)
            } else {
                (unitX, unitY) = (chromaFormat == 3 ? 1 : 2, (chromaFormat == 1 ? 2 : 1) * fieldFactor)
            }
            // Every factor is below 2^32, so the products fit Int64.
            let fullWidth = widthInMacroblocks * 16, fullHeight = heightInMapUnits * 16 * fieldFactor
            let size = try CroppedPictureSize(full: (fullWidth, fullHeight), crop: (unitX * (crop.left + crop.right), unitY * (crop.top + crop.bottom)),
                                              name: "SPS", at: offset)
            (width, height) = (size.width, size.height)
            self.chromaFormat = UInt8(chromaFormat)
            self.bitDepthLuma = UInt8(bitDepthLuma)
            self.bitDepthChroma = UInt8(bitDepthChroma)
        } catch let failure as WireFailure {
            throw failure
        } catch {
            throw .malformed("a sequence parameter set that ends before its frame size", at: offset)
        }
    }

    private static func skipScalingList(_ reader: inout BitReader, size: Int) throws(BitReader.End) {
        var last: Int64 = 8, next: Int64 = 8
        for _ in 0..<size {
            if next != 0 { next = (last + (try reader.signedGolomb()) + 256) & 0xFF }
            if next != 0 { last = next }
        }
    }
}
