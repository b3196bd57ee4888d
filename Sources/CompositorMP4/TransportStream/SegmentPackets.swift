import CompositorCore
import CompositorIO
import CompositorTS

/// A segment's 188-byte packets, read from its file in blocks (never a read per packet) on a grid
/// from the segment's start, with the two blocks last read kept: a sample's PES packet may run
/// into the next block, and a render's layout takes a block's video and then its audio
/// (`TransportStreamReader.Index.Layout`), so each block is read once.
struct SegmentPackets {
    let file: ReadableFile
    /// The segment's bytes in the file.
    let range: Range<UInt64>
    private var block: (start: UInt64, bytes: [UInt8]) = (0, [])
    private var previous: (start: UInt64, bytes: [UInt8]) = (0, [])

    static let blockSize = TSPacket.size * 2048

    /// The block of the grid the byte at `offset` is in, for a segment starting at `segmentStart`.
    static func block(of offset: UInt64, segmentStart: UInt64) -> UInt64 { (offset - segmentStart) / UInt64(blockSize) }

    /// Opens the segment's file, checking it is the version expected when one is given.
    init(_ segment: HLSSegmentSource.FileBytes, expecting version: FileVersion? = nil) throws(MP4Error) {
        let path = segment.path.description
        let (file, range) = try segment.open(expecting: version) { .malformedStream(file: path, offset: $0, reason: $1) }
        guard range.count % TSPacket.size == 0 else {
            throw .malformedStream(file: path, offset: range.lowerBound,
                                   reason: "\(range.count) bytes is not a whole number of 188-byte packets")
        }
        self.file = file
        self.range = range
    }

    /// The block of the grid `offset` is in, into `block` (the one before kept as `previous`).
    private mutating func load(_ offset: UInt64) throws(MP4Error) {
        swap(&block, &previous)
        if (block.start..<(block.start + UInt64(block.bytes.count))).contains(offset) { return }
        let start = range.lowerBound + Self.block(of: offset, segmentStart: range.lowerBound) * UInt64(Self.blockSize)
        try file.readBytes(at: start, count: Int(min(UInt64(Self.blockSize), range.upperBound - start)), into: &block.bytes)
        block.start = start
    }

    /// Calls `body` with each packet and its offset in the file, from `start` to the segment's end
    /// or until `body` returns false.
    mutating func walk(from start: UInt64, _ body: (UnsafeRawBufferPointer, UInt64) throws(MP4Error) -> Bool) throws(MP4Error) {
        var offset = start
        while offset < range.upperBound {
            if !(block.start..<(block.start + UInt64(block.bytes.count))).contains(offset) { try load(offset) }
            let blockStart = block.start
            let more = try block.bytes.withUnsafeBytes { raw in
                Result { () throws(MP4Error) -> Bool in
                    var index = Int(offset - blockStart)
                    while index + TSPacket.size <= raw.count {
                        guard try body(UnsafeRawBufferPointer(rebasing: raw[index..<(index + TSPacket.size)]),
                                       blockStart + UInt64(index)) else { return false }
                        index += TSPacket.size
                    }
                    return true
                }
            }.get()
            guard more else { return }
            offset = blockStart + UInt64(block.bytes.count)
        }
    }
}

extension MP4Error {
    /// A transport stream failure in `file`.
    init(_ failure: WireFailure, file: FilePath) {
        switch failure.kind {
        case .malformed: self = .malformedStream(file: file.description, offset: failure.offset, reason: failure.reason)
        case .unsupported, .limitExceeded: self = .unsupportedStream(file: file.description, offset: failure.offset, reason: failure.reason)
        }
    }
}

/// `body`'s transport stream failures as errors about `file`.
func streamErrors<T>(_ file: FilePath, _ body: () throws(WireFailure) -> T) throws(MP4Error) -> T {
    do { return try body() } catch { throw MP4Error(error, file: file) }
}

/// `body` run on `bytes` (a PES payload of `file`), its failures as errors about `file`.
func streamErrors<T>(_ file: FilePath, parsing bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(WireFailure) -> T) throws(MP4Error) -> T {
    try bytes.withUnsafeBytes { raw in Result { () throws(WireFailure) in try body(raw) } }.mapError { MP4Error($0, file: file) }.get()
}
