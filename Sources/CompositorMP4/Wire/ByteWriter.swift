import CompositorCore

/// Big-endian bytes being built: box payloads, whole boxes, tables.
struct ByteWriter: Sendable {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

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
    mutating func write(zeros count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    /// A full box's version and flags.
    mutating func writeVersion(_ version: UInt8, flags: UInt32 = 0) {
        write(version)
        write(uint24: flags)
    }

    /// Writes a box of `type` whose payload `body` writes; the size is filled in afterwards, as a
    /// 64-bit `largesize` when the box reaches 4 GiB.
    mutating func writeBox(_ type: FourCC, _ body: (inout ByteWriter) -> Void) {
        var payload = ByteWriter()
        body(&payload)
        writeBoxHeader(type, payloadSize: UInt64(payload.count))
        bytes.append(contentsOf: payload.bytes)
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
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
