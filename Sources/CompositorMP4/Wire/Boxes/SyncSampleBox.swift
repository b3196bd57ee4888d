import CompositorCore

/// `stss`: the 1-based numbers of the sync samples (keyframes); without it every sample is one (8.6.2).
struct SyncSampleBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "stss"
    var sampleNumbers: [UInt32]

    init(sampleNumbers: [UInt32]) { self.sampleNumbers = sampleNumbers }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        let count = try reader.readUInt32()
        try reader.requireTable(count: UInt64(count), entrySize: 4, "stss")
        sampleNumbers = []
        sampleNumbers.reserveCapacity(Int(count))
        for _ in 0..<count { sampleNumbers.append(try reader.readUInt32()) }
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(UInt32(sampleNumbers.count))
        for number in sampleNumbers { writer.write(number) }
    }
}
