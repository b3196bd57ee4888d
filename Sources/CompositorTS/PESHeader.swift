import CompositorCore
/// The header of a PES packet (ISO/IEC 13818-1, 2.4.3.6): its stream, timestamps and where its
/// payload starts.
package struct PESHeader: Sendable, Equatable {
    package let streamID: UInt8
    /// `PES_packet_length`: the bytes after the length field, or `nil` when unbounded (0, allowed
    /// for video).
    package let packetLength: Int?
    /// Presentation and decode timestamps, 33-bit values of a 90 kHz clock; `dts` is the PTS when
    /// the header carries only a PTS.
    package let pts: UInt64?
    package let dts: UInt64?
    /// Bytes from the PES start to the first payload byte.
    package let headerLength: Int

    /// Ticks per second of PTS and DTS (and of the PCR's base).
    package static let clockRate: Int64 = 90_000

    /// Parses the header at the start of `bytes` (the PES packet's first bytes), found `offset`
    /// bytes into the segment.
    package init(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) {
        guard bytes.count >= 9 else { throw .malformed("a PES header cut short (\(bytes.count) bytes)", at: offset) }
        guard bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 else {
            throw .malformed("a PES packet that does not start with 00 00 01", at: offset)
        }
        streamID = bytes[3]
        let length = Int(bytes[4]) << 8 | Int(bytes[5])
        packetLength = length == 0 ? nil : length
        guard bytes[6] & 0xC0 == 0x80 else {
            throw .unsupported("a PES header without the optional fields (stream id 0x\(hex(streamID)))", at: offset)
        }
        let flags = bytes[7] >> 6
        headerLength = 9 + Int(bytes[8])
        guard headerLength <= bytes.count else {
            throw .malformed("a PES header of \(headerLength) bytes runs past its packet", at: offset)
        }
        switch flags {
        case 0b10:
            guard headerLength >= 14 else { throw .malformed("a PTS flag without room for the PTS", at: offset) }
            pts = try Self.timestamp(bytes, at: 9, offset: offset)
            dts = pts
        case 0b11:
            guard headerLength >= 19 else { throw .malformed("PTS and DTS flags without room for both", at: offset) }
            pts = try Self.timestamp(bytes, at: 9, offset: offset)
            dts = try Self.timestamp(bytes, at: 14, offset: offset)
        case 0b01:
            throw .malformed("a PES header with a DTS but no PTS", at: offset + 7)
        default:
            pts = nil
            dts = nil
        }
    }

    /// A 33-bit timestamp in its 5-byte form, with its marker bits checked.
    private static func timestamp(_ bytes: UnsafeRawBufferPointer, at index: Int, offset: UInt64) throws(WireFailure) -> UInt64 {
        guard bytes[index] & 1 == 1, bytes[index + 2] & 1 == 1, bytes[index + 4] & 1 == 1 else {
            throw .malformed("a PES timestamp with a marker bit clear", at: offset + UInt64(index))
        }
        let high = UInt64(bytes[index] >> 1) & 0x7
        let middle = UInt64(bytes[index + 1]) << 7 | UInt64(bytes[index + 2] >> 1)
        let low = UInt64(bytes[index + 3]) << 7 | UInt64(bytes[index + 4] >> 1)
        return high << 30 | middle << 15 | low
    }
}

/// 33-bit timestamps made continuous: each is placed within half the range (about 13 hours) of the
/// previous one, so a wrap at 2^33 counts on instead of going back.
package struct TimestampUnwrapper: Sendable {
    package static let range: Int64 = 1 << 33
    private var last: Int64?

    package init() {}

    package mutating func unwrap(_ timestamp: UInt64) -> Int64 {
        var value = Int64(timestamp & UInt64(Self.range - 1))
        if let last {
            // The wrap count of the previous value, then the candidate nearest it.
            value += (last - value + Self.range / 2).floorDivided(by: Self.range) * Self.range
        }
        last = value
        return value
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
