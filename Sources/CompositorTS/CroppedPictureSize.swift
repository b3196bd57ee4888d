import CompositorCore
/// A sequence parameter set's picture size after its cropping (H.264's frame cropping, HEVC's
/// conformance window): what an MP4 sample entry's 16-bit width and height say.
struct CroppedPictureSize {
    let width: Int
    let height: Int

    /// `full` less `crop` (already in luma samples); malformed when nothing is left or the result
    /// does not fit 16 bits. `name` says which parameter set ("SPS", "HEVC SPS").
    init(full: (width: Int, height: Int), crop: (x: Int, y: Int), name: String, at offset: UInt64) throws(WireFailure) {
        guard full.width > 0, full.height > 0, crop.x < full.width, crop.y < full.height, full.width <= 65535, full.height <= 65535 else {
            throw .malformed("\(name) picture size \(full.width)x\(full.height) cropped by \(crop.x)x\(crop.y)", at: offset)
        }
        (width, height) = (full.width - crop.x, full.height - crop.y)
    }
}
