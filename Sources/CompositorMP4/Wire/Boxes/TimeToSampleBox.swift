import CompositorCore

/// `stts`: decode durations, run-length coded (8.6.1.2).
struct TimeToSampleBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "stts"
    struct Entry: Sendable, Equatable {
        var count: UInt32
        var delta: UInt32
    }
    var entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    /// Run-length codes per-sample durations.
    init(durations: [UInt32]) {
        entries = []
        for duration in durations { append(duration) }
    }

    /// Appends one sample's duration, to the last entry when it has the same.
    mutating func append(_ duration: UInt32) {
        if let last = entries.last, last.delta == duration, last.count < UInt32.max {
            entries[entries.count - 1].count += 1
        } else {
            entries.append(Entry(count: 1, delta: duration))
        }
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        let count = try reader.readUInt32()
        try reader.requireTable(count: UInt64(count), entrySize: 8, "stts")
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append(Entry(count: try reader.readUInt32(), delta: try reader.readUInt32())) }
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(UInt32(entries.count))
        for entry in entries {
            writer.write(entry.count)
            writer.write(entry.delta)
        }
    }
}
