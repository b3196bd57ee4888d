import CompositorTS

extension MP4CodecParameters {
    /// The NAL unit video format of `avcC` and `hvcC` sample descriptions; `nil` for others.
    var videoCodingFormat: VideoCodingFormat? {
        switch self {
        case .avc: .h264
        case .hevc: .hevc
        default: nil
        }
    }

    /// Bytes in each NAL unit's length prefix, for `avcC` and `hvcC`.
    package var nalLengthSize: Int? {
        switch self {
        case .avc(let configuration): configuration.nalLengthSize
        case .hevc(let configuration): configuration.nalLengthSize
        default: nil
        }
    }

    /// The parameter set NAL units of `avcC` (SPS, then PPS) and `hvcC` (VPS, SPS, PPS), as a
    /// stream carries them before a keyframe; empty for others.
    var parameterSetUnits: [[UInt8]] {
        switch self {
        case .avc(let configuration): configuration.sequenceParameterSets + configuration.pictureParameterSets
        case .hevc(let configuration): configuration.parameterSets
        default: []
        }
    }
}
