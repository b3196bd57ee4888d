import CompositorCore

/// A bounds-checked, big-endian read cursor over bytes (a value type, in the manner of swift-nio's
/// `ByteBuffer`): every read checks the bytes are there and throws `WireFailure` when they are not.
///
/// The bytes are shared, not copied, by sub-readers; `fileOffset` is where byte 0 sits in the file,
/// so failures can name the absolute offset.
struct ByteReader: Sendable {
    private let storage: [UInt8]
    /// Index in `storage` of the next byte to read.
    private(set) var readerIndex: Int
    /// Index in `storage` one past the last readable byte.
    let endIndex: Int
    /// Offset in the file of `storage[0]`.
    let fileOffset: UInt64

    init(_ bytes: [UInt8], fileOffset: UInt64 = 0) {
        self.storage = bytes
        self.readerIndex = 0
        self.endIndex = bytes.count
        self.fileOffset = fileOffset
    }

    private init(storage: [UInt8], readerIndex: Int, endIndex: Int, fileOffset: UInt64) {
        self.storage = storage
        self.readerIndex = readerIndex
        self.endIndex = endIndex
        self.fileOffset = fileOffset
    }

    var remaining: Int { endIndex - readerIndex }
    var isAtEnd: Bool { readerIndex == endIndex }
    /// The file offset of the next byte.
    var offset: UInt64 { fileOffset + UInt64(readerIndex) }

    /// Throws unless `count` more bytes can be read; `what` names them in the message.
    func require(_ count: Int, _ what: @autoclosure () -> String) throws(WireFailure) {
        guard count >= 0, count <= remaining else {
            throw .malformed("\(what()) needs \(count) bytes, only \(remaining) left", at: offset)
        }
    }

    /// Throws unless a table of `count` entries of `entrySize` bytes fits in what is left: checked
    /// before anything is allocated, so a lying count cannot make us allocate.
    func requireTable(count: UInt64, entrySize: Int, _ what: @autoclosure () -> String) throws(WireFailure) {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: UInt64(entrySize))
        guard !overflow, bytes <= UInt64(remaining) else {
            throw .malformed(
                "\(what()) claims \(count) entries of \(entrySize) bytes, only \(remaining) bytes left", at: offset)
        }
    }

    mutating func readUInt8() throws(WireFailure) -> UInt8 {
        try require(1, "a byte")
        defer { readerIndex += 1 }
        return storage[readerIndex]
    }

    mutating func readUInt16() throws(WireFailure) -> UInt16 {
        try readBigEndian(UInt16.self, "a 16-bit integer")
    }

    mutating func readUInt24() throws(WireFailure) -> UInt32 {
        try require(3, "a 24-bit integer")
        defer { readerIndex += 3 }
        return UInt32(storage[readerIndex]) << 16 | UInt32(storage[readerIndex + 1]) << 8 | UInt32(storage[readerIndex + 2])
    }

    mutating func readUInt32() throws(WireFailure) -> UInt32 {
        try readBigEndian(UInt32.self, "a 32-bit integer")
    }

    mutating func readUInt64() throws(WireFailure) -> UInt64 {
        try readBigEndian(UInt64.self, "a 64-bit integer")
    }

    mutating func readInt16() throws(WireFailure) -> Int16 { Int16(bitPattern: try readUInt16()) }
    mutating func readInt32() throws(WireFailure) -> Int32 { Int32(bitPattern: try readUInt32()) }
    mutating func readInt64() throws(WireFailure) -> Int64 { Int64(bitPattern: try readUInt64()) }

    mutating func readFourCC() throws(WireFailure) -> FourCC {
        FourCC(rawValue: try readBigEndian(UInt32.self, "a four-character code"))
    }

    mutating func readBytes(_ count: Int) throws(WireFailure) -> [UInt8] {
        try require(count, "a run of bytes")
        defer { readerIndex += count }
        return Array(storage[readerIndex..<readerIndex + count])
    }

    /// A reader over the next `count` bytes, which this reader then skips.
    mutating func readSlice(_ count: Int) throws(WireFailure) -> ByteReader {
        try require(count, "a nested structure")
        defer { readerIndex += count }
        return ByteReader(storage: storage, readerIndex: readerIndex, endIndex: readerIndex + count, fileOffset: fileOffset)
    }

    mutating func skip(_ count: Int) throws(WireFailure) {
        try require(count, "skipped bytes")
        readerIndex += count
    }

    /// The unread bytes, without moving.
    var remainingBytes: [UInt8] { Array(storage[readerIndex..<endIndex]) }

    /// One load, not a byte at a time: sample tables are read through here, an integer a sample.
    private mutating func readBigEndian<Integer: FixedWidthInteger>(_: Integer.Type, _ what: @autoclosure () -> String) throws(WireFailure) -> Integer {
        let width = MemoryLayout<Integer>.size
        try require(width, what())
        defer { readerIndex += width }
        return Integer(bigEndian: storage.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: readerIndex, as: Integer.self) })
    }
}
