import CompositorCore

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

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let times = try HeaderTimes.read(Self.type, what: "media", from: &reader)
        timescale = times.timescale
        duration = times.duration
        language = try reader.readUInt16()
    }

    func writePayload(to writer: inout ByteWriter) {
        HeaderTimes(timescale: timescale, duration: duration).write(to: &writer)
        writer.write(language)
        writer.write(zeros: 2)
    }
}
