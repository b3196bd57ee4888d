import CompositorCore
import CompositorTS

/// Whether decoding can start at a video sample, as its NAL unit types say (ISO/IEC 14496-10
/// 7.4.1.2.4, ITU-T H.265 7.4.2.2): a sample table's sync flags are only a muxer's word, and
/// some flag pictures that are not starts (x264's intra-refresh recovery points, non-IDR I
/// pictures of an open GOP).
enum DecodeStart: Equatable, Sendable {
    /// Every picture after it in decode order decodes: an H.264 IDR picture, an HEVC IDR or BLA
    /// picture, or a sync sample of a codec whose bitstream is not read.
    case closed
    /// An HEVC CRA picture. It decodes, but its leading pictures (after it in decode order,
    /// before it in output order) may reference pictures before it; and after other pictures it
    /// continues their picture order count. The first picture after a cut is therefore marked
    /// BLA (`NALUnitSyntax.markAsSplice`), which a decoder takes as a new start.
    case cleanRandomAccess
    /// Not a picture decoding can start at.
    case none
}

/// The NAL unit syntax of a sample description's codec (H.264 or HEVC in length-prefixed
/// samples), enough to tell what a sample's pictures are.
struct NALUnitSyntax: Sendable {
    let codec: VideoCodingFormat
    /// Bytes in each NAL unit's length prefix.
    let lengthSize: Int

    /// `nil` for a codec whose bitstream is not read: its sync flags are taken as they are.
    init?(_ parameters: MP4CodecParameters) {
        guard let codec = parameters.videoCodingFormat, let lengthSize = parameters.nalLengthSize else { return nil }
        (self.codec, self.lengthSize) = (codec, lengthSize)
    }

    init(codec: VideoCodingFormat, lengthSize: Int) { (self.codec, self.lengthSize) = (codec, lengthSize) }

    /// What a picture whose slices have NAL unit type `type` is as a decode start; `nil` when
    /// the type is not a slice (parameter sets, SEI, delimiters), which says nothing.
    func decodeStart(ofType type: UInt8) -> DecodeStart? {
        switch (codec, type) {
        case (.h264, 5): .closed                    // IDR
        case (.h264, 1...4): DecodeStart.none       // non-IDR slice or partition
        case (.hevc, 16...20): .closed              // BLA_W_LP, BLA_W_RADL, BLA_N_LP, IDR_W_RADL, IDR_N_LP
        case (.hevc, 21): .cleanRandomAccess        // CRA_NUT
        case (.hevc, 0...31): DecodeStart.none      // other pictures, and reserved IRAP types 22-23
        default: nil
        }
    }

    /// What a sample of `size` bytes is as a decode start, reading only NAL unit headers:
    /// `read(offset, count)` gives bytes of the sample. A sample without a slice, or whose
    /// NAL unit lengths do not fit it, is no start.
    func decodeStart(ofSampleOf size: Int, read: (Int, Int) throws(MP4Error) -> [UInt8]) throws(MP4Error) -> DecodeStart {
        var found = DecodeStart.none
        try forEachHeader(inSampleOf: size, read: read) { _, header in
            guard let start = decodeStart(ofType: codec.unitType(header)) else { return true }
            found = start
            return false
        }
        return found
    }

    /// Marks the CRA NAL units of `sample` (a whole sample) as BLA_N_LP: a new start without
    /// leading pictures (the stitcher leaves them out), its header otherwise unchanged, as
    /// H.265 allows for splicing (C.3.2, "a CRA picture ... handled as a BLA picture").
    func markAsSplice(_ sample: inout [UInt8]) {
        guard codec == .hevc else { return }
        var craHeaders: [Int] = []
        let bytes = sample
        forEachHeader(inSampleOf: bytes.count, read: { bytes[$0..<($0 + $1)].map { $0 } }) { position, header in
            if codec.unitType(header) == 21 { craHeaders.append(position) }
            return true
        }
        for position in craHeaders { sample[position] = sample[position] & 0x81 | 18 << 1 }
    }

    /// Calls `body` with the position and first byte of each NAL unit of a sample of `size` bytes,
    /// in order, while it returns true; `read(offset, count)` gives bytes of the sample. The walk
    /// ends early at a length that does not fit the sample.
    private func forEachHeader<E: Error>(inSampleOf size: Int, read: (Int, Int) throws(E) -> [UInt8],
                                         _ body: (_ position: Int, _ header: UInt8) -> Bool) throws(E) {
        var position = 0
        while position + lengthSize < size {
            let bytes = try read(position, lengthSize + 1)
            let length = bytes.prefix(lengthSize).reduce(0) { $0 << 8 | Int($1) }
            guard length > 0, length <= size - position - lengthSize, body(position + lengthSize, bytes[lengthSize]) else { return }
            position += lengthSize + length
        }
    }
}
