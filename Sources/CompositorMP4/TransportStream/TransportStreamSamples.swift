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

/// Where each video sample's NAL units lie in its PES packet, found when the source is read, so
/// that writing copies them without scanning for start codes a second time (the scan was a
/// seventh of a TS render's time). A few bytes a unit.
struct VideoSampleUnits: Sendable {
    /// Start and end of each unit, counted from the PES packet's first byte, samples one after another.
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

    /// Sample `index`'s units, start and end in turn, ascending; `nil` when they do not make a
    /// sample of `size` bytes.
    func units(ofSample index: Int, size: Int) -> ArraySlice<UInt32>? {
        guard index + 1 < firsts.count else { return nil }
        let units = bounds[firsts[index]..<firsts[index + 1]]
        var total = 0, previousEnd: UInt32 = 0
        for position in stride(from: units.startIndex, to: units.endIndex, by: 2) {
            guard previousEnd <= units[position], units[position] <= units[position + 1] else { return nil }
            previousEnd = units[position + 1]
            total += 4 + Int(units[position + 1] - units[position])
        }
        return total == size ? units : nil
    }
}

/// Demuxes a transport stream source's samples again, as `TransportStreamSamples` places them,
/// into an output file. Holds one segment open, its last blocks read, and the last audio PES
/// packet put together (it carries several frames).
struct TransportStreamSampleReader: SampleStoreReader {
    private let samples: TransportStreamSamples
    private var segment: (index: Int, packets: SegmentPackets)?
    private var packet: (segment: Int, offset: UInt64, pid: UInt16, payload: [UInt8])?

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
            try copySample(index, within..<(within + take), body)
            position += UInt64(take)
            index += 1
        }
    }

    /// Checks the open segment's file is as it was planned.
    func checkUnchanged() throws(MP4Error) {
        if let segment { try mp4Errors { () throws(FileError) in try segment.packets.file.checkUnchanged() } }
    }

    /// Calls `body` with `window` of sample `index`'s bytes, in parts.
    private mutating func copySample(_ index: Int, _ window: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(MP4Error) -> Void) throws(MP4Error) {
        let segmentIndex = Int(samples.segmentIndices[index])
        let file = samples.segmentFiles[segmentIndex]
        let offset = samples.packetOffsets[index], size = Int(samples.sizes[index])
        switch samples.samples[index] {
        case .video(let videoIndex):
            guard let pid = file.videoPID else { throw noSample(at: samples.positions[index]) }
            guard let units = samples.videoUnits.units(ofSample: Int(videoIndex), size: size) else { throw changed(segmentIndex, offset) }
            try copyVideoSample(units: units, window: window, segment: segmentIndex, offset: offset, pid: pid, body)
        case .audio:
            guard let pid = file.audioPID else { throw noSample(at: samples.positions[index]) }
            let payload = try pesPayload(segment: segmentIndex, offset: offset, pid: pid)
            let start = Int(samples.dataOffsets[index])
            guard start + size <= payload.count else { throw changed(segmentIndex, offset) }
            try payload.withUnsafeBytes { raw in
                Result { () throws(MP4Error) in
                    try body(UnsafeRawBufferPointer(rebasing: raw[(start + window.lowerBound)..<(start + window.upperBound)]))
                }
            }.get()
        }
    }

    /// The error for a sample planned in segment `index`'s PES packet at `offset` that is no
    /// longer there.
    private func changed(_ index: Int, _ offset: UInt64) -> MP4Error {
        .io(file: samples.segmentFiles[index].path.description, operation: "copy samples",
            reason: "the segment no longer holds the sample planned at byte \(offset)")
    }

    /// Calls `body` with `window` of a video sample's bytes (each of `units` after its 4-byte
    /// length) taken straight from the payloads of the transport stream packets that carry its
    /// PES packet, the one on `pid` starting at `offset`: a render's video is most of its bytes,
    /// and putting each PES packet together first copied them twice more.
    private mutating func copyVideoSample(units: ArraySlice<UInt32>, window: Range<Int>, segment index: Int, offset: UInt64, pid: UInt16,
                                          _ body: (UnsafeRawBufferPointer) throws(MP4Error) -> Void) throws(MP4Error) {
        var packets = try openSegment(index)
        defer { segment = (index, packets) }
        let path = samples.segmentFiles[index].path
        /// The PES packet's bytes before the payload being read; the sample's bytes passed (or
        /// skipped, before `window`) so far.
        var packetPosition = 0, samplePosition = 0
        /// Where the unit being copied begins in `units`, and whether its length is written.
        var unit = units.startIndex, lengthWritten = false
        var continuity: UInt8?
        func pass(_ bytes: UnsafeRawBufferPointer) throws(MP4Error) {
            let from = max(window.lowerBound - samplePosition, 0), to = min(window.upperBound - samplePosition, bytes.count)
            if from < to { try body(UnsafeRawBufferPointer(rebasing: bytes[from..<to])) }
            samplePosition += bytes.count
        }
        try packets.walk(from: offset) { (bytes, at) throws(MP4Error) -> Bool in
            let packet = try streamErrors(path) { () throws(WireFailure) in try TSPacket(bytes, at: at) }
            guard packet.pid == pid, packet.hasPayload else { return true }
            if let last = continuity {
                // The next PES packet has begun before the sample's units ended.
                guard !packet.payloadUnitStart else { throw changed(index, offset) }
                // A repeated packet (2.4.3.3) carries nothing new.
                if packet.continuityCounter == last { return true }
                guard packet.continuityCounter == (last + 1) & 0x0F else { throw changed(index, offset) }
            } else if !packet.payloadUnitStart || at != offset {
                throw changed(index, offset)
            }
            continuity = packet.continuityCounter
            let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.payloadStart...])
            let payloadEnd = packetPosition + payload.count
            while unit < units.endIndex {
                let start = Int(units[unit]), end = Int(units[unit + 1])
                guard start < payloadEnd else { break }
                if !lengthWritten {
                    try withUnsafeBytes(of: UInt32(end - start).bigEndian) { raw in Result { () throws(MP4Error) in try pass(raw) } }.get()
                    lengthWritten = true
                }
                try pass(UnsafeRawBufferPointer(rebasing: payload[(max(start, packetPosition) - packetPosition)..<(min(end, payloadEnd) - packetPosition)]))
                guard end <= payloadEnd else { break }
                unit += 2
                lengthWritten = false
            }
            packetPosition = payloadEnd
            return unit < units.endIndex && samplePosition < window.upperBound
        }
        guard unit == units.endIndex || samplePosition >= window.upperBound else { throw changed(index, offset) }
    }

    /// The payload of the PES packet on `pid` that starts with the packet at `offset`.
    private mutating func pesPayload(segment index: Int, offset: UInt64, pid: UInt16) throws(MP4Error) -> [UInt8] {
        if let packet, packet.segment == index, packet.offset == offset, packet.pid == pid { return packet.payload }
        var packets = try openSegment(index)
        // Kept, with the block it reads, for the next sample.
        defer { segment = (index, packets) }
        let path = samples.segmentFiles[index].path
        var assembler = PESAssembler(pids: [pid])
        var found: PESPacket?
        try packets.walk(from: offset) { (bytes, at) throws(MP4Error) -> Bool in
            found = try streamErrors(path) { () throws(WireFailure) in
                try assembler.add(TSPacket(bytes, at: at), bytes: bytes, at: at)
            }
            return found == nil
        }
        if found == nil { found = try streamErrors(path) { () throws(WireFailure) in try assembler.finish().first } }
        guard let found, found.offset == offset else {
            throw .io(file: path.description, operation: "copy samples", reason: "no PES packet starts at byte \(offset) any more")
        }
        packet = (index, offset, pid, found.payload)
        return found.payload
    }

    /// Segment `index`'s packets: the open segment's, taken out (so a walk reads new blocks into
    /// its one block array; the caller puts it back), or the segment opened, once the one open
    /// before is checked unchanged.
    private mutating func openSegment(_ index: Int) throws(MP4Error) -> SegmentPackets {
        if segment?.index == index, let open = segment.take() { return open.packets }
        try checkUnchanged()
        let file = samples.segmentFiles[index]
        return try SegmentPackets(.init(path: file.path, byteRange: file.byteRange), expecting: file.version)
    }

    private func noSample(at position: UInt64) -> MP4Error {
        .io(file: samples.segmentFiles.first?.path.description ?? "", operation: "copy samples",
            reason: "no demuxed sample at position \(position) (the plan and the source disagree)")
    }
}
