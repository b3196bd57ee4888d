import CompositorCore
import CompositorIO
import CompositorTS

/// Writes the segments of an MPEG-TS packaging: each starts with PAT and PMT, then its access
/// units and AAC frames interleaved by time (video by decode time, audio by presentation time).
///
/// Timestamps are the source's presentation times on a 90 kHz clock from 1.4 s (as ffmpeg
/// starts), later when priming or B-frames decode before 0: every PTS and DTS stays positive.
/// Decode times move earlier by the largest negative composition offset (MP4's signed `ctts`),
/// since a transport stream's DTS may never pass its PTS. Continuity counters run on when the
/// segments are written in order (as a playlist plays them), and restart after a skip.
struct TransportStreamSegmentWriter: MP4SegmentWriter {
    /// The presentation time that becomes PTS 126,000 (1.4 s).
    static let firstTimestamp: Int64 = 126_000

    /// One track's media ticks to 90 kHz.
    private struct Clock {
        let mediaStart: Int64
        let timescale: Int32
        /// 90 kHz ticks added: the base and the track's presentation start.
        var offset: Int64
        /// Ticks subtracted from decode times so none passes its composition time.
        let decodeShift: Int64

        func ticks(_ media: Int64, file: String) throws(MP4Error) -> Int64 {
            let (relative, overflow) = media.subtractingReportingOverflow(mediaStart)
            do {
                guard !overflow else { throw MediaTimeError.overflow("\(media) - \(mediaStart)") }
                let scaled = try MediaTime.divide(relative, times: PESHeader.clockRate, by: Int64(timescale), rounding: .toNearestOrAwayFromZero)
                let (sum, sumOverflow) = scaled.addingReportingOverflow(offset)
                guard !sumOverflow else { throw MediaTimeError.overflow("\(scaled) + \(offset)") }
                return sum
            } catch {
                throw .timeOverflow(file: file, reason: "a sample time on the 90 kHz clock: \(error)")
            }
        }
    }

    let packaging: MP4Packaging
    let source: ReadableFile
    /// One reader for both tracks: the samples are taken in time order, which is about file order.
    private var sampleBytes: SampleBlockReader
    private var videoClock: Clock?
    private var audioClock: Clock?
    /// The video's format (one per track: `MP4Packaging` checks) and, per video sample
    /// description, its NAL length size and parameter sets (SPS then PPS; VPS, SPS, PPS for HEVC).
    private let videoFormat: VideoCodingFormat?
    private let videoDescriptions: [(lengthSize: Int, parameterSets: [[UInt8]])]
    private let adts: [ADTSParameters]
    private var muxer: TransportStreamMuxer
    private var lastSegment: Int?

    init(_ packaging: MP4Packaging) throws(MP4Error) {
        let name = packaging.path.description
        source = try packaging.openSource()
        sampleBytes = SampleBlockReader(file: source)
        self.packaging = packaging
        let descriptions = packaging.video?.track.sampleDescriptions ?? []
        videoFormat = descriptions.first?.codec.videoCodingFormat
        // Other codecs are not packaged (MP4Packaging refuses them).
        videoDescriptions = descriptions.map { ($0.codec.nalLengthSize ?? 4, $0.codec.parameterSetUnits) }
        adts = packaging.audio?.track.sampleDescriptions.compactMap { description in
            guard case .aac(let config) = description.codec else { return nil }
            return ADTSParameters(config)
        } ?? []
        func clock(_ timeline: SourceTrackTimeline, decodeShift: Int64) throws(MP4Error) -> Clock {
            let start: Int64
            do { start = try timeline.presentationStart.converted(to: Int32(PESHeader.clockRate), rounding: .toNearestOrAwayFromZero).value } catch {
                throw .timeOverflow(file: name, reason: "\(timeline.track.boxPath) starts presenting at \(timeline.presentationStart): \(error)")
            }
            return Clock(mediaStart: timeline.mediaStart, timescale: timeline.timescale, offset: start, decodeShift: decodeShift)
        }
        if let video = packaging.video {
            let samples = video.samples
            let mostNegative = samples.compositionOffsets.min().map { Int64(min($0, 0)) } ?? 0
            videoClock = try clock(video, decodeShift: -mostNegative)
        }
        if let audio = packaging.audio { audioClock = try clock(audio, decodeShift: 0) }
        // The earliest time either track decodes sets the base, so no timestamp is negative.
        var earliest: Int64 = 0
        if let clock = videoClock, let video = packaging.video {
            earliest = min(earliest, try clock.ticks(video.samples.decodeTimes[0] - clock.decodeShift, file: name))
        }
        if let clock = audioClock, let audio = packaging.audio {
            earliest = min(earliest, try clock.ticks(audio.samples.decodeTimes[0], file: name))
        }
        let base = Self.firstTimestamp - earliest
        videoClock?.offset += base
        audioClock?.offset += base
        muxer = TransportStreamMuxer(video: videoFormat, hasAudio: packaging.audio != nil)
    }

    /// A transport stream has none: every segment starts with its PAT and PMT.
    func initSegment() -> [UInt8]? { nil }

    /// Segment `index` as transport stream packets.
    mutating func segment(_ index: Int, into out: inout [UInt8]) throws(MP4Error) {
        if lastSegment.map({ $0 + 1 }) != index {
            muxer = TransportStreamMuxer(video: videoFormat, hasAudio: packaging.audio != nil)
        }
        lastSegment = index
        let segment = packaging.segments[index]
        let name = packaging.path.description
        out.removeAll(keepingCapacity: true)
        muxer.writeTables(into: &out)
        var v = segment.video.lowerBound, a = segment.audio.lowerBound
        var nextAudio = try audioTime(a, file: name)
        var nextVideo = try videoTimes(v, file: name)
        var accessUnit: [UInt8] = []
        while v < segment.video.upperBound || a < segment.audio.upperBound {
            if v < segment.video.upperBound, let (pts, dts) = nextVideo,
               a >= segment.audio.upperBound || nextAudio.map({ dts <= $0 }) ?? true, let video = packaging.video, let videoFormat {
                let samples = video.samples
                let description = videoDescriptions[Int(samples.descriptionIndices[v])]
                let keyframe = samples.isSync(v)
                accessUnit.removeAll(keepingCapacity: true)
                try sampleBytes.withSample(at: samples.offsets[v], size: Int(samples.sizes[v])) { (bytes) throws(MP4Error) in
                    do throws(TSParseFailure) {
                        try AnnexB.appendLengthPrefixed(
                            bytes, format: videoFormat, lengthSize: description.lengthSize, parameterSets: keyframe ? description.parameterSets : [],
                            to: &accessUnit, at: samples.offsets[v])
                    } catch {
                        throw .malformed(file: name, boxPath: video.track.boxPath, offset: error.offset,
                                         reason: "video sample \(v + 1): \(error.reason)")
                    }
                }
                accessUnit.withUnsafeBytes { muxer.writeVideo($0, pts: UInt64(pts), dts: UInt64(dts), isKeyframe: keyframe, into: &out) }
                v += 1
                nextVideo = try videoTimes(v, file: name)
            } else if let pts = nextAudio, let audio = packaging.audio {
                let samples = audio.samples
                let parameters = adts[Int(samples.descriptionIndices[a])]
                let size = Int(samples.sizes[a])
                guard let header = ADTSHeader.bytes(
                    audioObjectType: parameters.audioObjectType, samplingFrequencyIndex: parameters.samplingFrequencyIndex,
                    channelConfiguration: parameters.channelConfiguration, payloadLength: size) else {
                    throw .unsupported(file: name, boxPath: audio.track.boxPath, offset: samples.offsets[a],
                                       reason: "audio sample \(a + 1) of \(size) bytes is longer than an ADTS frame can hold")
                }
                var frame = header
                try sampleBytes.withSample(at: samples.offsets[a], size: size) { (bytes) throws(MP4Error) in frame.append(contentsOf: bytes) }
                frame.withUnsafeBytes { muxer.writeAudio($0, pts: UInt64(pts), into: &out) }
                a += 1
                nextAudio = try audioTime(a, file: name)
            } else {
                break
            }
        }
    }

    /// Video sample `index`'s PTS and DTS on the 90 kHz clock, `nil` past the last sample.
    private func videoTimes(_ index: Int, file: String) throws(MP4Error) -> (pts: Int64, dts: Int64)? {
        guard let clock = videoClock, let samples = packaging.video?.samples, index < samples.count else { return nil }
        return (try clock.ticks(samples.compositionTime(index), file: file),
                try clock.ticks(samples.decodeTimes[index] - clock.decodeShift, file: file))
    }

    /// Audio frame `index`'s PTS on the 90 kHz clock, `nil` past the last frame.
    private func audioTime(_ index: Int, file: String) throws(MP4Error) -> Int64? {
        guard let clock = audioClock, let samples = packaging.audio?.samples, index < samples.count else { return nil }
        return try clock.ticks(samples.decodeTimes[index], file: file)
    }
}
