import CompositorCore
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
        /// The PES packet's bytes until its header is whole, then only its payload: the header is
        /// taken off while it is a few bytes, so the payload is handed over as it is, not copied.
        var bytes: [UInt8]
        var header: PESHeader?
        /// Bytes received, header included.
        var received: Int
        /// The whole PES packet's size, when its header states it.
        var expected: Int?
        var continuity: UInt8

        /// Parses the header once `bytes` hold it all, and drops it from them.
        mutating func takeHeader() throws(WireFailure) {
            guard header == nil, bytes.count >= 9, bytes.count >= 9 + Int(bytes[8]) else { return }
            let parsed = try bytes.withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try PESHeader(UnsafeRawBufferPointer(rebasing: raw[0..<(9 + Int(raw[8]))]), at: offset) }
            }.get()
            bytes.removeFirst(parsed.headerLength)
            header = parsed
        }
    }

    /// The PIDs assembled: a program's few streams, so a list, searched in order.
    package var pids: [UInt16]
    /// The packets being put together, one per PID at most, in the order they started. Their
    /// bytes grow in place: a packet taken out to be appended to would be copied whole each time.
    private var pending: [Pending] = []
    /// Each PID's last unbounded PES packet's size: room set aside for the next, so its bytes are
    /// not copied again and again as they grow.
    private var lastSizes: [(pid: UInt16, size: Int)] = []
    /// The largest PES packet put together: far above any access unit HLS carries (a 4K intra
    /// frame is a few MB), so hostile input cannot make one take the whole segment into memory.
    package static let maximumPacketSize = 64 << 20

    package init(pids: [UInt16] = []) { self.pids = pids }

    /// Adds one packet (`bytes`, 188 of them, at `offset`); returns the PES packet it completes,
    /// if any. Payload of a PID not yet started (a segment cut mid-packet) is dropped.
    package mutating func add(_ packet: TSPacket, bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) -> PESPacket? {
        guard packet.hasPayload, pids.contains(packet.pid) else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.payloadStart...])
        let open = pending.firstIndex { $0.pid == packet.pid }
        if packet.payloadUnitStart {
            var completed: PESPacket?
            if let open { completed = try finished(pending.remove(at: open)) }
            var started = Pending(pid: packet.pid, offset: offset, bytes: [], header: nil, received: payload.count, expected: nil,
                                  continuity: packet.continuityCounter)
            if payload.count >= 6 {
                let length = Int(payload[4]) << 8 | Int(payload[5])
                if length > 0 { started.expected = 6 + length }
            }
            let last = lastSizes.first { $0.pid == packet.pid }?.size ?? 0
            started.bytes.reserveCapacity(min(max(started.expected ?? last + last / 8, 4096), Self.maximumPacketSize))
            started.bytes.append(contentsOf: payload)
            try started.takeHeader()
            // One packet may hold a whole (short) PES packet; the one it completed comes first.
            if completed == nil, let expected = started.expected, started.received >= expected { return try finished(started) }
            pending.append(started)
            return completed
        }
        guard let open, try Self.append(payload, counter: packet.continuityCounter, to: &pending[open], at: offset) else { return nil }
        return try finished(pending.remove(at: open))
    }

    /// Adds a continuing packet's payload to `pending` (one access to it per packet: this runs for
    /// each of a segment's packets); whether it now holds all the bytes its header states.
    private static func append(_ payload: UnsafeRawBufferPointer, counter: UInt8, to pending: inout Pending,
                               at offset: UInt64) throws(WireFailure) -> Bool {
        let next = (pending.continuity + 1) & 0x0F
        guard counter == next else {
            // A repeated packet (same counter) is allowed once by 2.4.3.3; anything else lost data.
            if counter == pending.continuity { return false }
            throw .malformed("PID 0x\(hex(pending.pid)): continuity counter \(counter) after \(pending.continuity) (a packet is missing)",
                             at: offset + 3)
        }
        pending.continuity = next
        guard pending.received + payload.count <= maximumPacketSize else {
            throw .unsupported("PID 0x\(hex(pending.pid)): a PES packet over \(maximumPacketSize >> 20) MiB", at: pending.offset)
        }
        pending.received += payload.count
        pending.bytes.append(contentsOf: payload)
        if pending.header == nil { try pending.takeHeader() }
        guard let expected = pending.expected else { return false }
        return pending.received >= expected
    }

    /// The PES packets still open at the end of the segment, in the order they started.
    package mutating func finish() throws(WireFailure) -> [PESPacket] {
        let open = pending
        pending = []
        var packets: [PESPacket] = []
        for packet in open { packets.append(try finished(packet)) }
        return packets
    }

    private mutating func finished(_ pending: Pending) throws(WireFailure) -> PESPacket {
        if let expected = pending.expected, pending.received < expected {
            throw .malformed("PID 0x\(hex(pending.pid)): a PES packet of \(expected) bytes ends after \(pending.received)", at: pending.offset)
        }
        var pending = pending
        guard let header = pending.header else {
            // Cut short before its header ended: the header's parse says how.
            _ = try pending.bytes.withUnsafeBytes { raw in Result { () throws(WireFailure) in try PESHeader(raw, at: pending.offset) } }.get()
            throw .malformed("a PES header cut short (\(pending.received) bytes)", at: pending.offset)
        }
        if let expected = pending.expected {
            guard header.headerLength <= expected else {
                throw .malformed("a PES header of \(header.headerLength) bytes runs past its packet", at: pending.offset)
            }
            pending.bytes.removeLast(pending.received - expected)
        } else if let known = lastSizes.firstIndex(where: { $0.pid == pending.pid }) {
            lastSizes[known].size = pending.bytes.count
        } else {
            lastSizes.append((pending.pid, pending.bytes.count))
        }
        return PESPacket(pid: pending.pid, offset: pending.offset, header: header, payload: pending.bytes)
    }
}
