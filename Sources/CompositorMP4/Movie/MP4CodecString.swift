import CompositorCore

extension MP4SampleDescription {
    /// The codec as RFC 6381 names it (a DASH `@codecs`, an HLS `CODECS`): `avc1.64001f` (the
    /// profile, compatibility and level bytes of its `avcC`), `mp4a.40.2` (the AAC object type);
    /// `nil` for a codec whose parameters this library does not read (HEVC's profile fields, say).
    package var rfc6381Codec: String? {
        func hex(_ byte: UInt8) -> String { (byte < 16 ? "0" : "") + String(byte, radix: 16) }
        switch codec {
        case .avc(let configuration):
            return "\(format).\(hex(configuration.profile))\(hex(configuration.compatibility))\(hex(configuration.level))"
        case .aac(let configuration):
            return "mp4a.40.\(configuration.objectType)"
        case .hevc, .other:
            return nil
        }
    }
}
