import CompositorCore
/// The AAC frames in one audio PES packet's ADTS bytes.
package enum ADTSFrames {
    /// Each frame's header and where its raw AAC data is in `payload`. Frames must fill the payload
    /// exactly: a frame split between PES packets is unsupported.
    package static func split(_ payload: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) -> [(header: ADTSHeader, data: Range<Int>)] {
        var frames: [(ADTSHeader, Range<Int>)] = []
        var position = 0
        while position < payload.count {
            let header = try ADTSHeader(UnsafeRawBufferPointer(rebasing: payload[position...]), at: offset)
            guard position + header.frameLength <= payload.count else {
                throw .unsupported("an ADTS frame of \(header.frameLength) bytes continued in the next PES packet", at: offset)
            }
            frames.append((header, (position + header.headerLength)..<(position + header.frameLength)))
            position += header.frameLength
        }
        return frames
    }
}
