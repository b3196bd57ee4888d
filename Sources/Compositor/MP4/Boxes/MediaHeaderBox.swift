/// `mdhd`: the media's timescale and duration (8.4.2).
struct MediaHeaderBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "mdhd"
    var timescale: UInt32
    /// In `timescale` units: the sum of the sample durations.
    var duration: UInt64
    /// ISO 639-2/T code packed as three 5-bit letters; `und` is 0x55C4.
    var language: UInt16

    init(timescale: UInt32, duration: UInt64, language: UInt16 = 0x55C4) {
        self.timescale = timescale
        self.duration = duration
        self.language = language
    }

    init(parsing reader: inout ByteReader) throws(MP4ParseFailure) {
        let start = reader.offset
        let full = try FullBoxHeader.read(from: &reader)
        try full.require(versions: 0...1, of: Self.type, at: start)
        if full.version == 1 {
            try reader.skip(16)
            timescale = try reader.readUInt32()
            duration = try reader.readUInt64()
        } else {
            try reader.skip(8)
            timescale = try reader.readUInt32()
            duration = UInt64(try reader.readUInt32())
        }
        guard timescale > 0, timescale <= UInt32(Int32.max) else {
            throw .malformed("media timescale \(timescale) is not in 1...\(Int32.max)", at: start)
        }
        language = try reader.readUInt16()
    }

    func writePayload(to writer: inout ByteWriter) {
        let wide = duration > UInt64(UInt32.max)
        writer.writeVersion(wide ? 1 : 0)
        if wide {
            writer.write(zeros: 16)
            writer.write(timescale)
            writer.write(duration)
        } else {
            writer.write(zeros: 8)
            writer.write(timescale)
            writer.write(UInt32(duration))
        }
        writer.write(language)
        writer.write(zeros: 2)
    }
}
