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
    init(parsing reader: inout ByteReader, handler: FourCC) throws(WireFailure) {
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
            var peek = reader
            let header = try MP4BoxHeader.read(from: &peek, available: UInt64(reader.remaining))
            entries.append(try MP4SampleDescription(entry: try reader.readSlice(Int(header.size)), handler: handler))
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

    /// For an MPEG-4 systems entry (`mp4a`, `mp4v`, `mp4s`), the object type in its `esds`:
    /// which codec it really carries (0x40 AAC, 0x6B MP3, 0x20 MPEG-4 Part 2, 0x6C JPEG, ...).
    package let objectTypeIndication: UInt8?

    /// For an Opus entry (`Opus` with a `dOps`), its `PreSkip`: how many samples (at 48 kHz) a
    /// decoder discards at the start of the stream, whatever the edit list says (RFC 7845 4.2;
    /// the Opus in ISOBMFF encapsulation, 4.3). An output whose first audio sample is Opus
    /// must hide at least that much of it by its edit.
    package let opusPreSkip: UInt16?

    /// The codec by its real identity: two descriptions may share a track only when these agree.
    package var codecIdentity: MP4CodecIdentity {
        MP4CodecIdentity(format: format, objectTypeIndication: objectTypeIndication)
    }

    /// Parses the sample entry box `entry` holds (exactly the box, header included).
    init(entry: ByteReader, handler: FourCC) throws(WireFailure) {
        var reader = entry
        let fileOffset = entry.offset
        let header = try MP4BoxHeader.read(from: &reader, available: UInt64(entry.remaining))
        // The read consumed 8 bytes, or 16 with a 64-bit size; a uuid's user type is the rest.
        try reader.skip(header.headerSize - Int(reader.offset - fileOffset))
        format = header.type
        try reader.skip(6)  // reserved
        _ = try reader.readUInt16()  // data_reference_index
        // One copy of the entry's bytes, changed in place (a track may have 65,536 entries).
        var normalised = entry.remainingBytes
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
        let children = childBoxes
        (codec, objectTypeIndication) = try MP4CodecParameters.read(format: format, childBoxes: &childBoxes)
        opusPreSkip = format == "Opus" ? try Self.opusPreSkip(in: children) : nil
    }

    /// `PreSkip` of the `dOps` among `children` (after its Version and OutputChannelCount bytes).
    private static func opusPreSkip(in children: ByteReader) throws(WireFailure) -> UInt16? {
        var reader = children
        while reader.remaining >= 8 {
            let (header, box) = try MP4BoxHeader.readBox(from: &reader)
            guard header.type == "dOps" else { continue }
            var payload = box
            try payload.skip(2)
            return try payload.readUInt16()
        }
        return nil
    }
}

/// A codec's parameters, parsed far enough to compare settings and to make silence.
package enum MP4CodecParameters: Sendable, Equatable {
    case avc(AVCDecoderConfiguration)
    case hevc(HEVCDecoderConfiguration)
    case aac(AudioSpecificConfig)
    /// A codec this library copies but does not look into.
    case other

    /// The codec's parameters and, for an MPEG-4 systems entry, its `esds` object type, from the
    /// sample entry's child boxes. `insideWave` is set while reading the boxes of a QuickTime
    /// `wave`, which is never nested in another: a `wave` there is skipped, so nested headers
    /// cannot recurse without end.
    static func read(format: FourCC, childBoxes reader: inout ByteReader,
                     insideWave: Bool = false) throws(WireFailure) -> (MP4CodecParameters, objectType: UInt8?) {
        var found: MP4CodecParameters = .other
        var objectType: UInt8?
        while reader.remaining >= 8 {
            let (header, box) = try MP4BoxHeader.readBox(from: &reader)
            var payload = box
            switch header.type {
            case "avcC" where format == "avc1" || format == "avc3":
                found = .avc(try AVCDecoderConfiguration(parsing: &payload))
            case "hvcC" where format == "hvc1" || format == "hev1":
                found = .hevc(try HEVCDecoderConfiguration(parsing: &payload))
            case "esds" where objectType == nil && MP4CodecIdentity.esdsFormats.contains(format):
                let descriptor = try ElementaryStreamDescriptor(parsing: &payload)
                objectType = descriptor.objectTypeIndication
                if format == "mp4a", let config = descriptor.audioSpecificConfig { found = .aac(config) }
            case "wave" where format == "mp4a" && !insideWave:
                // QuickTime wraps the esds in a 'wave' box.
                var inner = payload
                let nested = try read(format: format, childBoxes: &inner, insideWave: true)
                if nested.0 != .other { found = nested.0 }
                if objectType == nil { objectType = nested.objectType }
            default:
                break
            }
        }
        return (found, objectType)
    }
}
