import CompositorCore

/// `ctts`: composition time minus decode time per sample, run-length coded (8.6.1.3).
/// Version 0 offsets are unsigned on paper, but writers put negative values there too; like
/// ffmpeg, both versions are read as signed 32-bit values.
struct CompositionOffsetBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "ctts"
    struct Entry: Sendable, Equatable {
        var count: UInt32
        var offset: Int32
    }
    var version: UInt8
    var entries: [Entry]

    init(version: UInt8, entries: [Entry]) {
        self.version = version
        self.entries = entries
    }

    /// Run-length codes per-sample offsets; version 1 only when one is negative.
    init(offsets: [Int32]) {
        self.init(version: 0, entries: [])
        for offset in offsets { append(offset) }
    }

    /// Appends one sample's offset, to the last entry when it has the same; a negative one makes
    /// the box version 1.
    mutating func append(_ offset: Int32) {
        if let last = entries.last, last.offset == offset, last.count < UInt32.max {
            entries[entries.count - 1].count += 1
        } else {
            entries.append(Entry(count: 1, offset: offset))
        }
        if offset < 0 { version = 1 }
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let start = reader.offset
        let full = try FullBoxHeader.read(from: &reader)
        try full.require(versions: 0...1, of: Self.type, at: start)
        version = full.version
        let count = try reader.readUInt32()
        try reader.requireTable(count: UInt64(count), entrySize: 8, "ctts")
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append(Entry(count: try reader.readUInt32(), offset: try reader.readInt32())) }
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(version)
        writer.write(UInt32(entries.count))
        for entry in entries {
            writer.write(entry.count)
            writer.write(entry.offset)
        }
    }
}
