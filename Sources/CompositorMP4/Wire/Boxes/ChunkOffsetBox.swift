import CompositorCore

/// `stco` (32-bit) or `co64` (64-bit): the file offset of each chunk (8.7.5).
struct ChunkOffsetBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "stco"
    static let wideType: FourCC = "co64"
    var offsets: [UInt64]

    init(offsets: [UInt64]) { self.offsets = offsets }

    /// Whether the offsets need `co64`.
    var needsWideOffsets: Bool { offsets.contains { $0 > UInt64(UInt32.max) } }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        try self.init(parsing: &reader, wide: false)
    }

    init(parsing reader: inout ByteReader, wide: Bool) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        let count = try reader.readUInt32()
        try reader.requireTable(count: UInt64(count), entrySize: wide ? 8 : 4, wide ? "co64" : "stco")
        offsets = []
        offsets.reserveCapacity(Int(count))
        for _ in 0..<count { offsets.append(wide ? try reader.readUInt64() : UInt64(try reader.readUInt32())) }
    }

    /// Writes the payload: 64-bit entries (`co64`) when `wide`, 32-bit (`stco`) otherwise.
    func writePayload(to writer: inout ByteWriter, wide: Bool) {
        writer.writeVersion(0)
        writer.write(UInt32(offsets.count))
        for offset in offsets {
            if wide { writer.write(offset) } else { writer.write(UInt32(offset)) }
        }
    }

    func writePayload(to writer: inout ByteWriter) { writePayload(to: &writer, wide: needsWideOffsets) }
}

extension ByteWriter {
    /// `stco`, or `co64` when an offset needs 64 bits: the box's type always says how wide its
    /// entries are (the generic `write(box:)` would label 64-bit entries `stco`).
    mutating func write(box: ChunkOffsetBox) {
        let wide = box.needsWideOffsets
        writeBox(wide ? ChunkOffsetBox.wideType : ChunkOffsetBox.type) { box.writePayload(to: &$0, wide: wide) }
    }
}
