import CompositorCore

/// Writes one program of H.264 or HEVC video and AAC audio as 188-byte transport stream packets
/// (ISO/IEC 13818-1), the way HLS segments carry them: PAT and PMT first, one PES per access unit
/// or audio frame, the PCR on the video PID (the audio PID when there is no video), a random
/// access indicator on keyframes, continuity counters running across the segments of one stream.
///
/// Payload bytes are copied a packet (184 bytes) at a time; nothing is done per byte, and each
/// packet's bytes are written once.
///
/// ```
/// segment  | PAT | PMT | PES video (PCR, RAI, PTS/DTS) ... | PES audio (PTS) | PES video ...
/// ```
package struct TransportStreamMuxer: Sendable {
    package static let programMapPID: UInt16 = 0x1000
    package static let videoPID: UInt16 = 0x100
    package static let audioPID: UInt16 = 0x101
    /// How far the PCR runs ahead of a video access unit's decode time, in 90 kHz ticks (0.1 s):
    /// room for the decoder's buffer, as the T-STD model wants the data before it is decoded.
    package static let pcrLead: UInt64 = 9000

    /// The video's format; `nil` for a program without video.
    package let video: VideoCodingFormat?
    package let hasAudio: Bool
    /// The next continuity counter of the PAT, the PMT, the video and the audio PID.
    package private(set) var continuityCounters: ContinuityCounters

    /// A muxer whose packets continue `counters` (a stream another muxer wrote before it, from
    /// another source: the PIDs are the same whatever the source).
    package init(video: VideoCodingFormat?, hasAudio: Bool, continuing counters: ContinuityCounters = ContinuityCounters()) {
        self.video = video
        self.hasAudio = hasAudio
        continuityCounters = counters
    }

    private var pcrPID: UInt16 { video != nil ? Self.videoPID : Self.audioPID }

    /// The PAT and the PMT, which every segment starts with so that it decodes on its own.
    package mutating func writeTables(into out: inout OutputBytes) {
        // PAT: program 1 -> the PMT's PID.
        var pat: [UInt8] = [0x00, 0xB0, 0x00, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01]
        pat += [UInt8(0xE0 | Self.programMapPID >> 8), UInt8(Self.programMapPID & 0xFF)]
        writeSection(pat, pid: 0, into: &out)
        var streams: [UInt8] = []
        if let video { streams += [video.streamType, UInt8(0xE0 | Self.videoPID >> 8), UInt8(Self.videoPID & 0xFF), 0xF0, 0x00] }
        if hasAudio { streams += [ElementaryStreamEntry.adtsAAC, UInt8(0xE0 | Self.audioPID >> 8), UInt8(Self.audioPID & 0xFF), 0xF0, 0x00] }
        var pmt: [UInt8] = [0x02, 0xB0, 0x00, 0x00, 0x01, 0xC1, 0x00, 0x00]
        pmt += [UInt8(0xE0 | pcrPID >> 8), UInt8(pcrPID & 0xFF), 0xF0, 0x00] + streams
        writeSection(pmt, pid: Self.programMapPID, into: &out)
    }

    /// One video access unit as one PES packet: Annex B bytes (access unit delimiter first), in
    /// `pieces` one after another (see `AnnexBFraming.appendPieces`). `pts` and `dts` are 90 kHz ticks
    /// (kept to 33 bits on the wire).
    package mutating func writeVideo(
        _ pieces: [UnsafeRawBufferPointer], pts: UInt64, dts: UInt64, isKeyframe: Bool, into out: inout OutputBytes
    ) {
        let pcr = pcrPID == Self.videoPID ? dts &- Self.pcrLead : nil
        let header = PESHeaderFields(streamID: 0xE0, bounded: false, pts: pts, dts: dts)
        writePES(header, pieces, pid: Self.videoPID, pcr: pcr, randomAccess: isKeyframe, into: &out)
    }

    /// One AAC frame, its ADTS header included, in `pieces` one after another, as one PES packet.
    package mutating func writeAudio(_ pieces: [UnsafeRawBufferPointer], pts: UInt64, into out: inout OutputBytes) {
        let pcr = pcrPID == Self.audioPID ? pts &- Self.pcrLead : nil
        let header = PESHeaderFields(streamID: 0xC0, bounded: true, pts: pts, dts: pts)
        writePES(header, pieces, pid: Self.audioPID, pcr: pcr, randomAccess: true, into: &out)
    }

    /// What a PES header says: `10` marker, data alignment, PTS (and DTS when it differs). A video
    /// packet's length is 0 (unbounded, which 13818-1 allows for video only).
    private struct PESHeaderFields {
        let streamID: UInt8
        let bounded: Bool
        let pts: UInt64
        let dts: UInt64

        var count: Int { pts != dts ? 19 : 14 }

        /// The header of a packet with `payloadCount` bytes of payload, at `bytes`.
        func write(payloadCount: Int, to bytes: UnsafeMutableRawPointer) {
            let withDTS = pts != dts
            let optional = withDTS ? 10 : 5
            let length = bounded && 3 + optional + payloadCount <= 0xFFFF ? 3 + optional + payloadCount : 0
            let fixed: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0x00, 0x00, 0x01, streamID, UInt8(length >> 8), UInt8(length & 0xFF), 0x84, withDTS ? 0xC0 : 0x80, UInt8(optional))
            withUnsafeBytes(of: fixed) { bytes.copyMemory(from: $0.baseAddress!, byteCount: 9) }
            Self.writeTimestamp(pts, prefix: withDTS ? 0x3 : 0x2, to: bytes + 9)
            if withDTS { Self.writeTimestamp(dts, prefix: 0x1, to: bytes + 14) }
        }

        /// A 33-bit timestamp in its 5-byte form: prefix, bits 32-30, marker, 29-15, marker, 14-0, marker.
        private static func writeTimestamp(_ value: UInt64, prefix: UInt8, to bytes: UnsafeMutableRawPointer) {
            let t = value & 0x1_FFFF_FFFF
            bytes.storeBytes(of: prefix << 4 | UInt8((t >> 29) & 0x0E) | 1, as: UInt8.self)
            (bytes + 1).storeBytes(of: UInt8((t >> 22) & 0xFF), as: UInt8.self)
            (bytes + 2).storeBytes(of: UInt8((t >> 14) & 0xFE) | 1, as: UInt8.self)
            (bytes + 3).storeBytes(of: UInt8((t >> 7) & 0xFF), as: UInt8.self)
            (bytes + 4).storeBytes(of: UInt8((t << 1) & 0xFE) | 1, as: UInt8.self)
        }
    }

    /// A PES packet cut into transport packets; the first carries the PCR and the random access
    /// indicator when asked, the last is filled out with adaptation field stuffing. The packets are
    /// written into room made at the end of `out` at once, every byte of it: a packet's header,
    /// adaptation field and stuffing, then one copy per piece of payload it holds. The PES header
    /// (19 bytes at most) always fits in the first packet, after at most 8 bytes of adaptation field.
    private mutating func writePES(
        _ header: PESHeaderFields, _ pieces: [UnsafeRawBufferPointer], pid: UInt16, pcr: UInt64?, randomAccess: Bool,
        into out: inout OutputBytes
    ) {
        let payloadCount = pieces.reduce(0) { $0 + $1.count }
        // The first packet's adaptation field after its length byte: flags, then the PCR.
        let fieldCount = pcr != nil ? 7 : randomAccess ? 1 : 0
        let total = header.count + payloadCount
        let firstRoom = 184 - (fieldCount == 0 ? 0 : 1 + fieldCount)
        let packets = total <= firstRoom ? 1 : 1 + (total - firstRoom + 183) / 184
        var payload = PieceReader(pieces)
        out.append(room: packets * 188) { buffer in
            var position = buffer.baseAddress!
            var written = 0
            for index in 0..<packets {
                let first = index == 0
                let field = first ? fieldCount : 0
                let room = first ? firstRoom : 184
                let take = min(room, total - written)
                // Stuffing, so the payload ends the packet exactly: a length byte alone stuffs one
                // byte; flags (when not there yet) and 0xFF fill the rest.
                let stuffing = room - take
                let adaptationLength = field > 0 ? field + stuffing : stuffing > 0 ? stuffing - 1 : nil
                position.storeBytes(of: 0x47, as: UInt8.self)
                (position + 1).storeBytes(of: (first ? 0x40 : 0) | UInt8(pid >> 8), as: UInt8.self)
                (position + 2).storeBytes(of: UInt8(pid & 0xFF), as: UInt8.self)
                (position + 3).storeBytes(of: (adaptationLength == nil ? 0x10 : 0x30) | continuityCounters.next(pid), as: UInt8.self)
                position += 4
                if let adaptationLength {
                    position.storeBytes(of: UInt8(adaptationLength), as: UInt8.self)
                    if adaptationLength > 0 {
                        let flags: UInt8 = field > 0 ? (randomAccess ? 0x40 : 0) | (pcr != nil ? 0x10 : 0) : 0
                        (position + 1).storeBytes(of: flags, as: UInt8.self)
                        if let pcr, field > 0 { Self.writePCR(pcr, to: position + 2) }
                        let flagsAndPCR = max(field, 1)
                        (position + 1 + flagsAndPCR).initializeMemory(as: UInt8.self, repeating: 0xFF, count: adaptationLength - flagsAndPCR)
                    }
                    position += 1 + adaptationLength
                }
                var left = take
                if first {
                    header.write(payloadCount: payloadCount, to: position)
                    position += header.count
                    left -= header.count
                }
                payload.copy(left, to: position)
                position += left
                written += take
            }
        }
    }

    /// Reads pieces of bytes as one run, a copy at a time.
    private struct PieceReader {
        let pieces: [UnsafeRawBufferPointer]
        var piece = 0
        var offset = 0

        init(_ pieces: [UnsafeRawBufferPointer]) { self.pieces = pieces }

        /// Copies the next `count` bytes to `destination`.
        mutating func copy(_ count: Int, to destination: UnsafeMutableRawPointer) {
            var done = 0
            while done < count {
                let bytes = pieces[piece]
                let part = min(count - done, bytes.count - offset)
                if part > 0 { (destination + done).copyMemory(from: bytes.baseAddress! + offset, byteCount: part) }
                done += part
                offset += part
                if offset == bytes.count { piece += 1; offset = 0 }
            }
        }
    }

    /// A program clock reference: 33-bit base (90 kHz), 6 reserved bits, 9-bit extension (0).
    private static func writePCR(_ value: UInt64, to bytes: UnsafeMutableRawPointer) {
        let base = value & 0x1_FFFF_FFFF
        let field: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            UInt8(base >> 25), UInt8((base >> 17) & 0xFF), UInt8((base >> 9) & 0xFF), UInt8((base >> 1) & 0xFF),
            UInt8((base & 1) << 7) | 0x7E, 0x00
        )
        withUnsafeBytes(of: field) { bytes.copyMemory(from: $0.baseAddress!, byteCount: 6) }
    }

    /// A PSI section (table bytes from the table id, section length filled in here, CRC added) in
    /// one packet, the rest stuffed with 0xFF.
    private mutating func writeSection(_ table: [UInt8], pid: UInt16, into out: inout OutputBytes) {
        var section = table
        let length = section.count - 3 + 4
        section[1] = 0xB0 | UInt8(length >> 8)
        section[2] = UInt8(length & 0xFF)
        let crc = CRC32MPEG2.checksum(section)
        section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        var packet: [UInt8] = [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | continuityCounters.next(pid)]
        packet.append(0)  // pointer field
        packet += section
        packet += [UInt8](repeating: 0xFF, count: 188 - 5 - section.count)
        out.append(contentsOf: packet)
    }
}

/// The next continuity counter of each PID a `TransportStreamMuxer` writes: the PAT, the PMT,
/// the video and the audio.
package struct ContinuityCounters: Sendable, Equatable {
    private var pat: UInt8 = 0
    private var pmt: UInt8 = 0
    private var video: UInt8 = 0
    private var audio: UInt8 = 0

    package init() {}

    /// `pid`'s counter for its next packet, counted on (4 bits).
    fileprivate mutating func next(_ pid: UInt16) -> UInt8 {
        func take(_ counter: inout UInt8) -> UInt8 {
            defer { counter = (counter + 1) & 0x0F }
            return counter
        }
        switch pid {
        case 0: return take(&pat)
        case TransportStreamMuxer.programMapPID: return take(&pmt)
        case TransportStreamMuxer.videoPID: return take(&video)
        default: return take(&audio)
        }
    }
}
