/// Writes one program of H.264 or HEVC video and AAC audio as 188-byte transport stream packets
/// (ISO/IEC 13818-1), the way HLS segments carry them: PAT and PMT first, one PES per access unit
/// or audio frame, the PCR on the video PID (the audio PID when there is no video), a random
/// access indicator on keyframes, continuity counters running across the segments of one stream.
///
/// Payload bytes are copied a packet (184 bytes) at a time; nothing is done per byte.
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
    package mutating func writeTables(into out: inout [UInt8]) {
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

    /// One video access unit (Annex B bytes, access unit delimiter first) as one PES packet.
    /// `pts` and `dts` are 90 kHz ticks (kept to 33 bits on the wire).
    package mutating func writeVideo(
        _ accessUnit: UnsafeRawBufferPointer, pts: UInt64, dts: UInt64, isKeyframe: Bool, into out: inout [UInt8]
    ) {
        let header = Self.pesHeader(streamID: 0xE0, payloadLength: nil, pts: pts, dts: dts)
        let pcr = pcrPID == Self.videoPID ? dts &- Self.pcrLead : nil
        writePES(header: header, payload: accessUnit, pid: Self.videoPID, pcr: pcr, randomAccess: isKeyframe, into: &out)
    }

    /// One AAC frame, its ADTS header included, as one PES packet.
    package mutating func writeAudio(_ frame: UnsafeRawBufferPointer, pts: UInt64, into out: inout [UInt8]) {
        let header = Self.pesHeader(streamID: 0xC0, payloadLength: frame.count, pts: pts, dts: pts)
        let pcr = pcrPID == Self.audioPID ? pts &- Self.pcrLead : nil
        writePES(header: header, payload: frame, pid: Self.audioPID, pcr: pcr, randomAccess: true, into: &out)
    }

    /// The PES header: `10` marker, data alignment, PTS (and DTS when it differs). A video
    /// packet's length is 0 (unbounded, which 13818-1 allows for video only).
    static func pesHeader(streamID: UInt8, payloadLength: Int?, pts: UInt64, dts: UInt64) -> [UInt8] {
        let withDTS = pts != dts
        let optional = withDTS ? 10 : 5
        var length = 0
        if let payloadLength, 3 + optional + payloadLength <= 0xFFFF { length = 3 + optional + payloadLength }
        var header: [UInt8] = [0x00, 0x00, 0x01, streamID, UInt8(length >> 8), UInt8(length & 0xFF), 0x84,
                               withDTS ? 0xC0 : 0x80, UInt8(optional)]
        header += timestamp(pts, prefix: withDTS ? 0x3 : 0x2)
        if withDTS { header += timestamp(dts, prefix: 0x1) }
        return header
    }

    /// A 33-bit timestamp in its 5-byte form: prefix, bits 32-30, marker, 29-15, marker, 14-0, marker.
    static func timestamp(_ value: UInt64, prefix: UInt8) -> [UInt8] {
        let t = value & 0x1_FFFF_FFFF
        return [
            prefix << 4 | UInt8((t >> 29) & 0x0E) | 1,
            UInt8((t >> 22) & 0xFF), UInt8((t >> 14) & 0xFE) | 1,
            UInt8((t >> 7) & 0xFF), UInt8((t << 1) & 0xFE) | 1,
        ]
    }

    /// A PES packet cut into transport packets; the first carries the PCR and the random access
    /// indicator when asked, the last is filled out with adaptation field stuffing. The packets are
    /// written into room made at the end of `out` at once: a header, then one copy per packet.
    private mutating func writePES(
        header: [UInt8], payload: UnsafeRawBufferPointer, pid: UInt16, pcr: UInt64?, randomAccess: Bool, into out: inout [UInt8]
    ) {
        // The first packet's adaptation field after its length byte: flags, then the PCR.
        var adaptation: [UInt8] = []
        if pcr != nil || randomAccess {
            adaptation = [(randomAccess ? 0x40 : 0) | (pcr != nil ? 0x10 : 0)]
            if let pcr { adaptation += Self.pcrField(pcr) }
        }
        let total = header.count + payload.count
        let firstRoom = 184 - (adaptation.isEmpty ? 0 : 1 + adaptation.count)
        let packets = total <= firstRoom ? 1 : 1 + (total - firstRoom + 183) / 184
        let base = out.count
        out.append(contentsOf: repeatElement(0xFF, count: packets * 188))
        out.withUnsafeMutableBytes { buffer in
            var position = base
            var written = 0
            for index in 0..<packets {
                let first = index == 0
                let field = first ? adaptation : []
                let room = first ? firstRoom : 184
                let take = min(room, total - written)
                // Stuffing, so the payload ends the packet exactly: a length byte alone stuffs one
                // byte; flags (when not there yet) and 0xFF fill the rest (already in place).
                let stuffing = room - take
                var adaptationLength: Int?
                if !field.isEmpty {
                    adaptationLength = field.count + stuffing
                } else if stuffing > 0 {
                    adaptationLength = stuffing - 1
                }
                buffer[position] = 0x47
                buffer[position + 1] = (first ? 0x40 : 0) | UInt8(pid >> 8)
                buffer[position + 2] = UInt8(pid & 0xFF)
                buffer[position + 3] = (adaptationLength == nil ? 0x10 : 0x30) | nextCounter(pid)
                position += 4
                if let adaptationLength {
                    buffer[position] = UInt8(adaptationLength)
                    if field.isEmpty, adaptationLength > 0 { buffer[position + 1] = 0x00 }
                    for (offset, byte) in field.enumerated() { buffer[position + 1 + offset] = byte }
                    position += 1 + adaptationLength
                }
                var left = take
                if written < header.count {
                    let part = min(left, header.count - written)
                    for offset in 0..<part { buffer[position + offset] = header[written + offset] }
                    position += part
                    written += part
                    left -= part
                }
                if left > 0 {
                    let from = written - header.count
                    UnsafeMutableRawBufferPointer(rebasing: buffer[position..<(position + left)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: payload[from..<(from + left)]))
                    position += left
                    written += left
                }
            }
        }
    }

    /// The continuity counter for the next packet on `pid`.
    private mutating func nextCounter(_ pid: UInt16) -> UInt8 {
        let slot = pid == 0 ? 0 : pid == Self.programMapPID ? 1 : pid == Self.videoPID ? 2 : 3
        let counter = continuityCounters.next[slot]
        continuityCounters.next[slot] = (counter + 1) & 0x0F
        return counter
    }

    /// A program clock reference: 33-bit base (90 kHz), 6 reserved bits, 9-bit extension (0).
    private static func pcrField(_ value: UInt64) -> [UInt8] {
        let base = value & 0x1_FFFF_FFFF
        return [UInt8(base >> 25), UInt8((base >> 17) & 0xFF), UInt8((base >> 9) & 0xFF), UInt8((base >> 1) & 0xFF),
                UInt8((base & 1) << 7) | 0x7E, 0x00]
    }

    /// A PSI section (table bytes from the table id, section length filled in here, CRC added) in
    /// one packet, the rest stuffed with 0xFF.
    private mutating func writeSection(_ table: [UInt8], pid: UInt16, into out: inout [UInt8]) {
        var section = table
        let length = section.count - 3 + 4
        section[1] = 0xB0 | UInt8(length >> 8)
        section[2] = UInt8(length & 0xFF)
        let crc = CRC32MPEG2.checksum(section)
        section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        out += [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | nextCounter(pid)]
        out.append(0)  // pointer field
        out += section
        out += [UInt8](repeating: 0xFF, count: 188 - 5 - section.count)
    }
}

/// The next continuity counter of each PID a `TransportStreamMuxer` writes: the PAT, the PMT,
/// the video and the audio.
package struct ContinuityCounters: Sendable, Equatable {
    fileprivate var next: [UInt8] = [0, 0, 0, 0]

    package init() {}
}
