import CompositorCore
/// The program association table (PAT, PID 0): where the first program's map is.
/// ISO/IEC 13818-1, 2.4.4.3.
package enum ProgramAssociation {
    /// The PID of the first program's PMT (program number 0 is the network PID, skipped), from the
    /// section starting `section`'s first byte; `offset` is where it is in the segment.
    package static func programMapPID(section: [UInt8], at offset: UInt64) throws(WireFailure) -> UInt16 {
        let body = try PSISection.body(of: section, tableID: 0x00, name: "PAT", at: offset)
        var index = 5  // transport_stream_id, version, section numbers
        while index + 4 <= body.count {
            let program = UInt16(body[index]) << 8 | UInt16(body[index + 1])
            let pid = UInt16(body[index + 2] & 0x1F) << 8 | UInt16(body[index + 3])
            if program != 0 { return pid }
            index += 4
        }
        throw .malformed("the PAT lists no program", at: offset)
    }
}

/// One elementary stream a program map table (PMT) lists. ISO/IEC 13818-1, 2.4.4.8.
package struct ElementaryStreamEntry: Sendable, Equatable {
    package let streamType: UInt8
    package let pid: UInt16

    /// AAC in ADTS frames (ISO/IEC 13818-1, table 2-34): the audio this library reads and writes;
    /// its video stream types are `VideoCodingFormat`'s.
    package static let adtsAAC: UInt8 = 0x0F
}

package enum ProgramMap {
    /// The elementary streams of the PMT section `section`.
    package static func streams(section: [UInt8], at offset: UInt64) throws(WireFailure) -> [ElementaryStreamEntry] {
        let body = try PSISection.body(of: section, tableID: 0x02, name: "PMT", at: offset)
        guard body.count >= 9 else { throw .malformed("a PMT of \(body.count) bytes is too short", at: offset) }
        let programInfoLength = Int(body[7] & 0x0F) << 8 | Int(body[8])
        var index = 9 + programInfoLength
        guard index <= body.count else {
            throw .malformed("the PMT's program descriptors (\(programInfoLength) bytes) run past its end", at: offset)
        }
        var streams: [ElementaryStreamEntry] = []
        while index + 5 <= body.count {
            let pid = UInt16(body[index + 1] & 0x1F) << 8 | UInt16(body[index + 2])
            let infoLength = Int(body[index + 3] & 0x0F) << 8 | Int(body[index + 4])
            streams.append(ElementaryStreamEntry(streamType: body[index], pid: pid))
            index += 5 + infoLength
        }
        guard index == body.count else {
            throw .malformed("the PMT's stream entries run past its end", at: offset)
        }
        return streams
    }
}

/// A program-specific information section: table id, length, CRC.
enum PSISection {
    /// The section's bytes after its 3-byte header, up to (not including) the CRC; `payload` is a
    /// packet payload that starts with the pointer field.
    static func body(of payload: [UInt8], tableID: UInt8, name: String, at offset: UInt64) throws(WireFailure) -> [UInt8] {
        guard let pointer = payload.first else { throw .malformed("an empty \(name) packet", at: offset) }
        let start = 1 + Int(pointer)
        guard start + 3 <= payload.count else {
            throw .malformed("the \(name)'s pointer field (\(pointer)) points past the packet", at: offset)
        }
        guard payload[start] == tableID else {
            throw .malformed("expected the \(name) (table id \(tableID)), found table id \(payload[start])", at: offset)
        }
        let length = Int(payload[start + 1] & 0x0F) << 8 | Int(payload[start + 2])
        guard length >= 4, start + 3 + length <= payload.count else {
            throw .unsupported("a \(name) of \(length) bytes that does not fit one packet", at: offset)
        }
        return Array(payload[(start + 3)..<(start + 3 + length - 4)])
    }
}
