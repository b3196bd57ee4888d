import CompositorCore

/// `stsd`: the sample descriptions (codec and its settings) a track's chunks refer to (8.5.2).
/// Each entry is kept as its raw bytes, so the stitcher can copy it unchanged, and parsed far
/// enough to tell codecs and settings apart.
struct SampleDescriptionBox: Sendable, Equatable {
    static let type: FourCC = "stsd"
    var entries: [MP4SampleDescription]

    init(entries: [MP4SampleDescription]) { self.entries = entries }

    /// The most descriptions a track may have: each sample's description is held as a 16-bit
    /// index (`MP4SampleTable.descriptionIndices`, two bytes for each of up to 50 million samples).
    /// Real files have one, or a few; more is valid, but unsupported.
    static let maximumCount = Int(UInt16.max) + 1

    /// Decodes the payload; `handler` says whether entries are visual or audio sample entries.
    init(parsing reader: inout ByteReader, handler: FourCC) throws(MP4ParseFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        let countOffset = reader.offset
        let count = try reader.readUInt32()
        // The smallest sample entry is a bare 16-byte box (header + reserved + data_reference_index).
        try reader.requireTable(count: UInt64(count), entrySize: 16, "stsd")
        guard count <= Self.maximumCount else {
            throw .unsupported("\(count) sample descriptions, more than the \(Self.maximumCount) a track may have here "
                               + "(its samples index them in 16 bits)", at: countOffset)
        }
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let start = reader.offset
            var peek = reader
            let header = try MP4BoxHeader.read(from: &peek, available: UInt64(reader.remaining))
            let bytes = try reader.readBytes(Int(header.size))
            entries.append(try MP4SampleDescription(entryBytes: bytes, handler: handler, fileOffset: start))
        }
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(UInt32(entries.count))
        for entry in entries { writer.write(entry.bytes) }
    }
}

/// One sample description: which codec, with which settings.
package struct MP4SampleDescription: Sendable, Equatable {
    /// The sample entry's type: `avc1`, `mp4a`, ...
    package let format: FourCC
    /// The whole sample entry box, header included, exactly as stored (the data reference index
    /// normalised to 1, the only one a stitched file has).
    package let bytes: [UInt8]
    /// The codec's parameters, as far as they are understood.
    package let codec: MP4CodecParameters
    /// Visual entries: the coded size in pixels.
    package let width: Int?
    package let height: Int?
    /// Audio entries: sample rate (Hz) and channel count as the sample entry states them (for AAC,
    /// `codec` holds the AudioSpecificConfig's values, which decoders follow).
    package let sampleRate: Int?
    package let channelCount: Int?

    /// The codec regardless of how its parameters travel: `avc3` counts as `avc1`, `hev1` as `hvc1`.
    package var codecFamily: FourCC {
        switch format {
        case "avc3": return "avc1"
        case "hev1": return "hvc1"
        default: return format
        }
    }

    init(entryBytes: [UInt8], handler: FourCC, fileOffset: UInt64) throws(MP4ParseFailure) {
        var reader = ByteReader(entryBytes, fileOffset: fileOffset)
        let header = try MP4BoxHeader.read(from: &reader, available: UInt64(entryBytes.count))
        try reader.skip(header.headerSize - 8)
        format = header.type
        try reader.skip(6)  // reserved
        _ = try reader.readUInt16()  // data_reference_index
        var normalised = entryBytes
        normalised[header.headerSize + 6] = 0
        normalised[header.headerSize + 7] = 1
        bytes = normalised

        var childBoxes: ByteReader
        switch handler {
        case "vide":
            try reader.skip(16)
            width = Int(try reader.readUInt16())
            height = Int(try reader.readUInt16())
            try reader.skip(50)
            sampleRate = nil
            channelCount = nil
            childBoxes = reader
        case "soun":
            let version = try reader.readUInt16()  // QuickTime sound description version
            try reader.skip(6)
            let channels = Int(try reader.readUInt16())
            try reader.skip(6)
            let rate = Int(try reader.readUInt32() >> 16)
            switch version {
            case 0: break
            case 1: try reader.skip(16)
            case 2: try reader.skip(36)
            default: throw .unsupported("QuickTime sound sample description version \(version)", at: fileOffset)
            }
            width = nil
            height = nil
            sampleRate = rate
            channelCount = channels
            childBoxes = reader
        default:
            width = nil; height = nil; sampleRate = nil; channelCount = nil
            childBoxes = ByteReader([])
        }
        codec = try MP4CodecParameters(format: format, childBoxes: &childBoxes)
    }
}

/// A codec's parameters, parsed far enough to compare settings and to make silence.
package enum MP4CodecParameters: Sendable, Equatable {
    case avc(AVCDecoderConfiguration)
    case aac(AudioSpecificConfig)
    /// A codec this library copies but does not look into.
    case other

    /// `insideWave` is set while reading the boxes of a QuickTime `wave`, which is never nested in
    /// another: a `wave` there is skipped, so nested headers cannot recurse without end.
    init(format: FourCC, childBoxes reader: inout ByteReader, insideWave: Bool = false) throws(MP4ParseFailure) {
        var found: MP4CodecParameters = .other
        while reader.remaining >= 8 {
            let header = try MP4BoxHeader.read(from: &reader, available: UInt64(reader.remaining))
            try reader.skip(header.headerSize - 8)
            var payload = try reader.readSlice(Int(header.payloadSize))
            switch header.type {
            case "avcC" where format == "avc1" || format == "avc3":
                found = .avc(try AVCDecoderConfiguration(parsing: &payload))
            case "esds" where format == "mp4a":
                if let config = try ElementaryStreamDescriptor(parsing: &payload).audioSpecificConfig {
                    found = .aac(config)
                }
            case "wave" where format == "mp4a" && !insideWave:
                // QuickTime wraps the esds in a 'wave' box.
                var inner = payload
                let nested = try MP4CodecParameters(format: format, childBoxes: &inner, insideWave: true)
                if nested != .other { found = nested }
            default:
                break
            }
        }
        self = found
    }
}
