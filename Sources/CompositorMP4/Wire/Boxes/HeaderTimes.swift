import CompositorCore

/// The fields `mvhd` and `mdhd` open with: creation and modification time, timescale, duration.
/// Version 0 stores the times and the duration in 32 bits, version 1 in 64.
struct HeaderTimes {
    var timescale: UInt32
    var duration: UInt64

    /// Reads the version and flags and the four fields; `what` names the timescale in errors.
    static func read(_ type: FourCC, what: String, from reader: inout ByteReader) throws(WireFailure) -> HeaderTimes {
        let start = reader.offset
        let full = try FullBoxHeader.read(from: &reader)
        try full.require(versions: 0...1, of: type, at: start)
        let times: HeaderTimes
        if full.version == 1 {
            try reader.skip(16)
            times = HeaderTimes(timescale: try reader.readUInt32(), duration: try reader.readUInt64())
        } else {
            try reader.skip(8)
            times = HeaderTimes(timescale: try reader.readUInt32(), duration: UInt64(try reader.readUInt32()))
        }
        guard times.timescale > 0, times.timescale <= UInt32(Int32.max) else {
            throw .malformed("\(what) timescale \(times.timescale) is not in 1...\(Int32.max)", at: start)
        }
        return times
    }

    /// Writes the version and flags and the four fields, in version 1 only when the duration needs it.
    func write(to writer: inout ByteWriter) {
        let wide = duration > UInt64(UInt32.max)
        writer.writeVersion(wide ? 1 : 0)
        writer.write(zeros: wide ? 16 : 8)
        writer.write(timescale)
        if wide { writer.write(duration) } else { writer.write(UInt32(duration)) }
    }
}
