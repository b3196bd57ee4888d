import CompositorCore

/// Big-endian bytes being built: box payloads, whole boxes, tables.
struct ByteWriter: Sendable {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    /// The bytes `body` writes.
    static func bytes(_ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter()
        body(&writer)
        return writer.bytes
    }

    mutating func write(_ value: UInt8) { bytes.append(value) }
    mutating func write(_ value: UInt16) { append(UInt64(value), width: 2) }
    mutating func write(_ value: UInt32) { append(UInt64(value), width: 4) }
    mutating func write(_ value: UInt64) { append(value, width: 8) }
    mutating func write(_ value: Int16) { write(UInt16(bitPattern: value)) }
    mutating func write(_ value: Int32) { write(UInt32(bitPattern: value)) }
    mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }
    mutating func write(_ code: FourCC) { write(code.rawValue) }
    mutating func write(uint24 value: UInt32) { append(UInt64(value), width: 3) }
    mutating func write(_ other: [UInt8]) { bytes.append(contentsOf: other) }
    mutating func write(zeros count: Int) { bytes.appendZeros(count) }

    /// A full box's version and flags.
    mutating func writeVersion(_ version: UInt8, flags: UInt32 = 0) {
        write(version)
        write(uint24: flags)
    }

    /// Writes a box of `type` whose payload `body` writes; the size is filled in afterwards, as a
    /// 64-bit `largesize` when the box reaches 4 GiB. The payload is written in place, never copied
    /// from a buffer of its own (a `moov` nests five deep).
    mutating func writeBox(_ type: FourCC, _ body: (inout ByteWriter) -> Void) {
        let start = bytes.count
        write(UInt32(0))
        write(type)
        body(&self)
        let size = UInt64(bytes.count - start)
        if size <= UInt64(UInt32.max) {
            patch(size, at: start, width: 4)
        } else {
            // The header grows by the 8-byte largesize, inserted after the type.
            bytes.insert(contentsOf: repeatElement(0, count: 8), at: start + 8)
            patch(1, at: start, width: 4)
            patch(size + 8, at: start + 8, width: 8)
        }
    }

    /// Overwrites the `width` bytes at `offset` (written before) with `value`'s low bytes, big-endian.
    mutating func patch(_ value: UInt64, at offset: Int, width: Int) {
        withUnsafeBytes(of: value.bigEndian) { big in
            for index in 0..<width { bytes[offset + index] = big[8 - width + index] }
        }
    }

    /// A box header for a payload of `payloadSize` bytes that the caller writes next.
    mutating func writeBoxHeader(_ type: FourCC, payloadSize: UInt64) {
        if payloadSize + 8 <= UInt64(UInt32.max) {
            write(UInt32(payloadSize + 8))
            write(type)
        } else {
            write(UInt32(1))
            write(type)
            write(payloadSize + 16)
        }
    }

    private mutating func append(_ value: UInt64, width: Int) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0[(8 - width)...]) }
    }
}
