import CompositorCore
/// The video coding formats read from and written to transport streams, and how each names its
/// NAL units (ITU-T H.264 7.4.1 and table 7-1; ITU-T H.265 7.4.2.2 and table 7-1).
///
/// | | H.264 | HEVC |
/// |---|---|---|
/// | stream type (13818-1 table 2-34) | `0x1B` | `0x24` |
/// | NAL unit header | 1 byte, type in bits 0-4 | 2 bytes, type in bits 1-6 of the first |
/// | access unit delimiter | 9 | 35 |
/// | parameter sets | SPS 7, PPS 8 | VPS 32, SPS 33, PPS 34 |
/// | decoding can start (a sync sample) | IDR 5 | BLA, IDR 16-20; CRA 21 (`DecodeStart`) |
package enum VideoCodingFormat: Sendable, Equatable, CustomStringConvertible {
    case h264
    case hevc

    /// The format a PMT's stream type names, if one of these.
    package init?(streamType: UInt8) {
        switch streamType {
        case 0x1B: self = .h264
        case 0x24: self = .hevc
        default: return nil
        }
    }

    package var streamType: UInt8 { self == .h264 ? 0x1B : 0x24 }

    package var description: String { self == .h264 ? "H.264" : "HEVC" }

    /// Bytes in a NAL unit's header.
    package var headerSize: Int { self == .h264 ? 1 : 2 }

    /// `nal_unit_type`, from a NAL unit's first byte.
    package func unitType(_ firstByte: UInt8) -> UInt8 {
        self == .h264 ? firstByte & 0x1F : (firstByte >> 1) & 0x3F
    }

    var accessUnitDelimiterType: UInt8 { self == .h264 ? 9 : 35 }

    /// The parameter set types, in the order a decoder needs them.
    package var parameterSetTypes: [UInt8] { self == .h264 ? [7, 8] : [32, 33, 34] }

    /// The sequence parameter set's type: every access unit that carries parameter sets carries one.
    var sequenceParameterSetType: UInt8 { self == .h264 ? 7 : 33 }

    /// What a picture whose slices have NAL unit type `type` is as a decode start; `nil` when
    /// the type is not a slice (parameter sets, SEI, delimiters), which says nothing.
    package func decodeStart(ofType type: UInt8) -> DecodeStart? {
        switch (self, type) {
        case (.h264, 5): .closed                    // IDR
        case (.h264, 1...4): DecodeStart.none       // non-IDR slice or partition
        case (.hevc, 16...20): .closed              // BLA_W_LP, BLA_W_RADL, BLA_N_LP, IDR_W_RADL, IDR_N_LP
        case (.hevc, 21): .cleanRandomAccess        // CRA_NUT
        case (.hevc, 0...31): DecodeStart.none      // other pictures, and reserved IRAP types 22-23
        default: nil
        }
    }

    /// An access unit delimiter NAL unit for any picture type (H.264 `primary_pic_type` 7, HEVC
    /// `pic_type` 2 and `nuh_temporal_id_plus1` 1): Apple's HLS authoring rules want one at the
    /// start of every access unit.
    var accessUnitDelimiter: [UInt8] { self == .h264 ? [0x09, 0xF0] : [0x46, 0x01, 0x50] }

    /// "VPS", "SPS" or "PPS": what a parameter set of NAL unit type `type` is called.
    func parameterSetName(_ type: UInt8) -> String {
        type == sequenceParameterSetType ? "SPS" : (self, type) == (.hevc, 32) ? "VPS" : "PPS"
    }

    /// The id a parameter set of NAL unit type `type` is known by among those of its type: H.264
    /// `seq_parameter_set_id` (after profile and level) or `pic_parameter_set_id`; HEVC
    /// `vps_video_parameter_set_id` (4 bits), `sps_seq_parameter_set_id` (after the profile, tier
    /// and level) or `pps_pic_parameter_set_id`.
    package func parameterSetID(_ unit: some Collection<UInt8>, type: UInt8, at offset: UInt64) throws(WireFailure) -> UInt32 {
        func tooShort() -> WireFailure {
            let name = parameterSetName(type)
            return .malformed("\(name == "SPS" ? "an" : "a") \(name) too short for its id", at: offset)
        }
        switch (self, type) {
        case (.hevc, 33):
            return try HEVCSequenceParameterSet(unit: unit, at: offset).id
        case (.hevc, 32):
            let rbsp = AnnexB.rbsp(unit)
            guard rbsp.count > 2 else { throw tooShort() }
            return UInt32(rbsp[2] >> 4)
        default:
            // H.264's SPS id follows profile_idc, the constraint flags and level_idc (3 bytes).
            let skipped = headerSize + (self == .h264 && type == 7 ? 3 : 0)
            var reader = BitReader(Array(AnnexB.rbsp(unit).dropFirst(skipped)))
            do { return try reader.unsignedGolomb() } catch { throw tooShort() }
        }
    }
}
