import CompositorCore
import CompositorIO
import CompositorTS
import Dispatch

/// What one segment of a transport stream source holds, read on its own: the program it plays,
/// and each PES packet of its video and audio as the facts the source's index needs (timestamps,
/// where the access unit's NAL units are, its parameter sets, the ADTS frames). Nothing here
/// depends on the segments before it, so segments are read side by side (`scans`); the index then
/// takes them in order (`TransportStreamReader.Index.add`), where everything that runs on from
/// segment to segment is decided.
struct TransportStreamSegmentScan: Sendable {
    struct Video: Sendable {
        let pts: UInt64, dts: UInt64, offset: UInt64
        let isRandomAccess: Bool
        /// Where the sample's NAL units are, counted from the PES packet's first byte (its
        /// header's), so writing can take them from the transport stream packets as they come.
        let units: [Range<Int>]
        /// Its parameter sets: NAL unit type, id, and bytes.
        let parameterSets: [(type: UInt8, id: UInt32, bytes: [UInt8])]

        var sampleSize: Int { VideoAccessUnit.sampleSize(of: units) }
    }
    struct Audio: Sendable {
        let pts: UInt64, offset: UInt64
        let frames: [(header: ADTSHeader, data: Range<Int>)]
    }
    enum Packet: Sendable {
        case video(Video)
        case audio(Audio)
    }

    /// The video and audio streams read, from the segment's PMT: PIDs, the video's format, and
    /// where the PMT is.
    typealias Program = (video: UInt16?, audio: UInt16?, format: VideoCodingFormat?, offset: UInt64)
    /// `nil` when no PMT came before the end (or before `failure`).
    var program: Program?
    /// The PES packets read, in stream order.
    var packets: [Packet] = []
    /// What ended the reading early, after `packets`: the index reports it once it has taken
    /// them, so errors come in the order a reading of one segment after another finds them.
    var failure: MP4Error?
    let path: FilePath
    let version: FileVersion
    let range: Range<UInt64>

    /// Reads `segment`. Throws only when its file cannot be opened; what its bytes get wrong is
    /// `failure`.
    init(_ segment: HLSSegmentSource.Segment) throws(MP4Error) {
        var packets = try SegmentPackets(segment.file)
        path = segment.path
        version = packets.file.version
        range = packets.range
        do {
            try read(&packets)
        } catch {
            failure = error
        }
    }

    private mutating func read(_ packets: inout SegmentPackets) throws(MP4Error) {
        var reader = Reader(path: path)
        // `reader` keeps what it has read when it throws.
        defer { (program, self.packets) = (reader.program, reader.packets) }
        try packets.walk(from: packets.range.lowerBound) { (bytes, offset) throws(MP4Error) -> Bool in
            try reader.add(bytes, at: offset)
            return true
        }
        try reader.finish()
    }

    /// The segment's packets read in order: a value of its own rather than closures over the
    /// scan's properties, which Swift checks for exclusive access at every packet.
    private struct Reader {
        let path: FilePath
        var demuxer = ProgramDemuxer(streamTypes: [VideoCodingFormat.h264.streamType, VideoCodingFormat.hevc.streamType,
                                                   ElementaryStreamEntry.adtsAAC])
        var program: Program?
        var packets: [Packet] = []

        init(path: FilePath) { self.path = path }

        mutating func add(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(MP4Error) {
            if let packet = try streamErrors(path, { () throws(WireFailure) in try demuxer.add(bytes, at: offset) }) {
                try handle(packet)
            }
        }

        mutating func finish() throws(MP4Error) {
            for packet in try streamErrors(path, { () throws(WireFailure) in try demuxer.finish() }) { try handle(packet) }
            _ = try chosenProgram()
        }

        /// The program, chosen once its PMT has been read (PES packets come only after it).
        private mutating func chosenProgram() throws(MP4Error) -> Program? {
            if program == nil, let map = demuxer.programMap { program = try TransportStreamSegmentScan.choose(map.streams, file: path, offset: map.offset) }
            return program
        }

        private mutating func handle(_ packet: PESPacket) throws(MP4Error) {
            guard let program = try chosenProgram() else { return }
            if packet.pid == program.video, let format = program.format {
                packets.append(.video(try TransportStreamSegmentScan.video(packet, format: format, file: path)))
            } else if packet.pid == program.audio {
                packets.append(.audio(try TransportStreamSegmentScan.audio(packet, file: path)))
            }
        }
    }

    /// The first H.264 or HEVC stream and the first AAC one of a PMT; refuses a program with
    /// neither, naming what it has instead.
    private static func choose(_ streams: [ElementaryStreamEntry], file: FilePath, offset: UInt64) throws(MP4Error) -> Program {
        let video = streams.first { VideoCodingFormat(streamType: $0.streamType) != nil }
        let audio = streams.first { $0.streamType == ElementaryStreamEntry.adtsAAC }
        func named(_ names: [UInt8: String]) -> String? {
            streams.lazy.compactMap { stream in names[stream.streamType].map { "\($0) (stream type 0x\(String(stream.streamType, radix: 16)))" } }.first
        }
        if video == nil, let other = named(TransportStreamReader.unsupportedVideo) {
            throw .unsupportedStream(file: file.description, offset: offset, reason: "\(other); transport stream sources are read with H.264 or HEVC video")
        }
        if audio == nil, let other = named(TransportStreamReader.unsupportedAudio) {
            throw .unsupportedStream(file: file.description, offset: offset, reason: "\(other); transport stream sources are read with AAC (ADTS) audio")
        }
        guard video != nil || audio != nil else {
            throw .unsupportedStream(file: file.description, offset: offset,
                                     reason: "the program has no H.264 or HEVC video and no AAC audio (stream types "
                                     + streams.map { "0x" + String($0.streamType, radix: 16) }.joined(separator: ", ") + ")")
        }
        return (video?.pid, audio?.pid, video.flatMap { VideoCodingFormat(streamType: $0.streamType) }, offset)
    }

    private static func video(_ packet: PESPacket, format: VideoCodingFormat, file: FilePath) throws(MP4Error) -> Video {
        guard let pts = packet.header.pts, let dts = packet.header.dts else {
            throw .unsupportedStream(file: file.description, offset: packet.offset,
                                     reason: "a video PES packet without a PTS (an access unit split over PES packets)")
        }
        let payload = packet.payload
        let unit = try streamErrors(file, parsing: payload) { (raw) throws(WireFailure) in
            try VideoAccessUnit(payload: raw, format: format, at: packet.offset)
        }
        var parameterSets: [(type: UInt8, id: UInt32, bytes: [UInt8])] = []
        for set in unit.parameterSets {
            let id = try streamErrors(file) { () throws(WireFailure) in
                try format.parameterSetID(payload[set.range], type: set.type, at: packet.offset)
            }
            parameterSets.append((set.type, id, Array(payload[set.range])))
        }
        let header = packet.header.headerLength
        return Video(pts: pts, dts: dts, offset: packet.offset, isRandomAccess: unit.isRandomAccess,
                     units: unit.sampleUnits.map { ($0.lowerBound + header)..<($0.upperBound + header) }, parameterSets: parameterSets)
    }

    private static func audio(_ packet: PESPacket, file: FilePath) throws(MP4Error) -> Audio {
        guard let pts = packet.header.pts else {
            throw .unsupportedStream(file: file.description, offset: packet.offset, reason: "an audio PES packet without a PTS")
        }
        let frames = try streamErrors(file, parsing: packet.payload) { (raw) throws(WireFailure) in
            try ADTSFrames.split(raw, at: packet.offset)
        }
        return Audio(pts: pts, offset: packet.offset, frames: frames)
    }

    /// Segments `range` of `source`, read side by side on the machine's cores; each result in
    /// its segment's place.
    static func scans(of source: HLSSegmentSource, _ range: Range<Int>) -> [Result<TransportStreamSegmentScan, MP4Error>] {
        let results = Slots(UnsafeMutablePointer.allocate(capacity: range.count))
        DispatchQueue.concurrentPerform(iterations: range.count) { position in
            (results.base + position).initialize(to: Result { () throws(MP4Error) in
                try TransportStreamSegmentScan(source.segments[range.lowerBound + position])
            })
        }
        defer { results.base.deinitialize(count: range.count); results.base.deallocate() }
        return Array(UnsafeBufferPointer(start: results.base, count: range.count))
    }

    /// The results' storage: each iteration initializes its own element, and only that one.
    private struct Slots: @unchecked Sendable {
        let base: UnsafeMutablePointer<Result<TransportStreamSegmentScan, MP4Error>>
        init(_ base: UnsafeMutablePointer<Result<TransportStreamSegmentScan, MP4Error>>) { self.base = base }
    }
}
