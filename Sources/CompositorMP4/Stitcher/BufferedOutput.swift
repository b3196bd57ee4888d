import CompositorIO

/// A render's output: bytes gathered into a buffer and written when it fills (and at `flush`),
/// so that many small pieces (demuxed samples, repeated silent frames) cost one write per buffer
/// and a piece larger than the buffer is written in buffer-sized parts; long copies go from file
/// to file (`append(from:)`), in order with the rest.
///
/// The buffer given is used as two halves: one is written on another thread
/// (`AtomicOutputFile.startWrite`) while the other fills, so the kernel's copy into the file runs
/// beside the making of the next bytes (a transport stream source's demuxing).
struct BufferedOutput {
    let output: AtomicOutputFile
    /// The half being filled, and the other.
    private var buffer: UnsafeMutableRawBufferPointer
    private var otherBuffer: UnsafeMutableRawBufferPointer
    private var filled = 0

    /// `buffer` must stay allocated, and untouched by others, until the output is committed or discarded.
    init(_ output: AtomicOutputFile, buffer: UnsafeMutableRawBufferPointer) {
        self.output = output
        let half = buffer.count / 2
        self.buffer = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<half])
        otherBuffer = UnsafeMutableRawBufferPointer(rebasing: buffer[half...])
    }

    /// Appends `length` bytes of `file` from `offset`, in the kernel where it can (see
    /// `AtomicOutputFile.append`), after what was appended before.
    mutating func append(from file: ReadableFile, offset: UInt64, length: UInt64) throws(MP4Error) {
        try flush()
        // The half just written is free again once the file has waited for its write.
        try mp4Errors { () throws(FileError) in try output.append(from: file, offset: offset, length: length, buffer: buffer) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(MP4Error) {
        var copied = 0
        while copied < bytes.count {
            let space = try nextSpace(upTo: bytes.count - copied)
            space.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[copied..<(copied + space.count)]))
            copied += space.count
        }
    }

    /// Appends `count` zero bytes (padding no sample refers to).
    mutating func appendZeros(_ count: Int) throws(MP4Error) {
        var left = count
        while left > 0 {
            let space = try nextSpace(upTo: left)
            space.initializeMemory(as: UInt8.self, repeating: 0)
            left -= space.count
        }
    }

    /// The next free part of the buffer, at most `count` bytes (flushing it first when full),
    /// counted as filled.
    private mutating func nextSpace(upTo count: Int) throws(MP4Error) -> UnsafeMutableRawBufferPointer {
        if filled == buffer.count { try flush() }
        let part = min(count, buffer.count - filled)
        defer { filled += part }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + part)])
    }

    /// Appends a big-endian value: tables are written a value at a time.
    @inline(__always)
    private mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) throws(MP4Error) {
        let width = MemoryLayout<Value>.size
        if buffer.count - filled < width { try flush() }
        buffer.storeBytes(of: value.bigEndian, toByteOffset: filled, as: Value.self)
        filled += width
    }

    /// Bytes appended but not yet written.
    var pending: Int { filled }

    /// Starts writing what the buffer holds, and goes on in the other half (whose write, if
    /// any, has ended: the file waits for it first).
    mutating func flush() throws(MP4Error) {
        guard filled > 0 else { return }
        let count = filled
        filled = 0
        try mp4Errors { () throws(FileError) in try output.startWrite(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
        swap(&buffer, &otherBuffer)
    }
}

extension BufferedOutput: HeaderSink {
    mutating func write(_ bytes: [UInt8]) throws(MP4Error) {
        try bytes.withUnsafeBytes { raw in Result { () throws(MP4Error) in try append(raw) } }.get()
    }

    mutating func write(_ value: UInt32) throws(MP4Error) { try appendBigEndian(value) }
    mutating func write(_ value: UInt64) throws(MP4Error) { try appendBigEndian(value) }
}
