/// Whether decoding can start at a video sample, as its NAL unit types say (ISO/IEC 14496-10
/// 7.4.1.2.4, ITU-T H.265 7.4.2.2): a sample table's sync flags are only a muxer's word, and
/// some flag pictures that are not starts (x264's intra-refresh recovery points, non-IDR I
/// pictures of an open GOP).
package enum DecodeStart: Equatable, Sendable {
    /// Every picture after it in decode order decodes: an H.264 IDR picture, an HEVC IDR or BLA
    /// picture, or a sync sample of a codec whose bitstream is not read.
    case closed
    /// An HEVC CRA picture. It decodes, but its leading pictures (after it in decode order,
    /// before it in output order) may reference pictures before it; and after other pictures it
    /// continues their picture order count. The first picture after a cut is therefore marked
    /// BLA (the MP4 layer's `NALUnitSyntax.markAsSplice`), which a decoder takes as a new start.
    case cleanRandomAccess
    /// Not a picture decoding can start at.
    case none
}
