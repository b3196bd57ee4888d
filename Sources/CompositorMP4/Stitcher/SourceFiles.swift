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
    private let sources: [MP4SampleStore]
    private let limit: Int
    private var open: [Int: any SampleStoreReader] = [:]
    /// Indices of the open sources, least recently used first.
    private var recent: [Int] = []

    init(_ sources: [MP4SampleStore], limit: Int = 32) {
        self.sources = sources
        self.limit = max(1, limit)
    }

    /// Appends `length` bytes of source `index`'s samples, from `offset` (as its sample table
    /// counts), to `out`.
    mutating func copy(from index: Int, offset: UInt64, length: UInt64, to out: inout BufferedOutput) throws(MP4Error) {
        var reader = try source(index)
        // The reader is a value with caches: take it out while it works, so it is not copied.
        open[index] = nil
        defer { open[index] = reader }
        try reader.copy(offset: offset, length: length, to: &out)
    }

    /// `count` bytes of source `index`'s samples, from `offset` (as its sample table counts).
    mutating func read(from index: Int, offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        var reader = try source(index)
        open[index] = nil
        defer { open[index] = reader }
        return try reader.read(offset: offset, count: count)
    }

    /// Source `index`, open and checked.
    private mutating func source(_ index: Int) throws(MP4Error) -> any SampleStoreReader {
        if let source = open[index] {
            if recent.last != index, let position = recent.firstIndex(of: index) {
                recent.remove(at: position)
                recent.append(index)
            }
            return source
        }
        if open.count >= limit, let oldest = recent.first {
            recent.removeFirst()
            if let closing = open.removeValue(forKey: oldest) { try closing.checkUnchanged() }
        }
        let opened = try Self.reader(sources[index])
        open[index] = opened
        recent.append(index)
        return opened
    }

    /// A reader of `store`'s samples, opening files as it needs them.
    static func reader(_ store: MP4SampleStore) throws(MP4Error) -> any SampleStoreReader {
        switch store {
        case .file(let path, let version):
            return FileSampleReader(file: try mp4Errors { () throws(FileError) in try ReadableFile(path: path, expecting: version) })
        case .transportStream(let samples): return TransportStreamSampleReader(samples)
        case .fragmentedSegments(let files): return FragmentedSegmentReader(files)
        case .demuxed(let video, let audio, let audioStart):
            return DemuxedSampleReader(video: try reader(video), audio: try reader(audio), audioStart: audioStart)
        }
    }

    /// Checks and closes every source still open.
    mutating func closeAll() throws(MP4Error) {
        defer { open = [:]; recent = [] }
        for index in recent {
            if let source = open[index] { try source.checkUnchanged() }
        }
    }
}

/// Copies a sample store's bytes (see `MP4SampleStore`): an MP4 file's, or an HLS source's, which
/// its store places in the segments laid back to back, keeping the segment it reads open (and
/// checked against the version planned) between copies.
protocol SampleStoreReader {
    /// Appends the store's bytes `[offset, offset + length)` to `out`.
    mutating func copy(offset: UInt64, length: UInt64, to out: inout BufferedOutput) throws(MP4Error)
    /// The store's bytes `[offset, offset + count)`.
    mutating func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8]
    /// Checks the open file is as it was planned.
    func checkUnchanged() throws(MP4Error)
}

/// An MP4 file's samples, at the offsets its sample tables give.
private struct FileSampleReader: SampleStoreReader {
    /// Small reads come from a 64 KiB block: a piece's lead-in is read frame by frame (the audio
    /// between its frames is not copied), which made a system read a frame, 300,000 in a render
    /// of 10,000 breaks. Larger blocks would read far past each short lead-in.
    private var blocks: SampleBlockReader

    init(file: ReadableFile) { blocks = SampleBlockReader(file: file, blockSize: 1 << 16) }

    func copy(offset: UInt64, length: UInt64, to out: inout BufferedOutput) throws(MP4Error) {
        try out.append(from: blocks.file, offset: offset, length: length)
    }

    mutating func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        try blocks.withSample(at: offset, size: count) { Array($0) }
    }

    func checkUnchanged() throws(MP4Error) { try mp4Errors { () throws(FileError) in try blocks.file.checkUnchanged() } }
}

/// The samples of an HLS variant's video and of its audio rendition (`MP4SampleStore.demuxed`).
/// A copy may run from the video's last samples into the audio's first (a layout joins copies
/// that are contiguous): it is split there.
private struct DemuxedSampleReader: SampleStoreReader {
    var video: any SampleStoreReader
    var audio: any SampleStoreReader
    let audioStart: UInt64

    mutating func copy(offset: UInt64, length: UInt64, to out: inout BufferedOutput) throws(MP4Error) {
        let (videoPart, audioPart) = parts(offset: offset, length: length)
        if let videoPart { try video.copy(offset: videoPart.lowerBound, length: UInt64(videoPart.count), to: &out) }
        if let audioPart { try audio.copy(offset: audioPart.lowerBound, length: UInt64(audioPart.count), to: &out) }
    }

    mutating func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        let (videoPart, audioPart) = parts(offset: offset, length: UInt64(count))
        var bytes: [UInt8] = []
        if let videoPart { bytes += try video.read(offset: videoPart.lowerBound, count: videoPart.count) }
        if let audioPart { bytes += try audio.read(offset: audioPart.lowerBound, count: audioPart.count) }
        return bytes
    }

    /// `[offset, offset + length)` split into the video's bytes and the audio's (in its own store).
    private func parts(offset: UInt64, length: UInt64) -> (video: Range<UInt64>?, audio: Range<UInt64>?) {
        let end = offset + length
        let video = offset < audioStart ? offset..<min(end, audioStart) : nil
        let audio = end > audioStart ? (max(offset, audioStart) - audioStart)..<(end - audioStart) : nil
        return (video, audio)
    }

    func checkUnchanged() throws(MP4Error) {
        try video.checkUnchanged()
        try audio.checkUnchanged()
    }
}
