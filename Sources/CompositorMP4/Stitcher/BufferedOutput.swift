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

    /// Writes what the buffer holds.
    mutating func flush() throws(MP4Error) {
        let count = filled
        filled = 0
        try mp4Errors { () throws(FileError) in try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
    }
}

extension BufferedOutput: HeaderSink {
    mutating func write(_ bytes: [UInt8]) throws(MP4Error) {
        try bytes.withUnsafeBytes { raw in Result { () throws(MP4Error) in try append(raw) } }.get()
    }

    mutating func write(_ value: UInt32) throws(MP4Error) { try appendBigEndian(value) }
    mutating func write(_ value: UInt64) throws(MP4Error) { try appendBigEndian(value) }
}
