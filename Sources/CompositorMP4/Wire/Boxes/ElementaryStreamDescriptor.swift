import CompositorCore

/// `esds`: the MPEG-4 elementary stream descriptor (ISO/IEC 14496-1, 7.2.6.5), read as far as the
/// decoder configuration and, for MPEG-4 audio, its AudioSpecificConfig.
struct ElementaryStreamDescriptor: Sendable, Equatable {
    /// 0x40 is MPEG-4 audio (AAC); 0x6B is MP3.
    var objectTypeIndication: UInt8?
    var decoderSpecificInfo: [UInt8]?

    var audioSpecificConfig: AudioSpecificConfig? {
        guard objectTypeIndication == 0x40, let info = decoderSpecificInfo else { return nil }
        return try? AudioSpecificConfig(bytes: info)
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        var descriptor = try Self.readDescriptor(from: &reader, expecting: 0x03)
        _ = try descriptor.readUInt16()  // ES_ID
        let flags = try descriptor.readUInt8()
        if flags & 0x80 != 0 { try descriptor.skip(2) }  // dependsOn_ES_ID
        if flags & 0x40 != 0 { try descriptor.skip(Int(try descriptor.readUInt8())) }  // URL
        if flags & 0x20 != 0 { try descriptor.skip(2) }  // OCR_ES_Id
        var config = try Self.readDescriptor(from: &descriptor, expecting: 0x04)
        objectTypeIndication = try config.readUInt8()
        try config.skip(12)  // streamType, bufferSizeDB, maxBitrate, avgBitrate
        if config.remaining >= 2 {
            var info = try Self.readDescriptor(from: &config, expecting: 0x05)
            decoderSpecificInfo = info.remainingBytes
            try info.skip(info.remaining)
        } else {
            decoderSpecificInfo = nil
        }
    }

    /// A descriptor's body: a tag byte, then a length in 7-bit groups (high bit: more follow).
    private static func readDescriptor(from reader: inout ByteReader, expecting tag: UInt8) throws(WireFailure) -> ByteReader {
        let start = reader.offset
        let found = try reader.readUInt8()
        guard found == tag else {
            throw .malformed("expected descriptor tag \(tag), found \(found)", at: start)
        }
        var length = 0
        for index in 0..<4 {
            let byte = try reader.readUInt8()
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
            if index == 3 { throw .malformed("descriptor length runs past 4 bytes", at: start) }
        }
        return try reader.readSlice(length)
    }
}
