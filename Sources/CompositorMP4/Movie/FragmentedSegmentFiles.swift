import CompositorCore
import CompositorIO

/// Where the samples of an HLS source of fragmented MP4 segments are: the segments' bytes laid
/// back to back in playlist order. A sample table's offsets for such a source count in that
/// layout; a sample's bytes are copied straight from its segment's file.
package struct FragmentedSegmentFiles: Sendable {
    struct Segment: Sendable {
        let path: FilePath
        let version: FileVersion
        /// The bytes of the file that hold the segment.
        let bytes: Range<UInt64>
        /// Where those bytes start in the layout.
        let start: UInt64

        var end: UInt64 { start + UInt64(bytes.count) }
    }

    let segments: [Segment]

    /// The segment whose bytes hold layout position `position`.
    func segmentIndex(at position: UInt64) -> Int? {
        let index = segments.partitioningIndex { $0.start > position } - 1
        guard index >= 0, position < segments[index].end else { return nil }
        return index
    }
}

/// Copies samples of a `FragmentedSegmentFiles` layout into an output, with one segment file
/// open at a time (checked against the version read when opened, and again when left).
struct FragmentedSegmentReader: SampleStoreReader {
    private let files: FragmentedSegmentFiles
    private var open: (index: Int, file: ReadableFile)?

    init(_ files: FragmentedSegmentFiles) { self.files = files }

    /// Appends the layout's bytes `[offset, offset + length)` to `out`.
    mutating func copy(offset: UInt64, length: UInt64, to out: inout BufferedOutput) throws(MP4Error) {
        try forEachPart(offset: offset, length: length) { (file, fileOffset, count) throws(MP4Error) in
            try out.append(from: file, offset: fileOffset, length: count)
        }
    }

    /// The layout's bytes `[offset, offset + count)`.
    mutating func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        try forEachPart(offset: offset, length: UInt64(count)) { (file, fileOffset, count) throws(MP4Error) in
            bytes += try file.readBytes(at: fileOffset, count: Int(count))
        }
        return bytes
    }

    /// Calls `body` with the segment file, byte offset in it and length of each part of the
    /// layout's bytes `[offset, offset + length)`.
    private mutating func forEachPart(offset: UInt64, length: UInt64,
                                      _ body: (ReadableFile, UInt64, UInt64) throws(MP4Error) -> Void) throws(MP4Error) {
        var position = offset
        let end = offset + length
        while position < end {
            guard let index = files.segmentIndex(at: position) else { throw noSegment(at: position) }
            let segment = files.segments[index]
            let count = min(end, segment.end) - position
            try body(try segmentFile(index), segment.bytes.lowerBound + (position - segment.start), count)
            position += count
        }
    }

    private func noSegment(at position: UInt64) -> MP4Error {
        .io(file: files.segments.first?.path.description ?? "", operation: "copy samples",
            reason: "no segment holds position \(position) (the plan and the source disagree)")
    }

    /// Checks the open segment's file is as it was read.
    func checkUnchanged() throws(MP4Error) {
        if let open { try mp4Errors { () throws(FileError) in try open.file.checkUnchanged() } }
    }

    private mutating func segmentFile(_ index: Int) throws(MP4Error) -> ReadableFile {
        if let open, open.index == index { return open.file }
        try checkUnchanged()
        let segment = files.segments[index]
        let file = try mp4Errors { () throws(FileError) in try ReadableFile(path: segment.path, expecting: segment.version) }
        open = (index, file)
        return file
    }
}
