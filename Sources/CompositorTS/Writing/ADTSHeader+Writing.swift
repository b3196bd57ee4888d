extension ADTSHeader {
    /// The 7-byte header (no CRC) of an ADTS frame holding `payloadLength` bytes of one raw AAC
    /// frame, or `nil` when the frame is too long for ADTS's 13-bit length.
    ///
    /// `audioObjectType` 1 to 4 (AAC Main, LC, SSR, LTP; HE-AAC is written as its AAC-LC core,
    /// which decoders extend by implicit signalling), `channelConfiguration` 1 to 7.
    package static func bytes(
        audioObjectType: UInt8, samplingFrequencyIndex: UInt8, channelConfiguration: UInt8, payloadLength: Int
    ) -> [UInt8]? {
        let length = payloadLength + 7
        guard length <= 0x1FFF else { return nil }
        return [
            0xFF, 0xF1,  // sync word, MPEG-4, layer 0, no CRC
            (audioObjectType - 1) << 6 | samplingFrequencyIndex << 2 | channelConfiguration >> 2,
            (channelConfiguration & 0x3) << 6 | UInt8(length >> 11),
            UInt8((length >> 3) & 0xFF),
            UInt8((length & 0x7) << 5) | 0x1F,  // buffer fullness 0x7FF: variable bit rate
            0xFC,
        ]
    }
}
