import CompositorCore

/// `tkhd`: a track's ID, presentation duration (movie timescale), display matrix and size (8.3.2).
struct TrackHeaderBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "tkhd"
    /// Enabled, in movie, in preview.
    var flags: UInt32
    var trackID: UInt32
    /// In the movie timescale.
    var duration: UInt64
    var volume: UInt16
    var matrix: DisplayMatrix
    /// 16.16 fixed point.
    var width: UInt32
    var height: UInt32

    init(flags: UInt32 = 0x3, trackID: UInt32, duration: UInt64, volume: UInt16, matrix: DisplayMatrix = .identity,
         width: UInt32, height: UInt32) {
        self.flags = flags
        self.trackID = trackID
        self.duration = duration
        self.volume = volume
        self.matrix = matrix
        self.width = width
        self.height = height
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let start = reader.offset
        let full = try FullBoxHeader.read(from: &reader)
        try full.require(versions: 0...1, of: Self.type, at: start)
        flags = full.flags
        if full.version == 1 {
            try reader.skip(16)
            trackID = try reader.readUInt32()
            try reader.skip(4)
            duration = try reader.readUInt64()
        } else {
            try reader.skip(8)
            trackID = try reader.readUInt32()
            try reader.skip(4)
            duration = UInt64(try reader.readUInt32())
        }
        try reader.skip(8 + 2 + 2)  // reserved, layer, alternate_group
        volume = try reader.readUInt16()
        try reader.skip(2)
        matrix = try reader.readDisplayMatrix()
        width = try reader.readUInt32()
        height = try reader.readUInt32()
    }

    func writePayload(to writer: inout ByteWriter) {
        let wide = duration > UInt64(UInt32.max)
        writer.writeVersion(wide ? 1 : 0, flags: flags)
        if wide {
            writer.write(zeros: 16)
            writer.write(trackID)
            writer.write(zeros: 4)
            writer.write(duration)
        } else {
            writer.write(zeros: 8)
            writer.write(trackID)
            writer.write(zeros: 4)
            writer.write(UInt32(duration))
        }
        writer.write(zeros: 8 + 2 + 2)
        writer.write(volume)
        writer.write(zeros: 2)
        writer.write(matrix)
        writer.write(width)
        writer.write(height)
    }
}
