import CompositorIO

/// Bytes gathered into a buffer and written to an output when it fills (and at `flush`): many
/// small pieces (demuxed samples, repeated silent frames) cost one write per buffer, and a piece
/// larger than the buffer is written in buffer-sized parts.
struct BufferedOutput {
    let output: AtomicOutputFile
    let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0

    init(_ output: AtomicOutputFile, buffer: UnsafeMutableRawBufferPointer) {
        self.output = output
        self.buffer = buffer
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(MP4Error) {
        var copied = 0
        while copied < bytes.count {
            if filled == buffer.count { try flush() }
            let count = min(bytes.count - copied, buffer.count - filled)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[copied..<(copied + count)]))
            copied += count
            filled += count
        }
    }

    /// Bytes appended but not yet written.
    var pending: Int { filled }

    /// Writes what the buffer holds.
    mutating func flush() throws(MP4Error) {
        let count = filled
        filled = 0
        try mp4Errors { () throws(FileError) in try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
    }
}
