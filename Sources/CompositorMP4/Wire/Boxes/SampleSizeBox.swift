import CompositorCore

/// `stsz` (or the compact `stz2`): the byte size of each sample (8.7.3).
struct SampleSizeBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "stsz"
    enum Sizes: Sendable, Equatable {
        /// Every sample has this size.
        case constant(size: UInt32, count: UInt32)
        case table([UInt32])
    }
    var sizes: Sizes

    var count: Int {
        switch sizes {
        case .constant(_, let count): return Int(count)
        case .table(let sizes): return sizes.count
        }
    }

    /// The size of sample `index` (0-based).
    func size(at index: Int) -> UInt32 {
        switch sizes {
        case .constant(let size, _): return size
        case .table(let sizes): return sizes[index]
        }
    }

    init(sizes: Sizes) { self.sizes = sizes }

    /// A constant-size box when all sizes agree, a table otherwise.
    init(sampleSizes: [UInt32]) {
        if let first = sampleSizes.first, first > 0, sampleSizes.allSatisfy({ $0 == first }) {
            sizes = .constant(size: first, count: UInt32(sampleSizes.count))
        } else {
            sizes = .table(sampleSizes)
        }
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        let size = try reader.readUInt32()
        let count = try reader.readUInt32()
        if size != 0 {
            sizes = .constant(size: size, count: count)
            return
        }
        try reader.requireTable(count: UInt64(count), entrySize: 4, "stsz")
        var table: [UInt32] = []
        table.reserveCapacity(Int(count))
        for _ in 0..<count { table.append(try reader.readUInt32()) }
        sizes = .table(table)
    }

    /// Decodes an `stz2` payload: 4-, 8- or 16-bit sizes.
    init(parsingCompact reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        try reader.skip(3)
        let fieldSize = try reader.readUInt8()
        let count = try reader.readUInt32()
        guard [4, 8, 16].contains(fieldSize) else {
            throw .malformed("stz2 field size \(fieldSize) is not 4, 8 or 16", at: reader.offset - 5)
        }
        let bytes = (UInt64(count) * UInt64(fieldSize) + 7) / 8
        try reader.requireTable(count: bytes, entrySize: 1, "stz2")
        var table: [UInt32] = []
        table.reserveCapacity(Int(count))
        var index: UInt32 = 0
        while index < count {
            switch fieldSize {
            case 4:
                let byte = try reader.readUInt8()
                table.append(UInt32(byte >> 4))
                if index + 1 < count { table.append(UInt32(byte & 0xF)) }
                index += 2
            case 8:
                table.append(UInt32(try reader.readUInt8()))
                index += 1
            default:
                table.append(UInt32(try reader.readUInt16()))
                index += 1
            }
        }
        sizes = .table(table)
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        switch sizes {
        case .constant(let size, let count):
            writer.write(size)
            writer.write(count)
        case .table(let table):
            writer.write(UInt32(0))
            writer.write(UInt32(table.count))
            for size in table { writer.write(size) }
        }
    }
}
