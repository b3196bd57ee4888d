import CompositorCore
import CompositorIO

/// One track's samples read from its file in blocks (1 MiB unless told; a sample larger than
/// that alone), so that the samples of a chunk cost one read between them, not one each.
struct SampleBlockReader {
    let file: ReadableFile
    private let blockSize: Int
    private var block: [UInt8] = []
    private var blockStart: UInt64 = 0

    init(file: ReadableFile, blockSize: Int = 1 << 20) {
        self.file = file
        self.blockSize = blockSize
    }

    /// Calls `body` with the `size` bytes at `offset`.
    mutating func withSample<T>(
        at offset: UInt64, size: Int, _ body: (UnsafeRawBufferPointer) throws(MP4Error) -> T
    ) throws(MP4Error) -> T {
        let blockEnd = blockStart + UInt64(block.count)
        if offset < blockStart || offset > blockEnd || UInt64(size) > blockEnd - offset {
            try checkInFile(offset, size, "a sample of \(size) bytes runs")
            let count = Int(min(UInt64(max(size, blockSize)), file.size - offset))
            try file.readBytes(at: offset, count: count, into: &block)
            blockStart = offset
        }
        let start = Int(offset - blockStart)
        return try block.withUnsafeBytes { raw in
            Result { () throws(MP4Error) in try body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + size)])) }
        }.get()
    }

    /// Appends the `count` bytes at `offset` (samples one after another) to `out`, read straight
    /// into it: no block, no copy out of one.
    func append(at offset: UInt64, count: Int, to out: inout OutputBytes) throws(MP4Error) {
        try checkInFile(offset, count, "samples of \(count) bytes run")
        try out.append(room: count) { (room) throws(MP4Error) in
            try mp4Errors { () throws(FileError) in try file.read(exactly: room, at: offset) }
        }
    }

    /// Throws, saying `what` runs past the end, unless the file holds `size` bytes at `offset`.
    private func checkInFile(_ offset: UInt64, _ size: Int, _ what: @autoclosure () -> String) throws(MP4Error) {
        guard offset <= file.size, UInt64(size) <= file.size - offset else {
            throw .malformed(file: file.path.description, boxPath: "", offset: offset,
                             reason: "\(what()) past the end of the file (\(file.size) bytes)")
        }
    }
}
