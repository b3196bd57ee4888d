import CompositorCore

/// `elst`: how the media timeline maps onto the presentation (8.6.6).
struct EditListBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "elst"
    var entries: [MP4EditListEntry]

    init(entries: [MP4EditListEntry]) { self.entries = entries }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let start = reader.offset
        let full = try FullBoxHeader.read(from: &reader)
        try full.require(versions: 0...1, of: Self.type, at: start)
        let count = try reader.readUInt32()
        try reader.requireTable(count: UInt64(count), entrySize: full.version == 1 ? 20 : 12, "elst")
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let duration: UInt64, mediaTime: Int64
            if full.version == 1 {
                duration = try reader.readUInt64()
                mediaTime = try reader.readInt64()
            } else {
                duration = UInt64(try reader.readUInt32())
                mediaTime = Int64(try reader.readInt32())
            }
            let rateInteger = try reader.readInt16()
            let rateFraction = try reader.readInt16()
            guard mediaTime >= -1 else {
                throw .malformed("edit media time \(mediaTime) is negative (only -1, an empty edit, is allowed)", at: reader.offset)
            }
            entries.append(MP4EditListEntry(segmentDuration: duration, mediaTime: mediaTime == -1 ? nil : mediaTime,
                                            rateInteger: rateInteger, rateFraction: rateFraction))
        }
    }

    func writePayload(to writer: inout ByteWriter) {
        let wide = entries.contains { $0.segmentDuration > UInt64(UInt32.max) || Int32(exactly: $0.mediaTime ?? 0) == nil }
        writer.writeVersion(wide ? 1 : 0)
        writer.write(UInt32(entries.count))
        for entry in entries {
            if wide {
                writer.write(entry.segmentDuration)
                writer.write(entry.mediaTime ?? -1)
            } else {
                writer.write(UInt32(entry.segmentDuration))
                writer.write(Int32(entry.mediaTime ?? -1))
            }
            writer.write(entry.rateInteger)
            writer.write(entry.rateFraction)
        }
    }
}

/// One edit: `segmentDuration` of presentation (movie timescale) showing the media from
/// `mediaTime` (media timescale), or nothing (`mediaTime == nil`, an empty edit).
package struct MP4EditListEntry: Sendable, Equatable {
    package var segmentDuration: UInt64
    /// Where in the media the edit starts; `nil` for an empty edit (written as -1).
    package var mediaTime: Int64?
    package var rateInteger: Int16
    package var rateFraction: Int16

    package init(segmentDuration: UInt64, mediaTime: Int64?, rateInteger: Int16 = 1, rateFraction: Int16 = 0) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.rateInteger = rateInteger
        self.rateFraction = rateFraction
    }

    package var isEmpty: Bool { mediaTime == nil }
    /// A dwell: media rate 0, the frame at `mediaTime` held for `segmentDuration`.
    package var isDwell: Bool { mediaTime != nil && rateInteger == 0 && rateFraction == 0 }
    /// Rate 1, the media played as it is.
    package var playsAtNormalRate: Bool { rateInteger == 1 && rateFraction == 0 }
}
