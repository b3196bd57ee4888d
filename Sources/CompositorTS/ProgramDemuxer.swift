import CompositorCore
/// Reads one program out of a transport stream segment: the PAT, then the PMT it points to, then
/// the PES packets of that program's streams.
///
/// HLS starts every segment with a PAT and PMT (RFC 8216, 3.2), and each section fits one packet
/// there; a section spread over several packets is reported as unsupported.
package struct ProgramDemuxer: Sendable {
    /// The streams the PMT lists, and where it was read (bytes into the segment), once it has been.
    package private(set) var programMap: (streams: [ElementaryStreamEntry], offset: UInt64)?
    /// Stream types whose PES packets are assembled.
    private let wanted: Set<UInt8>
    private var programMapPID: UInt16?
    private var assembler = PESAssembler()

    package init(streamTypes wanted: Set<UInt8>) { self.wanted = wanted }

    /// Adds the packet `bytes` (188 of them) found `offset` bytes into the segment; returns the PES
    /// packet it completes, if any.
    package mutating func add(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) -> PESPacket? {
        let packet = try TSPacket(bytes, at: offset)
        guard packet.hasPayload else { return nil }
        if packet.pid == 0 || packet.pid == programMapPID {
            guard packet.payloadUnitStart else {
                throw .unsupported("a program table spread over several packets", at: offset)
            }
            let section = Array(bytes[packet.payloadStart...])
            if packet.pid == 0 {
                programMapPID = try ProgramAssociation.programMapPID(section: section, at: offset)
            } else {
                let listed = try ProgramMap.streams(section: section, at: offset)
                programMap = (listed, offset)
                assembler.pids = listed.filter { wanted.contains($0.streamType) }.map(\.pid)
            }
            return nil
        }
        return try assembler.add(packet, bytes: bytes, at: offset)
    }

    /// The PES packets still open at the end of the segment.
    package mutating func finish() throws(WireFailure) -> [PESPacket] { try assembler.finish() }
}
