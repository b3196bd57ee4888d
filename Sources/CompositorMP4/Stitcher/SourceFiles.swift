import CompositorCore
import CompositorIO

/// The sources a write copies from, opened when first needed and at most `limit` at once (the
/// least recently used is closed first), so a render of 10,000 sources stays within a
/// 1,024-descriptor limit.
///
/// The plan was made from one version of each file. Each is checked against that version when it
/// is opened (a file renamed into its place, or resized, or touched since) and again when it is
/// closed (modified in place while being copied), so a write never mixes bytes of two versions.
struct SourceFiles {
    /// An open source: an MP4 file, transport stream segments being demuxed, or fragmented MP4
    /// segments.
    private enum Open {
        case file(ReadableFile)
        case transportStream(TransportStreamSampleReader)
        case fragmentedSegments(FragmentedSegmentReader)
    }

    private let sources: [MP4SampleStore]
    private let limit: Int
    private var open: [Int: Open] = [:]
    /// Indices of the open sources, least recently used first.
    private var recent: [Int] = []

    init(_ sources: [MP4SampleStore], limit: Int = 32) {
        self.sources = sources
        self.limit = max(1, limit)
    }

    /// Appends `length` bytes of source `index`'s samples, from `offset` (as its sample table
    /// counts), to `output`.
    mutating func copy(from index: Int, offset: UInt64, length: UInt64, to output: AtomicOutputFile,
                       buffer: UnsafeMutableRawBufferPointer) throws(MP4Error) {
        switch try source(index) {
        case .file(let file):
            try mp4Errors { () throws(FileError) in try output.append(from: file, offset: offset, length: length, buffer: buffer) }
        case .transportStream(var reader):
            // The reader is a value with caches: take it out while it works, so it is not copied.
            open[index] = nil
            defer { open[index] = .transportStream(reader) }
            try reader.copy(offset: offset, length: length, to: output, buffer: buffer)
        case .fragmentedSegments(var reader):
            open[index] = nil
            defer { open[index] = .fragmentedSegments(reader) }
            try reader.copy(offset: offset, length: length, to: output, buffer: buffer)
        }
    }

    /// Source `index`, open and checked.
    private mutating func source(_ index: Int) throws(MP4Error) -> Open {
        if let source = open[index] {
            if recent.last != index, let position = recent.firstIndex(of: index) {
                recent.remove(at: position)
                recent.append(index)
            }
            return source
        }
        if open.count >= limit, let oldest = recent.first {
            recent.removeFirst()
            if let closing = open.removeValue(forKey: oldest) { try Self.close(closing) }
        }
        let opened: Open
        switch sources[index] {
        case .file(let path, let version):
            opened = .file(try mp4Errors { () throws(FileError) in try ReadableFile(path: path, expecting: version) })
        case .transportStream(let samples):
            opened = .transportStream(TransportStreamSampleReader(samples))
        case .fragmentedSegments(let files):
            opened = .fragmentedSegments(FragmentedSegmentReader(files))
        }
        open[index] = opened
        recent.append(index)
        return opened
    }

    /// Checks and closes every source still open.
    mutating func closeAll() throws(MP4Error) {
        defer { open = [:]; recent = [] }
        for index in recent {
            if let source = open[index] { try Self.close(source) }
        }
    }

    private static func close(_ source: Open) throws(MP4Error) {
        switch source {
        case .file(let file): try mp4Errors { () throws(FileError) in try file.checkUnchanged() }
        case .transportStream(let reader): try reader.checkUnchanged()
        case .fragmentedSegments(let reader): try reader.checkUnchanged()
        }
    }
}
