/// What an Annex B byte stream puts around the NAL units of a length-prefixed sample (as MP4 stores
/// them): a start code before each unit, an access unit delimiter first, and a keyframe's parameter
/// sets (H.264 SPS and PPS; HEVC VPS, SPS and PPS) when the sample does not carry its own.
///
/// An access unit is given as pieces, the sample's NAL units where the sample holds them and
/// these bytes where this framing holds them, so that the muxer copies each byte once:
///
///     00 00 00 0b | 65 88 ...      ->  00 00 00 01 09 f0 | 00 00 00 01 67 ... 00 00 00 01 68 ... | 00 00 00 01 | 65 88 ...
///     (a keyframe's sample)             delimiter           parameter sets                         start code    the unit
///
/// The framing's bytes stay where they are for as long as it lives: keep it while its pieces are used.
package final class AnnexBFraming {
    package let format: VideoCodingFormat
    /// Bytes in each NAL unit's length (1, 2 or 4).
    package let lengthSize: Int
    /// A start code, the delimiter's unit, then each parameter set behind a start code.
    private let storage: UnsafeMutableRawBufferPointer
    private let startCode: UnsafeRawBufferPointer
    private let delimiter: UnsafeRawBufferPointer
    private let parameterSets: UnsafeRawBufferPointer

    package init(format: VideoCodingFormat, lengthSize: Int, parameterSets sets: [[UInt8]]) {
        self.format = format
        self.lengthSize = lengthSize
        let startCode: [UInt8] = [0x00, 0x00, 0x00, 0x01]
        let delimiter = format.accessUnitDelimiter
        let bytes = startCode + delimiter + sets.flatMap { startCode + $0 }
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        storage.copyBytes(from: bytes)
        let all = UnsafeRawBufferPointer(storage)
        self.startCode = UnsafeRawBufferPointer(rebasing: all[0..<4])
        self.delimiter = UnsafeRawBufferPointer(rebasing: all[0..<(4 + delimiter.count)])
        self.parameterSets = UnsafeRawBufferPointer(rebasing: all[(4 + delimiter.count)...])
    }

    deinit { storage.deallocate() }

    /// Appends to `pieces` the access unit in `sample` as Annex B: the delimiter first (the
    /// sample's own, or this framing's), then the parameter sets when `withParameterSets` and the
    /// sample has no SPS, then each NAL unit behind `00 00 00 01` (units of length 0 are left out).
    /// `offset` is where the sample is in its file, for the error.
    package func appendPieces(
        of sample: UnsafeRawBufferPointer, withParameterSets: Bool, to pieces: inout [UnsafeRawBufferPointer], at offset: UInt64
    ) throws(TSParseFailure) {
        let first = pieces.count
        var hasSequenceParameterSet = false
        var index = 0
        while index < sample.count {
            guard index + lengthSize <= sample.count else {
                throw .malformed("a NAL unit length cut short at byte \(index) of a \(sample.count)-byte sample", at: offset)
            }
            var length = 0
            for byte in sample[index..<(index + lengthSize)] { length = length << 8 | Int(byte) }
            let start = index + lengthSize
            guard length <= sample.count - start else {
                throw .malformed("a NAL unit of \(length) bytes at byte \(index) runs past the end of its \(sample.count)-byte sample", at: offset)
            }
            if length > 0 {
                guard length >= format.headerSize else {
                    throw .malformed("a NAL unit of \(length) byte at byte \(index), shorter than its \(format) header", at: offset)
                }
                hasSequenceParameterSet = hasSequenceParameterSet || format.unitType(sample[start]) == format.sequenceParameterSetType
                pieces.append(startCode)
                pieces.append(UnsafeRawBufferPointer(rebasing: sample[start..<(start + length)]))
            }
            index = start + length
        }
        // 7.4.1.2.3 of H.264 (7.4.2.4.4 of HEVC): the delimiter starts the access unit, and
        // parameter sets come before the slices.
        var afterDelimiter = first + 2
        if pieces.count == first || format.unitType(pieces[first + 1][0]) != format.accessUnitDelimiterType {
            pieces.insert(delimiter, at: first)
            afterDelimiter = first + 1
        }
        if withParameterSets, !hasSequenceParameterSet, !parameterSets.isEmpty {
            pieces.insert(parameterSets, at: afterDelimiter)
        }
    }
}
