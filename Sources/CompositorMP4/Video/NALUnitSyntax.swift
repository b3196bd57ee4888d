import CompositorCore
import CompositorTS

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

    /// What a sample of `size` bytes is as a decode start, reading only NAL unit headers:
    /// `read(offset, count)` gives bytes of the sample. A sample without a slice, or whose
    /// NAL unit lengths do not fit it, is no start.
    func decodeStart(ofSampleOf size: Int, read: (Int, Int) throws(MP4Error) -> [UInt8]) throws(MP4Error) -> DecodeStart {
        var found = DecodeStart.none
        try forEachHeader(inSampleOf: size, read: read) { _, header in
            guard let start = codec.decodeStart(ofType: codec.unitType(header)) else { return true }
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
        forEachHeader(inSampleOf: bytes.count, read: { Array(bytes[$0..<($0 + $1)]) }) { position, header in
            if codec.decodeStart(ofType: codec.unitType(header)) == .cleanRandomAccess { craHeaders.append(position) }
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
