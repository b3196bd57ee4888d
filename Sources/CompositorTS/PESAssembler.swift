/// A PES packet put back together from the payloads of its transport stream packets.
package struct PESPacket: Sendable {
    package let pid: UInt16
    /// Where the transport stream packet that starts it is, in bytes into the segment.
    package let offset: UInt64
    package let header: PESHeader
    /// The elementary stream bytes after the PES header.
    package let payload: [UInt8]
}

/// Puts PES packets back together from transport stream packets, for the PIDs it is given.
///
/// A packet is complete when its stated length is reached, or, for an unbounded one (video may
/// leave the length 0), when the next one on its PID starts or the segment ends (`finish()`).
package struct PESAssembler: Sendable {
    private struct Pending: Sendable {
        let pid: UInt16
        let offset: UInt64
        var bytes: [UInt8]
        /// The whole PES packet's size, when its header states it.
        var expected: Int?
        var continuity: UInt8
    }

    /// The PIDs assembled: a program's few streams, so a list, searched in order.
    package var pids: [UInt16]
    /// The packets being put together, one per PID at most, in the order they started. Their
    /// bytes grow in place: a packet taken out to be appended to would be copied whole each time.
    private var pending: [Pending] = []
    /// The largest PES packet put together: far above any access unit HLS carries (a 4K intra
    /// frame is a few MB), so hostile input cannot make one take the whole segment into memory.
    package static let maximumPacketSize = 64 << 20

    package init(pids: [UInt16] = []) { self.pids = pids }

    /// Adds one packet (`bytes`, 188 of them, at `offset`); returns the PES packet it completes,
    /// if any. Payload of a PID not yet started (a segment cut mid-packet) is dropped.
    package mutating func add(_ packet: TSPacket, bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(TSParseFailure) -> PESPacket? {
        guard packet.hasPayload, pids.contains(packet.pid) else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.payloadStart...])
        let open = pending.firstIndex { $0.pid == packet.pid }
        if packet.payloadUnitStart {
            var completed: PESPacket?
            if let open { completed = try Self.finished(pending.remove(at: open)) }
            var started = Pending(pid: packet.pid, offset: offset, bytes: [], expected: nil, continuity: packet.continuityCounter)
            started.bytes.reserveCapacity(4096)
            started.bytes.append(contentsOf: payload)
            if started.bytes.count >= 6 {
                let length = Int(started.bytes[4]) << 8 | Int(started.bytes[5])
                if length > 0 { started.expected = 6 + length }
            }
            pending.append(started)
            if let completed { return completed }
            return try completeIfFull(pending.count - 1)
        }
        guard let open else { return nil }
        let next = (pending[open].continuity + 1) & 0x0F
        guard packet.continuityCounter == next else {
            // A repeated packet (same counter) is allowed once by 2.4.3.3; anything else lost data.
            if packet.continuityCounter == pending[open].continuity { return nil }
            throw .malformed("PID 0x\(hex(packet.pid)): continuity counter \(packet.continuityCounter) after \(pending[open].continuity) "
                             + "(a packet is missing)", at: offset + 3)
        }
        pending[open].continuity = next
        guard pending[open].bytes.count + payload.count <= Self.maximumPacketSize else {
            throw .unsupported("PID 0x\(hex(packet.pid)): a PES packet over \(Self.maximumPacketSize >> 20) MiB", at: pending[open].offset)
        }
        pending[open].bytes.append(contentsOf: payload)
        return try completeIfFull(open)
    }

    /// The PES packets still open at the end of the segment, in the order they started.
    package mutating func finish() throws(TSParseFailure) -> [PESPacket] {
        defer { pending = [] }
        var packets: [PESPacket] = []
        for open in pending { packets.append(try Self.finished(open)) }
        return packets
    }

    /// Pending packet `index`, taken out and finished when it holds all the bytes its header states.
    private mutating func completeIfFull(_ index: Int) throws(TSParseFailure) -> PESPacket? {
        guard let expected = pending[index].expected, pending[index].bytes.count >= expected else { return nil }
        return try Self.finished(pending.remove(at: index))
    }

    private static func finished(_ pending: Pending) throws(TSParseFailure) -> PESPacket {
        if let expected = pending.expected, pending.bytes.count < expected {
            throw .malformed("PID 0x\(hex(pending.pid)): a PES packet of \(expected) bytes ends after \(pending.bytes.count)", at: pending.offset)
        }
        let end = min(pending.bytes.count, pending.expected ?? .max)
        return try pending.bytes.withUnsafeBytes { raw in
            Result { () throws(TSParseFailure) in
                let header = try PESHeader(UnsafeRawBufferPointer(rebasing: raw[0..<end]), at: pending.offset)
                return PESPacket(pid: pending.pid, offset: pending.offset, header: header,
                                 payload: Array(raw[header.headerLength..<end]))
            }
        }.get()
    }
}
