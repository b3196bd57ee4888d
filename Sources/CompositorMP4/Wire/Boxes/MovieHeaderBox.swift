import CompositorCore

/// `mvhd`: the movie's timescale and duration (ISO/IEC 14496-12, 8.2.2).
struct MovieHeaderBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "mvhd"
    var timescale: UInt32
    /// In `timescale` units: the length of the longest track's edit list.
    var duration: UInt64
    var nextTrackID: UInt32

    init(timescale: UInt32, duration: UInt64, nextTrackID: UInt32) {
        self.timescale = timescale
        self.duration = duration
        self.nextTrackID = nextTrackID
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let times = try HeaderTimes.read(Self.type, what: "movie", from: &reader)
        timescale = times.timescale
        duration = times.duration
        // rate, volume, reserved, matrix, pre_defined
        try reader.skip(4 + 2 + 10 + 36 + 24)
        nextTrackID = try reader.readUInt32()
    }

    func writePayload(to writer: inout ByteWriter) {
        HeaderTimes(timescale: timescale, duration: duration).write(to: &writer)
        writer.write(UInt32(0x0001_0000))  // rate 1.0
        writer.write(UInt16(0x0100))       // volume 1.0
        writer.write(zeros: 10)
        writer.write(DisplayMatrix.identity)
        writer.write(zeros: 24)
        writer.write(nextTrackID)
    }
}
