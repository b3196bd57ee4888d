import CompositorCore

/// A silent AAC frame for a given AudioSpecificConfig: one raw_data_block with a channel element
/// per channel of the configuration, each with no coded bands (max_sfb = 0), so every spectral
/// coefficient is zero and the decoder outputs silence (ISO/IEC 14496-3, 4.4.2).
///
/// This is how the stitcher fills audio that is shorter than its piece, or missing: the frames are
/// real AAC, decodable with the piece's own sample description.
enum SilentAACFrame {
    /// The frame's bytes, or `nil` when the configuration is not AAC-LC based with a standard
    /// channel configuration (1...7).
    static func bytes(for config: AudioSpecificConfig) -> [UInt8]? {
        guard config.coreObjectType == 2 else { return nil }
        let elements: [ElementKind]
        switch config.channelConfiguration {
        case 1: elements = [.single]
        case 2: elements = [.pair]
        case 3: elements = [.single, .pair]
        case 4: elements = [.single, .pair, .single]
        case 5: elements = [.single, .pair, .pair]
        case 6: elements = [.single, .pair, .pair, .lowFrequency]
        case 7: elements = [.single, .pair, .pair, .pair, .lowFrequency]
        default: return nil
        }
        var bits = BitWriter()
        var tags: [ElementKind: Int] = [:]
        for element in elements {
            let tag = tags[element, default: 0]
            tags[element] = tag + 1
            bits.write(element.rawValue, bits: 3)  // id_syn_ele
            bits.write(tag, bits: 4)               // element_instance_tag
            switch element {
            case .single, .lowFrequency:
                writeSilentChannelStream(&bits)
            case .pair:
                bits.write(0, bits: 1)  // common_window
                writeSilentChannelStream(&bits)
                writeSilentChannelStream(&bits)
            }
        }
        bits.write(7, bits: 3)  // ID_END
        return bits.bytesPaddedToByte()
    }

    private enum ElementKind: Int, Hashable {
        case single = 0        // SCE
        case pair = 1          // CPE
        case lowFrequency = 3  // LFE
    }

    /// individual_channel_stream with a long window and no bands: nothing to decode.
    private static func writeSilentChannelStream(_ bits: inout BitWriter) {
        bits.write(100, bits: 8)  // global_gain (unused without bands)
        bits.write(0, bits: 1)    // ics_reserved_bit
        bits.write(0, bits: 2)    // window_sequence: ONLY_LONG_SEQUENCE
        bits.write(0, bits: 1)    // window_shape
        bits.write(0, bits: 6)    // max_sfb = 0: no section, scale factor or spectral data follows
        bits.write(0, bits: 1)    // predictor_data_present
        bits.write(0, bits: 1)    // pulse_data_present
        bits.write(0, bits: 1)    // tns_data_present
        bits.write(0, bits: 1)    // gain_control_data_present
    }
}

/// Writes big-endian bit fields.
struct BitWriter {
    private var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func write(_ value: Int, bits count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
            bitCount += 1
        }
    }

    func bytesPaddedToByte() -> [UInt8] { bytes }
}
