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
        let offset: UInt64
        var bytes: [UInt8]
        /// The whole PES packet's size, when its header states it.
        var expected: Int?
        var continuity: UInt8
    }

    package var pids: Set<UInt16>
    private var pending: [UInt16: Pending] = [:]
    /// The largest PES packet put together: far above any access unit HLS carries (a 4K intra
    /// frame is a few MB), so hostile input cannot make one take the whole segment into memory.
    package static let maximumPacketSize = 64 << 20

    package init(pids: Set<UInt16> = []) { self.pids = pids }

    /// Adds one packet (`bytes`, 188 of them, at `offset`); returns the PES packet it completes,
    /// if any. Payload of a PID not yet started (a segment cut mid-packet) is dropped.
    package mutating func add(_ packet: TSPacket, bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(TSParseFailure) -> PESPacket? {
        guard pids.contains(packet.pid), packet.hasPayload else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.payloadStart...])
        var completed: PESPacket?
        if packet.payloadUnitStart {
            if let previous = pending.removeValue(forKey: packet.pid) {
                completed = try Self.finished(previous, pid: packet.pid)
            }
            var started = Pending(offset: offset, bytes: [], expected: nil, continuity: packet.continuityCounter)
            started.bytes.reserveCapacity(4096)
            started.bytes.append(contentsOf: payload)
            if started.bytes.count >= 6 {
                let length = Int(started.bytes[4]) << 8 | Int(started.bytes[5])
                if length > 0 { started.expected = 6 + length }
            }
            pending[packet.pid] = started
        } else if var current = pending[packet.pid] {
            let next = (current.continuity + 1) & 0x0F
            guard packet.continuityCounter == next else {
                // A repeated packet (same counter) is allowed once by 2.4.3.3; anything else lost data.
                if packet.continuityCounter == current.continuity { return nil }
                throw .malformed("PID 0x\(hex(packet.pid)): continuity counter \(packet.continuityCounter) after \(current.continuity) "
                                 + "(a packet is missing)", at: offset + 3)
            }
            current.continuity = next
            guard current.bytes.count + payload.count <= Self.maximumPacketSize else {
                throw .unsupported("PID 0x\(hex(packet.pid)): a PES packet over \(Self.maximumPacketSize >> 20) MiB", at: current.offset)
            }
            current.bytes.append(contentsOf: payload)
            pending[packet.pid] = current
        }
        if completed == nil, let current = pending[packet.pid], let expected = current.expected, current.bytes.count >= expected {
            pending[packet.pid] = nil
            completed = try Self.finished(current, pid: packet.pid)
        }
        return completed
    }

    /// The PES packets still open at the end of the segment, in the order they started.
    package mutating func finish() throws(TSParseFailure) -> [PESPacket] {
        let open = pending.sorted { $0.value.offset < $1.value.offset }
        pending = [:]
        var packets: [PESPacket] = []
        for (pid, current) in open { packets.append(try Self.finished(current, pid: pid)) }
        return packets
    }

    private static func finished(_ pending: Pending, pid: UInt16) throws(TSParseFailure) -> PESPacket {
        if let expected = pending.expected, pending.bytes.count < expected {
            throw .malformed("PID 0x\(hex(pid)): a PES packet of \(expected) bytes ends after \(pending.bytes.count)", at: pending.offset)
        }
        let bytes = pending.expected.map { Array(pending.bytes.prefix($0)) } ?? pending.bytes
        let header = try bytes.withUnsafeBytes { raw in
            Result { () throws(TSParseFailure) in try PESHeader(raw, at: pending.offset) }
        }.get()
        return PESPacket(pid: pid, offset: pending.offset, header: header, payload: Array(bytes[header.headerLength...]))
    }
}
