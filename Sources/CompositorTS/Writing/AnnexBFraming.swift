import CompositorCore
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
    /// The NAL unit types of parameter sets (held: `format` makes a new array each time).
    private let parameterSetTypes: [UInt8]
    /// A start code, the delimiter's unit, then each parameter set behind a start code.
    private let storage: UnsafeMutableRawBufferPointer
    private let startCode: UnsafeRawBufferPointer
    private let delimiter: UnsafeRawBufferPointer
    private let parameterSets: UnsafeRawBufferPointer

    /// Writes `sets` as they are: check them first with `checkInBand`.
    package init(format: VideoCodingFormat, lengthSize: Int, parameterSets sets: [[UInt8]]) {
        self.format = format
        parameterSetTypes = format.parameterSetTypes
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

    /// Throws unless `sets` are what a reader of the stream needs of the parameter sets written
    /// before keyframes, so that no stream is written that such a reader would refuse: each a
    /// NAL unit of a parameter set type, whole behind its start code (no `00 00 01` inside it, no
    /// zero byte at its end, which Annex B takes for padding), its id readable and, for an SPS,
    /// its picture size; and, unless there are none (the samples then carry their own), one of
    /// each type: H.264's SPS and PPS, HEVC's VPS, SPS and PPS. Failures name the parameter set
    /// by its place among `sets` (offset 0).
    package static func checkInBand(_ sets: [[UInt8]], format: VideoCodingFormat) throws(WireFailure) {
        guard !sets.isEmpty else { return }
        for (index, set) in sets.enumerated() {
            let name = "parameter set \(index + 1)"
            guard set.count >= format.headerSize else {
                throw .malformed("\(name) is \(set.count) byte, shorter than its \(format) header", at: 0)
            }
            let type = format.unitType(set[0])
            guard format.parameterSetTypes.contains(type) else { throw .malformed("\(name) is a NAL unit of type \(type)", at: 0) }
            guard AnnexB.canCarry(set) else {
                throw .malformed("\(name) holds a start code (00 00 01) or ends in a zero byte: emulation prevention is "
                                 + "missing, and an Annex B stream cannot carry it", at: 0)
            }
            do throws(WireFailure) {
                _ = try format.parameterSetID(set, type: type, at: 0)
                if format == .h264, type == format.sequenceParameterSetType { _ = try H264SequenceParameterSet(unit: set, at: 0) }
            } catch {
                throw .malformed("\(name): \(error.reason)", at: 0)
            }
        }
        let missing = format.parameterSetTypes.filter { type in !sets.contains { format.unitType($0[0]) == type } }
        guard missing.isEmpty else {
            throw .malformed("no \(missing.map(format.parameterSetName).joined(separator: " or ")) among the parameter sets, "
                             + "which a decoder needs beside the others", at: 0)
        }
    }

    /// Appends to `pieces` the access unit in `sample` as Annex B: the delimiter first (the
    /// sample's own, or this framing's), then the parameter sets when `withParameterSets` and the
    /// sample has no SPS, then each NAL unit behind `00 00 00 01` (units of length 0 are left out).
    /// `offset` is where the sample is in its file, for the error. Returns whether the sample holds
    /// anything but delimiters and parameter sets: an access unit without it is no picture, and a
    /// reader of the stream refuses it.
    @discardableResult
    package func appendPieces(
        of sample: UnsafeRawBufferPointer, withParameterSets: Bool, to pieces: inout [UnsafeRawBufferPointer], at offset: UInt64
    ) throws(WireFailure) -> Bool {
        let first = pieces.count
        var hasSequenceParameterSet = false, holdsPicture = false
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
                let type = format.unitType(sample[start])
                hasSequenceParameterSet = hasSequenceParameterSet || type == format.sequenceParameterSetType
                holdsPicture = holdsPicture || (type != format.accessUnitDelimiterType && !parameterSetTypes.contains(type))
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
        return holdsPicture
    }
}
