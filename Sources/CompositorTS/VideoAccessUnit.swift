import CompositorCore
/// One H.264 or HEVC access unit as a transport stream carries it (Annex B), and the MP4 sample it
/// becomes: each NAL unit prefixed by its 4-byte length, without the access unit delimiter and
/// the parameter sets (those go into the sample entry's `avcC` or `hvcC`, ISO/IEC 14496-15 5.3.3
/// and 8.3.3).
package struct VideoAccessUnit: Sendable {
    /// The units the MP4 sample keeps, as ranges of the PES payload.
    package let sampleUnits: [Range<Int>]
    /// The parameter sets it carries, with their NAL unit types, in stream order.
    package let parameterSets: [(type: UInt8, range: Range<Int>)]
    /// Whether decoding can start here (see `DecodeStart`): the access unit holds an IDR picture
    /// (H.264) or an IDR, BLA or CRA picture (HEVC).
    package let isRandomAccess: Bool

    /// The MP4 sample's size in bytes.
    package var sampleSize: Int { Self.sampleSize(of: sampleUnits) }

    /// The size of the MP4 sample made of `units`: each after its 4-byte length.
    package static func sampleSize(of units: some Sequence<Range<Int>>) -> Int { units.reduce(0) { $0 + 4 + $1.count } }

    /// Splits `payload` (one PES packet's elementary stream bytes), found `offset` bytes into the segment.
    package init(payload: UnsafeRawBufferPointer, format: VideoCodingFormat, at offset: UInt64) throws(WireFailure) {
        var sample: [Range<Int>] = [], parameterSets: [(UInt8, Range<Int>)] = []
        var randomAccess = false
        let parameterSetTypes = format.parameterSetTypes
        for unit in try AnnexB.nalUnits(in: payload, at: offset) {
            guard unit.count >= format.headerSize else {
                throw .malformed("a NAL unit of \(unit.count) byte, shorter than its \(format) header", at: offset)
            }
            let type = format.unitType(payload[unit.lowerBound])
            if type == format.accessUnitDelimiterType { continue }
            if parameterSetTypes.contains(type) {
                parameterSets.append((type, unit))
            } else {
                if let start = format.decodeStart(ofType: type), start != .none { randomAccess = true }
                sample.append(unit)
            }
        }
        guard !sample.isEmpty else { throw .malformed("a video PES packet without a picture", at: offset) }
        sampleUnits = sample
        self.parameterSets = parameterSets
        isRandomAccess = randomAccess
    }
}
