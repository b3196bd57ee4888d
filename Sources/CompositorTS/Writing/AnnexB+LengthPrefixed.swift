extension AnnexB {
    /// Appends the access unit in `sample` (NAL units of `format`, each behind a big-endian length
    /// of `lengthSize` bytes, as MP4 stores them) to `out` as an Annex B byte stream: an access
    /// unit delimiter first unless the sample starts with one, then `parameterSets` (a keyframe's
    /// SPS and PPS, and HEVC's VPS, when the sample does not carry its own), then each NAL unit
    /// behind `00 00 00 01`.
    ///
    ///     00 00 00 0b | 65 88 ...      ->  00 00 00 01 09 f0 | 00 00 00 01 67 ... | ... | 00 00 00 01 65 88 ...
    ///
    /// `offset` is where the sample is in its file, for the error.
    package static func appendLengthPrefixed(
        _ sample: UnsafeRawBufferPointer, format: VideoCodingFormat, lengthSize: Int, parameterSets: [[UInt8]],
        to out: inout [UInt8], at offset: UInt64
    ) throws(TSParseFailure) {
        var units: [Range<Int>] = []
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
                units.append(start..<(start + length))
            }
            index = start + length
        }
        let type = { (unit: Range<Int>) in format.unitType(sample[unit.lowerBound]) }
        if units.first.map(type) != format.accessUnitDelimiterType { out += format.accessUnitDelimiter }
        if !units.contains(where: { type($0) == format.sequenceParameterSetType }) {
            for set in parameterSets {
                out += [0, 0, 0, 1]
                out += set
            }
        }
        for unit in units {
            out += [0, 0, 0, 1]
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: sample[unit]))
        }
    }
}
