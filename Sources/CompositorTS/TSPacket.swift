import CompositorCore
/// One 188-byte transport stream packet's header (ISO/IEC 13818-1, 2.4.3.2) and where its payload is.
package struct TSPacket: Sendable, Equatable {
    package static let size = 188
    package static let syncByte: UInt8 = 0x47

    package let pid: UInt16
    /// A PES packet or a section starts in this payload.
    package let payloadUnitStart: Bool
    package let continuityCounter: UInt8
    /// The adaptation field's discontinuity indicator: the timestamps restart here.
    package let discontinuity: Bool
    /// The payload's bytes within the packet, `[payloadStart, 188)`; empty when it has none.
    package let payloadStart: Int

    package var hasPayload: Bool { payloadStart < Self.size }

    /// Parses the packet in `bytes` (exactly 188 bytes) found `offset` bytes into the segment.
    package init(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) {
        guard bytes.count == Self.size else {
            throw .malformed("a packet of \(bytes.count) bytes; transport stream packets are 188", at: offset)
        }
        guard bytes[0] == Self.syncByte else {
            throw .malformed("no sync byte (0x47) at the start of a packet (found 0x\(hex(bytes[0])))", at: offset)
        }
        if bytes[1] & 0x80 != 0 {
            throw .malformed("the packet's transport error indicator is set (a damaged packet)", at: offset + 1)
        }
        payloadUnitStart = bytes[1] & 0x40 != 0
        pid = UInt16(bytes[1] & 0x1F) << 8 | UInt16(bytes[2])
        let control = (bytes[3] >> 4) & 0x3
        continuityCounter = bytes[3] & 0x0F
        var start = 4
        var discontinuity = false
        if control & 0x2 != 0 {
            let length = Int(bytes[4])
            guard 5 + length <= Self.size else {
                throw .malformed("an adaptation field of \(length) bytes runs past the packet's end", at: offset + 4)
            }
            if length > 0 { discontinuity = bytes[5] & 0x80 != 0 }
            start = 5 + length
        }
        self.discontinuity = discontinuity
        payloadStart = control & 0x1 != 0 ? start : Self.size
    }
}

func hex(_ value: some BinaryInteger) -> String { String(value, radix: 16, uppercase: true) }
