import CompositorCore
import CompositorTS

/// MPEG-4 audio's AudioSpecificConfig (ISO/IEC 14496-3, 1.6.2.1): object type, sample rate,
/// channel configuration and frame length.
package struct AudioSpecificConfig: Sendable, Equatable {
    /// 2 is AAC-LC; 5 (SBR) and 29 (PS) are HE-AAC, whose core type is in `coreObjectType`.
    package var objectType: Int
    /// The core's sample rate in Hz (for HE-AAC, half the output rate).
    package var sampleRate: Int
    /// 1 mono, 2 stereo, ... 7 (7.1); 0 means the layout is in a program config element.
    package var channelConfiguration: Int
    /// The core codec's object type (for HE-AAC, the AAC-LC inside).
    package var coreObjectType: Int
    /// Samples per channel per frame: 1024, or 960 with the frame length flag.
    package var samplesPerFrame: Int
    /// The raw bytes.
    package var bytes: [UInt8]

    /// The fields as given (`bytes` is not decoded): what a table expects a decode to give.
    init(objectType: Int, sampleRate: Int, channelConfiguration: Int, coreObjectType: Int, samplesPerFrame: Int, bytes: [UInt8]) {
        self.objectType = objectType
        self.sampleRate = sampleRate
        self.channelConfiguration = channelConfiguration
        self.coreObjectType = coreObjectType
        self.samplesPerFrame = samplesPerFrame
        self.bytes = bytes
    }

    init(bytes: [UInt8]) throws(WireFailure) {
        self.bytes = bytes
        var reader = BitReader(bytes)
        func read(_ count: Int) throws(WireFailure) -> Int {
            do { return Int(try reader.bits(count)) } catch {
                throw .malformed("bit field runs past the end of \(bytes.count) bytes", at: 0)
            }
        }
        func readObjectType() throws(WireFailure) -> Int {
            let type = try read(5)
            return type == 31 ? 32 + (try read(6)) : type
        }
        func readRate() throws(WireFailure) -> Int {
            let index = try read(4)
            if index == 15 { return try read(24) }
            guard index < ADTSHeader.samplingFrequencies.count else {
                throw .malformed("AudioSpecificConfig sampling frequency index \(index) is reserved", at: 0)
            }
            return ADTSHeader.samplingFrequencies[index]
        }
        objectType = try readObjectType()
        sampleRate = try readRate()
        channelConfiguration = try read(4)
        coreObjectType = objectType
        if objectType == 5 || objectType == 29 {
            _ = try readRate()  // extension (output) sample rate
            coreObjectType = try readObjectType()
        }
        // GASpecificConfig starts with frameLengthFlag for the AAC family.
        if [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23].contains(coreObjectType) {
            samplesPerFrame = try read(1) == 1 ? 960 : 1024
        } else {
            samplesPerFrame = 1024
        }
    }
}
