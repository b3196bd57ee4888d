import CompositorCore
/// The header of one ADTS frame (ISO/IEC 14496-3, 1.A.2.2): how AAC travels in a transport stream.
package struct ADTSHeader: Sendable, Equatable {
    /// The MPEG-4 audio object type (2 is AAC LC).
    package let audioObjectType: UInt8
    package let samplingFrequencyIndex: UInt8
    package let channelConfiguration: UInt8
    /// Header bytes: 7, or 9 with a CRC.
    package let headerLength: Int
    /// The whole frame, header included.
    package let frameLength: Int

    /// Samples per channel in one frame: AAC's 1,024 (the core rate's, for HE-AAC too).
    package static let samplesPerFrame = 1024

    /// The sampling rates `samplingFrequencyIndex` picks (ISO/IEC 14496-3, 1.6.3.4).
    package static let samplingFrequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    package var sampleRate: Int { Self.samplingFrequencies[Int(samplingFrequencyIndex)] }

    /// The two-byte AudioSpecificConfig an MP4 `esds` carries for this stream.
    package var audioSpecificConfig: [UInt8] {
        let bits = UInt16(audioObjectType) << 11 | UInt16(samplingFrequencyIndex) << 7 | UInt16(channelConfiguration) << 3
        return [UInt8(bits >> 8), UInt8(bits & 0xFF)]
    }

    /// Parses the header at the start of `bytes`, found `offset` bytes into the segment.
    package init(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) {
        guard bytes.count >= 7 else { throw .malformed("an ADTS header cut short (\(bytes.count) bytes)", at: offset) }
        guard bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else {
            throw .malformed("no ADTS sync word (0xFFF, layer 0) where an AAC frame should start", at: offset)
        }
        let protectionAbsent = bytes[1] & 0x01 != 0
        audioObjectType = (bytes[2] >> 6) + 1
        samplingFrequencyIndex = (bytes[2] >> 2) & 0x0F
        channelConfiguration = (bytes[2] & 0x01) << 2 | bytes[3] >> 6
        frameLength = Int(bytes[3] & 0x03) << 11 | Int(bytes[4]) << 3 | Int(bytes[5] >> 5)
        headerLength = protectionAbsent ? 7 : 9
        let blocks = Int(bytes[6] & 0x03) + 1
        guard Int(samplingFrequencyIndex) < Self.samplingFrequencies.count else {
            throw .malformed("ADTS sampling frequency index \(samplingFrequencyIndex) is reserved", at: offset + 2)
        }
        guard frameLength > headerLength else {
            throw .malformed("an ADTS frame length of \(frameLength) bytes, no longer than its header", at: offset + 3)
        }
        guard channelConfiguration != 0 else {
            throw .unsupported("ADTS channel configuration 0 (the layout is in a program config element)", at: offset + 2)
        }
        guard blocks == 1 else {
            throw .unsupported("\(blocks) AAC frames in one ADTS frame", at: offset + 6)
        }
    }
}
