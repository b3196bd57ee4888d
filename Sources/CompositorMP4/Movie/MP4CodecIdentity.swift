import CompositorCore

/// Which codec a sample description carries, by its real identity: the sample-entry code and, for
/// the MPEG-4 systems entries (`mp4a`, `mp4v`, `mp4s`), the object type in their `esds`. MP3 and
/// AAC both travel as `mp4a`, MPEG-4 Part 2 and Motion JPEG both as `mp4v`: the code alone cannot
/// tell them apart, and one decoder cannot read both.
///
/// Two descriptions with the same identity may share a track (as separate descriptions when their
/// settings differ); two with different identities never do. Codes that name one codec compare
/// equal: `avc3` as `avc1`, `hev1` as `hvc1`, the MPEG-2 AAC profiles (object types 0x66...0x68)
/// as MPEG-4 AAC (0x40), MPEG-2 audio (0x69) as MPEG-1 audio (0x6B), the MPEG-2 video profiles
/// (0x60...0x65) as one.
package struct MP4CodecIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The sample-entry code as stored (`mp4a`).
    package let format: FourCC
    /// The `esds` decoder configuration's objectTypeIndication (ISO/IEC 14496-1, 7.2.6.6.2), for
    /// an MPEG-4 systems entry that has one.
    package let objectTypeIndication: UInt8?

    package init(format: FourCC, objectTypeIndication: UInt8?) {
        self.format = format
        self.objectTypeIndication = objectTypeIndication
    }

    /// Sample entries whose codec is named by the object type in their `esds`.
    static let esdsFormats: FourCCSet = ["mp4a", "mp4v", "mp4s"]

    /// The code, with the codes of one codec folded together.
    private var family: FourCC {
        switch format {
        case "avc3": return "avc1"
        case "hev1": return "hvc1"
        default: return format
        }
    }

    /// The object type, with the object types of one codec folded together.
    private var objectFamily: UInt8? {
        switch objectTypeIndication {
        case 0x66, 0x67, 0x68: return 0x40
        case 0x69: return 0x6B
        case 0x60, 0x62, 0x63, 0x64, 0x65: return 0x61
        default: return objectTypeIndication
        }
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.family == b.family && a.objectFamily == b.objectFamily
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(objectFamily)
    }

    /// The codec in a user's terms, with how the file says it: `H.264 (avc1)`,
    /// `MP3 (mp4a, object type 0x6B)`, `mp4v, object type 0xF0`, `'xyz1'`.
    package var description: String {
        if Self.esdsFormats.contains(format) {
            guard let objectTypeIndication else { return "'\(format)' without an esds" }
            let code = "\(format), object type 0x\(hex2(objectTypeIndication))"
            return Self.objectTypeNames[objectTypeIndication].map { "\($0) (\(code))" } ?? code
        }
        return Self.formatNames[family].map { "\($0) (\(format))" } ?? "'\(format)'"
    }

    /// Object types of the MP4 registration authority's table, by the codec's common name.
    /// 0x69 and 0x6B are MPEG audio: layer 3 in practice (layer 2 travels the same way).
    private static let objectTypeNames: [UInt8: String] = [
        0x20: "MPEG-4 Part 2", 0x21: "H.264", 0x23: "HEVC", 0x40: "AAC",
        0x60: "MPEG-2 video", 0x61: "MPEG-2 video", 0x62: "MPEG-2 video", 0x63: "MPEG-2 video",
        0x64: "MPEG-2 video", 0x65: "MPEG-2 video",
        0x66: "AAC (MPEG-2 Main)", 0x67: "AAC (MPEG-2 LC)", 0x68: "AAC (MPEG-2 SSR)",
        0x69: "MP3", 0x6A: "MPEG-1 video", 0x6B: "MP3", 0x6C: "JPEG", 0x6D: "PNG", 0x6E: "JPEG 2000",
        0xA3: "VC-1", 0xA4: "Dirac", 0xA5: "AC-3", 0xA6: "E-AC-3", 0xA9: "DTS", 0xAD: "Opus",
        0xDD: "Vorbis", 0xE1: "QCELP",
    ]

    /// Sample-entry codes whose codec is the code itself (after folding).
    private static let formatNames: [FourCC: String] = [
        "avc1": "H.264", "hvc1": "HEVC", "av01": "AV1", "vp08": "VP8", "vp09": "VP9", "jpeg": "JPEG",
        "ac-3": "AC-3", "ec-3": "E-AC-3", "Opus": "Opus", "fLaC": "FLAC", "alac": "ALAC",
        "ac-4": "AC-4", "dtsc": "DTS", "lpcm": "PCM", "sowt": "PCM", "twos": "PCM", "ipcm": "PCM", "fpcm": "PCM",
    ]
}
