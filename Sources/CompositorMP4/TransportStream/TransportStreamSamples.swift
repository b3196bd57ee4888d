import CompositorCore
import CompositorIO
import CompositorTS

/// Where each sample of a transport stream source is, for writing: the PES packet that carries
/// it, and where the sample's bytes begin in it. A sample table's offsets for such a source count
/// in the demuxed samples laid back to back (`TransportStreamReader.Index.Layout`), so the
/// stitcher's planning treats it like any MP4; the bytes are demuxed again when written.
package struct TransportStreamSamples: Sendable {
    struct SegmentFile: Sendable {
        let path: FilePath
        let version: FileVersion
        let byteRange: Range<UInt64>?
        let videoPID: UInt16?
        let audioPID: UInt16?
    }
    /// A video sample or an audio frame, by its index in its track.
    enum Sample: Sendable {
        case video(Int32)
        case audio(Int32)
    }

    let segmentFiles: [SegmentFile]
    /// Per sample, in the order of the demuxed layout.
    let samples: [Sample]
    let segmentIndices: [UInt32]
    let packetOffsets: [UInt64]
    /// Audio: where the frame's raw data starts in the PES payload (after its ADTS header).
    let dataOffsets: [UInt32]
    let positions: [UInt64]
    let sizes: [UInt32]
    let videoUnits: VideoSampleUnits

    var count: Int { sizes.count }

    init(segmentFiles: [SegmentFile], layout: TransportStreamReader.Index.Layout, videoUnits: VideoSampleUnits) {
        self.segmentFiles = segmentFiles
        samples = layout.samples
        segmentIndices = layout.segmentIndices
        packetOffsets = layout.packetOffsets
        dataOffsets = layout.dataOffsets
        positions = layout.positions
        sizes = layout.sizes
        self.videoUnits = videoUnits
    }
}

/// Where each video sample's NAL units lie in its PES payload, found when the source is read, so
/// that writing copies them without scanning the payload for start codes a second time (the scan
/// was a seventh of a TS render's time). A few bytes a unit.
struct VideoSampleUnits: Sendable {
    /// Start and end of each unit, samples one after another.
    private var bounds: [UInt32] = []
    /// Index in `bounds` of each sample's first unit's start, and of the end of the last.
    private var firsts: [Int] = [0]

    mutating func append(_ units: [Range<Int>]) {
        for unit in units {
            bounds.append(UInt32(clamping: unit.lowerBound))
            bounds.append(UInt32(clamping: unit.upperBound))
        }
        firsts.append(bounds.count)
    }

    /// Sample `index`'s units; `nil` when they do not lie in a payload of `payloadSize` bytes or
    /// do not make a sample of `size` bytes (the segment changed since it was read).
    func units(ofSample index: Int, payloadSize: Int, size: Int) -> [Range<Int>]? {
        guard index + 1 < firsts.count else { return nil }
        var units: [Range<Int>] = []
        var total = 0
        for position in stride(from: firsts[index], to: firsts[index + 1], by: 2) {
            let start = Int(bounds[position]), end = Int(bounds[position + 1])
            guard start <= end, end <= payloadSize else { return nil }
            units.append(start..<end)
            total += 4 + end - start
        }
        return total == size ? units : nil
    }
}

/// Demuxes a transport stream source's samples again, as `TransportStreamSamples` places them,
/// into an output file. Holds one segment open, its last block read, and the last PES packet.
struct TransportStreamSampleReader: SampleStoreReader {
    private let samples: TransportStreamSamples
    private var segment: (index: Int, packets: SegmentPackets)?
    private var packet: (segment: Int, offset: UInt64, pid: UInt16, payload: [UInt8])?
    /// One sample's bytes (an H.264 access unit, length-prefixed).
    private var scratch: [UInt8] = []

    init(_ samples: TransportStreamSamples) { self.samples = samples }

    /// Appends the demuxed bytes `[offset, offset + length)` to `out`.
    mutating func copy(offset: UInt64, length: UInt64, to out: inout BufferedOutput) throws(MP4Error) {
        try forEachPart(offset: offset, length: length) { (bytes) throws(MP4Error) in try out.append(bytes) }
    }

    /// The demuxed bytes `[offset, offset + count)`.
    mutating func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        try forEachPart(offset: offset, length: UInt64(count)) { (part) throws(MP4Error) in bytes += part }
        return bytes
    }

    /// Calls `body` with the demuxed bytes `[offset, offset + length)`, a sample's part at a time.
    private mutating func forEachPart(offset: UInt64, length: UInt64,
                                      _ body: (UnsafeRawBufferPointer) throws(MP4Error) -> Void) throws(MP4Error) {
        // The last sample starting at or before `offset`.
        var index = samples.positions.partitioningIndex { $0 > offset } - 1
        guard index >= 0 else { throw noSample(at: offset) }
        var position = offset
        let end = offset + length
        while position < end {
            guard index < samples.count else { throw noSample(at: position) }
            let start = samples.positions[index], size = UInt64(samples.sizes[index])
            let within = Int(position - start), take = Int(min(end, start + size) - position)
            try withSample(index) { (bytes) throws(MP4Error) in try body(UnsafeRawBufferPointer(rebasing: bytes[within..<(within + take)])) }
            position += UInt64(take)
            index += 1
        }
    }

    /// Checks the open segment's file is as it was planned.
    func checkUnchanged() throws(MP4Error) {
        if let segment { try mp4Errors { () throws(FileError) in try segment.packets.file.checkUnchanged() } }
    }

    /// Calls `body` with sample `index`'s bytes.
    private mutating func withSample(_ index: Int, _ body: (UnsafeRawBufferPointer) throws(MP4Error) -> Void) throws(MP4Error) {
        let segmentIndex = Int(samples.segmentIndices[index])
        let file = samples.segmentFiles[segmentIndex]
        let sample = samples.samples[index]
        let pid: UInt16?
        switch sample {
        case .video: pid = file.videoPID
        case .audio: pid = file.audioPID
        }
        guard let pid else { throw noSample(at: samples.positions[index]) }
        let payload = try pesPayload(segment: segmentIndex, offset: samples.packetOffsets[index], pid: pid)
        let size = Int(samples.sizes[index])
        let changed = MP4Error.io(file: file.path.description, operation: "copy samples",
                                  reason: "the segment no longer holds the sample planned at byte \(samples.packetOffsets[index])")
        if case .video(let videoIndex) = sample {
            guard let units = samples.videoUnits.units(ofSample: Int(videoIndex), payloadSize: payload.count, size: size) else { throw changed }
            if scratch.count < size { scratch = [UInt8](repeating: 0, count: size) }
            payload.withUnsafeBytes { raw in
                scratch.withUnsafeMutableBytes { VideoAccessUnit.writeSample(units: units, from: raw, into: $0) }
            }
            try scratch.withUnsafeBytes { raw in
                Result { () throws(MP4Error) in try body(UnsafeRawBufferPointer(rebasing: raw[0..<size])) }
            }.get()
        } else {
            let start = Int(samples.dataOffsets[index])
            guard start + size <= payload.count else { throw changed }
            try payload.withUnsafeBytes { raw in
                Result { () throws(MP4Error) in try body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + size)])) }
            }.get()
        }
    }

    /// The payload of the PES packet on `pid` that starts with the packet at `offset`.
    private mutating func pesPayload(segment index: Int, offset: UInt64, pid: UInt16) throws(MP4Error) -> [UInt8] {
        if let packet, packet.segment == index, packet.offset == offset, packet.pid == pid { return packet.payload }
        let file = samples.segmentFiles[index]
        var packets: SegmentPackets
        if segment?.index == index, let open = segment.take() {
            // Taken out, so the walk reads new blocks into the one block array.
            packets = open.packets
        } else {
            try checkUnchanged()
            packets = try SegmentPackets(.init(path: file.path, byteRange: file.byteRange), expecting: file.version)
        }
        // Kept, with the block it reads, for the next sample.
        defer { segment = (index, packets) }
        let path = file.path
        var assembler = PESAssembler(pids: [pid])
        var found: PESPacket?
        try packets.walk(from: offset) { (bytes, at) throws(MP4Error) -> Bool in
            found = try streamErrors(path) { () throws(TSParseFailure) in
                try assembler.add(TSPacket(bytes, at: at), bytes: bytes, at: at)
            }
            return found == nil
        }
        if found == nil { found = try streamErrors(path) { () throws(TSParseFailure) in try assembler.finish().first } }
        guard let found, found.offset == offset else {
            throw .io(file: path.description, operation: "copy samples", reason: "no PES packet starts at byte \(offset) any more")
        }
        packet = (index, offset, pid, found.payload)
        return found.payload
    }

    private func noSample(at position: UInt64) -> MP4Error {
        .io(file: samples.segmentFiles.first?.path.description ?? "", operation: "copy samples",
            reason: "no demuxed sample at position \(position) (the plan and the source disagree)")
    }
}
