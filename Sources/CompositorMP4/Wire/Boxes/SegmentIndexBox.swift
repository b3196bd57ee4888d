import CompositorCore

/// `sidx` (ISO/IEC 14496-12 8.16.3): where the subsegments of a fragmented file are, as byte
/// sizes one after another from `firstOffset` past the end of the box. The reader uses it only to
/// know where the movie fragments start before walking to them (so a remote file's fragment
/// headers can be fetched together); the fragments themselves say what they hold.
struct SegmentIndexBox: MP4ParsableBox, Equatable {
    static let type: FourCC = "sidx"

    /// One subsegment (or, with `referencesIndex`, another `sidx`).
    struct Reference: Equatable {
        /// Whether it is a `sidx` (1) rather than media (0).
        var referencesIndex: Bool
        var size: UInt32
    }

    var referenceID: UInt32
    var timescale: UInt32
    var earliestPresentationTime: UInt64
    /// Bytes from the end of this box to the first subsegment.
    var firstOffset: UInt64
    var references: [Reference]

    init(referenceID: UInt32, timescale: UInt32, earliestPresentationTime: UInt64, firstOffset: UInt64, references: [Reference]) {
        self.referenceID = referenceID
        self.timescale = timescale
        self.earliestPresentationTime = earliestPresentationTime
        self.firstOffset = firstOffset
        self.references = references
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        let full = try FullBoxHeader.read(from: &reader)
        try full.require(versions: 0...1, of: Self.type, at: 0)
        referenceID = try reader.readUInt32()
        timescale = try reader.readUInt32()
        if full.version == 0 {
            earliestPresentationTime = UInt64(try reader.readUInt32())
            firstOffset = UInt64(try reader.readUInt32())
        } else {
            earliestPresentationTime = try reader.readUInt64()
            firstOffset = try reader.readUInt64()
        }
        _ = try reader.readUInt16()   // reserved
        let count = try reader.readUInt16()
        try reader.requireTable(count: UInt64(count), entrySize: 12, "sidx")
        references = []
        references.reserveCapacity(Int(count))
        for _ in 0..<count {
            let word = try reader.readUInt32()
            references.append(Reference(referencesIndex: word >> 31 == 1, size: word & 0x7FFF_FFFF))
            try reader.skip(8)   // subsegment_duration; starts_with_SAP, SAP_type, SAP_delta_time
        }
    }

    /// Where each reference starts in the file, given where this box ends; the offsets that would
    /// pass 2^64 are left out.
    func referenceOffsets(boxEnd: UInt64) -> [UInt64] {
        var offsets: [UInt64] = []
        var (position, overflow) = boxEnd.addingReportingOverflow(firstOffset)
        for reference in references where !overflow {
            offsets.append(position)
            (position, overflow) = position.addingReportingOverflow(UInt64(reference.size))
        }
        return offsets
    }
}
