import CompositorCore

/// Sample entries made for streams that arrive without one (a transport stream's H.264, HEVC and AAC),
/// so they describe their samples as an MP4 file would.
enum SampleEntryWriter {
    /// `avc1` with its `avcC` (ISO/IEC 14496-15, 5.3.3): 4-byte NAL lengths, the parameter sets,
    /// and for the high profiles the chroma format and bit depths.
    static func avc1(width: Int, height: Int, profile: UInt8, compatibility: UInt8, level: UInt8,
                     chromaFormat: UInt8, bitDepthLuma: UInt8, bitDepthChroma: UInt8,
                     sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]]) -> [UInt8] {
        visual("avc1", width: width, height: height) { box in
            box.writeBox("avcC") { avcC in
                avcC.write(UInt8(1))
                avcC.write(profile)
                avcC.write(compatibility)
                avcC.write(level)
                avcC.write(UInt8(0xFF))  // 4-byte NAL lengths
                avcC.write(UInt8(0xE0 | sequenceParameterSets.count))
                for set in sequenceParameterSets {
                    avcC.write(UInt16(set.count))
                    avcC.write(set)
                }
                avcC.write(UInt8(pictureParameterSets.count))
                for set in pictureParameterSets {
                    avcC.write(UInt16(set.count))
                    avcC.write(set)
                }
                if [100, 110, 122, 144].contains(profile) {
                    avcC.write(UInt8(0xFC | chromaFormat))
                    avcC.write(UInt8(0xF8 | (bitDepthLuma - 8)))
                    avcC.write(UInt8(0xF8 | (bitDepthChroma - 8)))
                    avcC.write(UInt8(0))  // numOfSequenceParameterSetExt
                }
            }
        }
    }

    /// `hvc1` with its `hvcC` (ISO/IEC 14496-15, 8.3.3.1): the SPS's general profile, tier and
    /// level (`profileTierLevel`, the 12 bytes as the SPS has them), sub-layers, chroma format and
    /// bit depths, 4-byte NAL lengths, and one array per parameter set type (`parameterSets`: NAL
    /// unit type and the sets of it, VPS first), marked complete, as `hvc1` (not `hev1`) says
    /// every parameter set is in the entry.
    static func hvc1(width: Int, height: Int, profileTierLevel: [UInt8], maxSubLayers: Int, temporalIDNesting: Bool,
                     chromaFormat: UInt8, bitDepthLuma: UInt8, bitDepthChroma: UInt8,
                     parameterSets: [(type: UInt8, sets: [[UInt8]])]) -> [UInt8] {
        visual("hvc1", width: width, height: height) { box in
            box.writeBox("hvcC") { hvcC in
                hvcC.write(UInt8(1))
                hvcC.write(profileTierLevel)
                hvcC.write(UInt16(0xF000))  // min_spatial_segmentation_idc 0: unknown
                hvcC.write(UInt8(0xFC))  // parallelismType 0: unknown
                hvcC.write(UInt8(0xFC | chromaFormat))
                hvcC.write(UInt8(0xF8 | (bitDepthLuma - 8)))
                hvcC.write(UInt8(0xF8 | (bitDepthChroma - 8)))
                hvcC.write(UInt16(0))  // avgFrameRate: unknown
                // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3.
                hvcC.write(UInt8(maxSubLayers << 3 | (temporalIDNesting ? 0x04 : 0) | 0x03))
                hvcC.write(UInt8(parameterSets.count))
                for array in parameterSets {
                    hvcC.write(UInt8(0x80 | array.type))  // array_completeness 1
                    hvcC.write(UInt16(array.sets.count))
                    for set in array.sets {
                        hvcC.write(UInt16(set.count))
                        hvcC.write(set)
                    }
                }
            }
        }
    }

    /// A visual sample entry (ISO/IEC 14496-12, 12.1.3) of `format`, its decoder configuration
    /// box written by `configuration`.
    private static func visual(_ format: FourCC, width: Int, height: Int, configuration: (inout ByteWriter) -> Void) -> [UInt8] {
        var entry = ByteWriter()
        entry.writeBox(format) { box in
            box.write(zeros: 6)
            box.write(UInt16(1))  // data_reference_index
            box.write(zeros: 16)  // pre_defined, reserved
            box.write(UInt16(width))
            box.write(UInt16(height))
            box.write(UInt32(0x0048_0000))  // 72 dpi
            box.write(UInt32(0x0048_0000))
            box.write(UInt32(0))
            box.write(UInt16(1))  // frame_count
            box.write(zeros: 32)  // compressorname
            box.write(UInt16(0x0018))  // depth
            box.write(Int16(-1))  // pre_defined
            configuration(&box)
        }
        return entry.bytes
    }

    /// `mp4a` with an `esds` carrying `audioSpecificConfig` (ISO/IEC 14496-14, 5.6). The sample
    /// rate field holds rates up to 65,535 Hz (ffmpeg writes 0 above, as here); decoders take the
    /// rate from the AudioSpecificConfig. Buffer size and bit rates are left 0 (unknown).
    static func mp4a(sampleRate: Int, channelCount: Int, audioSpecificConfig: [UInt8]) -> [UInt8] {
        var entry = ByteWriter()
        entry.writeBox("mp4a") { box in
            box.write(zeros: 6)
            box.write(UInt16(1))  // data_reference_index
            box.write(zeros: 8)
            box.write(UInt16(channelCount))
            box.write(UInt16(16))  // samplesize
            box.write(UInt32(0))  // pre_defined, reserved
            box.write(UInt32(sampleRate <= Int(UInt16.max) ? sampleRate << 16 : 0))
            box.writeBox("esds") { esds in
                esds.writeVersion(0)
                let decoderSpecificInfo = [0x05, UInt8(audioSpecificConfig.count)] + audioSpecificConfig
                let decoderConfig = [0x04, UInt8(13 + decoderSpecificInfo.count), 0x40, 0x15] + [UInt8](repeating: 0, count: 11)
                    + decoderSpecificInfo
                let slConfig: [UInt8] = [0x06, 0x01, 0x02]
                esds.write([0x03, UInt8(3 + decoderConfig.count + slConfig.count), 0x00, 0x00, 0x00])  // ES_ID 0, no flags
                esds.write(decoderConfig)
                esds.write(slConfig)
            }
        }
        return entry.bytes
    }
}
