import CompositorCore

extension ByteWriter {
    /// The first boxes of a `minf`: `vmhd` (video) or `smhd` (sound), then `dinf` with one
    /// self-reference (`url ` flag 1: the media is in this file).
    mutating func writeMediaInformationHeaders(isVideo: Bool) {
        if isVideo {
            writeBox("vmhd") { $0.writeVersion(0, flags: 1); $0.write(zeros: 8) }
        } else {
            writeBox("smhd") { $0.writeVersion(0); $0.write(zeros: 4) }
        }
        writeBox("dinf") { dinf in
            dinf.writeBox("dref") { dref in
                dref.writeVersion(0)
                dref.write(UInt32(1))
                dref.writeBox("url ") { $0.writeVersion(0, flags: 1) }
            }
        }
    }
}
