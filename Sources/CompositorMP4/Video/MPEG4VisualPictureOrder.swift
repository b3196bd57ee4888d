import CompositorIO

/// When MPEG-4 Part 2 (Visual, ISO/IEC 14496-2) pictures present, read from their bitstream where
/// the sample table cannot be trusted.
///
/// A file remuxed from AVI (DivX, Xvid, ffmpeg's `mpeg4` with B-frames) has no `ctts`: its samples
/// are timed in decode order, so the table says a B-frame presents after the P-frame it precedes.
/// Cut by those times, a piece ends on the wrong picture (one stale frame per splice). Display
/// order follows from the picture types alone: a B-VOP shows as it is decoded, an I- or P-VOP once
/// the next I- or P-VOP arrives. Frame `k` in display order then presents at the decode time of
/// sample `k`: the file's times, given to the pictures in the order they show.
///
/// ```
/// decode order   I0   P3   B1   B2   P6   B4   B5      (samples 0…6, timed 0…6)
/// display order  I0   B1   B2   P3   B4   B5   P6      presents at 0…6
/// offsets         0   +2   -1   -1   +2   -1   -1
/// ```
enum MPEG4VisualPictureOrder {
    /// How a VOP is coded (`vop_coding_type`, 6.3.5).
    enum Coding: Equatable {
        case intra, predicted, bidirectional, sprite
    }

    /// The coding of each VOP in `sample`, in order (a VOP starts with `00 00 01 B6`; its first
    /// two bits are the coding type).
    static func codings<Bytes: RandomAccessCollection<UInt8>>(in sample: Bytes) -> [Coding] where Bytes.Index == Int {
        var found: [Coding] = []
        var index = sample.startIndex
        while index + 4 < sample.endIndex {
            if sample[index] == 0, sample[index + 1] == 0, sample[index + 2] == 1, sample[index + 3] == 0xB6 {
                found.append([.intra, .predicted, .bidirectional, .sprite][Int(sample[index + 4] >> 6)])
                index += 5
            } else {
                index += 1
            }
        }
        return found
    }

    /// Composition offsets (ticks) that present the pictures in display order at the samples'
    /// decode times, given each sample's coding in decode order; all zero when there are no
    /// B-VOPs. `nil` when an offset does not fit 32 bits.
    static func compositionOffsets(codings: [Coding], decodeTimes: SampleDecodeTimes) -> [Int32]? {
        var displayOrder: [Int] = []
        displayOrder.reserveCapacity(codings.count)
        var heldAnchor: Int?
        for (index, coding) in codings.enumerated() {
            if coding == .bidirectional {
                displayOrder.append(index)
            } else {
                if let heldAnchor { displayOrder.append(heldAnchor) }
                heldAnchor = index
            }
        }
        if let heldAnchor { displayOrder.append(heldAnchor) }
        var offsets = [Int32](repeating: 0, count: codings.count)
        for (slot, sample) in displayOrder.enumerated() {
            guard let offset = Int32(exactly: decodeTimes[slot] - decodeTimes[sample]) else { return nil }
            offsets[sample] = offset
        }
        return offsets
    }

    /// The table of an `mp4v` track of MPEG-4 Visual (object type 0x20) without `ctts`, with the
    /// composition offsets its pictures need; other tables as they are. Every sample is read once,
    /// a block of samples at a time. A sample holding two VOPs (DivX's and Xvid's "packed
    /// B-frames") is refused: unpacking them would change the samples.
    static func repairing(_ samples: MP4SampleTable, descriptions: [MP4SampleDescription], stbl: MP4Box,
                          file: ReadableFile) throws(MP4Error) -> MP4SampleTable {
        guard samples.compositionOffsets.isEmpty, samples.count > 1, !descriptions.isEmpty,
              descriptions.allSatisfy({ $0.format == "mp4v" && $0.objectTypeIndication == 0x20 }) else { return samples }
        let path = file.path.description
        var codings: [Coding] = []
        codings.reserveCapacity(samples.count)
        var reader = SampleBlockReader(file: file)
        for index in 0..<samples.count {
            let found = try reader.withSample(at: samples.offsets[index], size: Int(samples.sizes[index])) { Self.codings(in: $0) }
            guard found.count <= 1 else {
                throw .unsupported(file: path, boxPath: stbl.path, offset: samples.offsets[index], reason:
                    "sample \(index) holds \(found.count) MPEG-4 Part 2 pictures (packed B-frames, as DivX and Xvid write them "
                    + "for AVI); unpack them first, e.g. ffmpeg -i IN -c copy -bsf:v mpeg4_unpack_bframes OUT.mp4")
            }
            // A sample without a VOP (headers only, or not this syntax) leaves the order unknown:
            // the table is taken as it is.
            guard let coding = found.first else { return samples }
            codings.append(coding)
        }
        guard codings.contains(.bidirectional) else { return samples }
        guard let offsets = compositionOffsets(codings: codings, decodeTimes: samples.decodeTimes) else {
            throw .unsupported(file: path, boxPath: stbl.path, offset: stbl.header.offset,
                               reason: "MPEG-4 Part 2 B-frames timed in decode order, reordered by more than 2^31 ticks")
        }
        return samples.replacingCompositionOffsets(with: offsets)
    }
}
