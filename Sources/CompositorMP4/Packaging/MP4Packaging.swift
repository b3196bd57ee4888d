import CompositorCore
import CompositorIO
import CompositorTS

/// An MP4 source cut into HLS media segments by passthrough: samples copied, never re-encoded.
///
/// Segments start at video keyframes where decoding can start (audio frames, for a source without
/// video; see `DecodeStart`), each ending at the keyframe that keeps it nearest to
/// `targetDuration` without passing it (or the next one, when a GOP is longer). The keyframes on
/// either side of each time in `cuts` start segments too, so a cut asked there moves to a
/// keyframe next to it, whichever way the playlist rule snaps.
///
/// ```
/// keyframes   0    2    4    6    8    10   12        target 6 s, a cut asked at 8.5
/// segments    |0 ----------|6 --|8 --|10 ------|12
/// ```
///
/// The packaged playlist's time is the source's presentation time (its edit list applied):
/// segment `i` plays `segments[i].range`, and the first starts at 0. Audio frames go with the
/// segment their presentation starts in (priming frames with the first).
package struct MP4Packaging: Sendable {
    /// The segment container.
    package enum Container: String, Sendable, Hashable {
        /// MPEG-2 transport stream segments: H.264 in Annex B with in-band parameter sets, AAC in ADTS.
        case mpegTS = "MPEG-TS"
        /// Fragmented MP4 (CMAF) segments after an init segment (`EXT-X-MAP`).
        case fragmentedMP4 = "fragmented MP4"
    }

    /// One media segment.
    package struct Segment: Sendable, Equatable {
        /// Where it plays, in the source's presentation time.
        package let range: MediaTimeRange
        /// Its video and audio samples, in decode order.
        let video: Range<Int>
        let audio: Range<Int>
    }

    package let path: FilePath
    package let container: Container
    /// The source as it was read: the segments hold only for this version of it.
    let version: FileVersion
    let video: SourceTrackTimeline?
    let audio: SourceTrackTimeline?
    package let segments: [Segment]

    /// How long the packaged playlist plays: the longest track's presentation.
    package var duration: MediaTime { segments.last?.range.end ?? .zero }

    /// Reads the source's `moov` and decides the segments; no sample is read yet.
    package init(path: FilePath, container: Container, targetDuration: MediaTime, cuts: [MediaTime] = []) throws(MP4Error) {
        let movie = try MP4Reader.read(path: path)
        let file = path.description
        guard case .file(_, let version) = movie.store else {
            throw .io(file: file, operation: "package", reason: "not read from an MP4 file")
        }
        let video = try movie.videoTrack.map { (track) throws(MP4Error) in try SourceTrackTimeline(track: track, file: file) }
        let audio = try movie.audioTrack.map { (track) throws(MP4Error) in try SourceTrackTimeline(track: track, file: file) }
        guard video != nil || audio != nil else {
            throw .unsupported(file: file, boxPath: "moov", offset: 0, reason: "no video or audio track with samples to package")
        }
        for track in [video?.track, audio?.track].compactMap({ $0 }) {
            try Self.checkPackageable(track, in: container, file: file)
        }
        self.path = path
        self.container = container
        self.version = version
        self.video = video
        self.audio = audio
        var keyframes = KeyframeReader(sources: [movie.store])
        self.segments = try Self.segments(video: video, audio: audio, targetDuration: targetDuration, cuts: cuts, file: file,
                                          keyframes: &keyframes)
        try keyframes.close()
    }

    /// A writer of the segments in `container`, reading the source (checked to be the version
    /// the segments were planned from).
    package func segmentWriter() throws(MP4Error) -> any MP4SegmentWriter {
        switch container {
        case .mpegTS: return try TransportStreamSegmentWriter(self)
        case .fragmentedMP4: return try FragmentedMP4SegmentWriter(self)
        }
    }

    /// The source, opened and checked to be the version the segments were planned from.
    func openSource() throws(MP4Error) -> ReadableFile {
        try mp4Errors { () throws(FileError) in try ReadableFile(path: path, expecting: version) }
    }

    /// Refuses what the container cannot carry, before anything is written.
    private static func checkPackageable(_ track: MP4Track, in container: Container, file: String) throws(MP4Error) {
        let path = track.boxPath + "/mdia/minf/stbl/stsd"
        switch container {
        case .fragmentedMP4:
            guard track.sampleDescriptions.count == 1 else {
                throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                   reason: "\(track.sampleDescriptions.count) sample descriptions in one track; fragmented MP4 segments are packaged from one")
            }
        case .mpegTS:
            if track.kind == .video, !track.displayMatrix.showsAlike(.identity) {
                throw .unsupported(file: file, boxPath: track.boxPath + "/tkhd", offset: track.boxOffset,
                                   reason: "video shown \(track.displayMatrix), which MPEG-TS segments cannot say (it would play turned); "
                                       + "package as fragmented MP4")
            }
            for description in track.sampleDescriptions {
                switch description.codec {
                case .avc where track.kind == .video, .hevc where track.kind == .video:
                    guard description.codec.videoCodingFormat == track.sampleDescriptions[0].codec.videoCodingFormat else {
                        throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                           reason: "H.264 and HEVC sample descriptions in one track; an MPEG-TS stream carries one video format")
                    }
                case .aac(let config) where track.kind == .audio:
                    guard (1...7).contains(config.channelConfiguration), (1...4).contains(config.coreObjectType),
                          ADTSParameters.frequencyIndex(of: config.sampleRate) != nil else {
                        throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                           reason: "AAC (object type \(config.objectType), \(config.sampleRate) Hz, channel configuration \(config.channelConfiguration)) that ADTS cannot describe; package as fragmented MP4")
                    }
                default:
                    throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                       reason: "\(description.format) \(track.kind.map { "\($0)" } ?? "media"); MPEG-TS segments are packaged from H.264 or HEVC video and AAC audio (package as fragmented MP4)")
                }
            }
        }
    }

    /// The segments: boundaries at keyframes (see the type's comment), samples split at them.
    private static func segments(
        video: SourceTrackTimeline?, audio: SourceTrackTimeline?, targetDuration: MediaTime, cuts: [MediaTime], file: String,
        keyframes: inout KeyframeReader
    ) throws(MP4Error) -> [Segment] {
        func time<T>(_ body: () throws(MediaTimeError) -> T) throws(MP4Error) -> T {
            do { return try body() } catch { throw .timeOverflow(file: file, reason: "\(error)") }
        }
        let end = MediaTime.max(video?.presentationEnd ?? .zero, audio?.presentationEnd ?? .zero)
        guard end > .zero else {
            throw .unsupported(file: file, boxPath: "moov", offset: 0, reason: "nothing presents: every track's presentation is empty")
        }
        // Where a segment may start: each keyframe where decoding can start (see `DecodeStart`;
        // each audio frame without video), by its presentation time, increasing and inside (0, end).
        var candidates: [(time: MediaTime, sample: Int)] = []
        guard let splitting = video ?? audio else { return [] }
        for index in 0..<splitting.samples.count where splitting.samples.isSync(index) {
            let start = try time { () throws(MediaTimeError) in try splitting.presentationTime(ofMedia: splitting.compositionTime(index)) }
            guard start > (candidates.last?.time ?? .zero), start < end,
                  try keyframes.decodeStart(index, of: splitting, source: 0) != .none else { continue }
            candidates.append((start, index))
        }
        // The keyframes next to each cut must start segments (the one at it, when there is one).
        let candidateTimes = candidates.map(\.time)
        var required = Set<Int>()
        for cut in cuts where cut > .zero && cut < end {
            let after = candidateTimes.partitioningIndex { $0 > cut }
            if after > 0 { required.insert(after - 1) }
            if after < candidates.count, after == 0 || candidateTimes[after - 1] != cut { required.insert(after) }
        }
        var starts: [(time: MediaTime, sample: Int)] = [(.zero, 0)]
        for (position, candidate) in candidates.enumerated() {
            let segmentStart = starts[starts.count - 1].time
            let next = position + 1 < candidates.count ? candidates[position + 1].time : end
            let nextLength = try time { () throws(MediaTimeError) in try next.subtracting(segmentStart) }
            if required.contains(position) || nextLength > targetDuration { starts.append(candidate) }
        }
        // Audio frames by the presentation time they start at.
        func firstAudioFrame(at t: MediaTime) throws(MP4Error) -> Int {
            guard let audio else { return 0 }
            let ticks = try time { () throws(MediaTimeError) in
                try audio.mediaTime(at: t).converted(to: audio.timescale, rounding: .up).value
            }
            return audio.samples.decodeTimes.partitioningIndex { $0 >= ticks }
        }
        let audioEnd = try audio.map { (audio) throws(MP4Error) in try firstAudioFrame(at: audio.presentationEnd) } ?? 0
        // Segment i runs from bound i to bound i + 1, in time and in each track's samples; the
        // first takes every sample before the first keyframe, the last every one to the end.
        let times = starts.map(\.time) + [end]
        let splitBounds = [0] + starts.dropFirst().map(\.sample) + [video?.samples.count ?? audioEnd]
        var audioBounds = splitBounds
        if video != nil {
            audioBounds = [0]
            for start in starts.dropFirst() { audioBounds.append(min(try firstAudioFrame(at: start.time), audioEnd)) }
            audioBounds.append(audioEnd)
        }
        let segments = starts.indices.map { index in
            Segment(range: MediaTimeRange(start: times[index], end: times[index + 1]),
                    video: video == nil ? 0..<0 : splitBounds[index]..<splitBounds[index + 1],
                    audio: audioBounds[index]..<audioBounds[index + 1])
        }
        return segments
    }
}

/// The ADTS fields of an AAC sample description.
struct ADTSParameters: Sendable, Equatable {
    let audioObjectType: UInt8
    let samplingFrequencyIndex: UInt8
    let channelConfiguration: UInt8

    /// ADTS has no field for HE-AAC: its AAC-LC core is described, at the core's rate.
    init(_ config: AudioSpecificConfig) {
        audioObjectType = UInt8(clamping: config.coreObjectType)
        samplingFrequencyIndex = UInt8(Self.frequencyIndex(of: config.sampleRate) ?? 0)
        channelConfiguration = UInt8(clamping: config.channelConfiguration)
    }

    static func frequencyIndex(of rate: Int) -> Int? { ADTSHeader.samplingFrequencies.firstIndex(of: rate) }
}

/// Writes the segments of one packaging, in its container.
package protocol MP4SegmentWriter {
    /// The source being read.
    var source: ReadableFile { get }
    /// The init segment (`EXT-X-MAP`), for a container that has one.
    func initSegment() -> [UInt8]?
    /// Segment `index`'s bytes, in place of what `bytes` held. One buffer kept for every segment
    /// keeps its storage: a new one per segment would cost fresh pages for every byte written.
    mutating func segment(_ index: Int, into bytes: inout [UInt8]) throws(MP4Error)
}

extension MP4SegmentWriter {
    /// Throws when the source changed while it was being read.
    package func checkUnchanged() throws(MP4Error) {
        try mp4Errors { () throws(FileError) in try source.checkUnchanged() }
    }
}
