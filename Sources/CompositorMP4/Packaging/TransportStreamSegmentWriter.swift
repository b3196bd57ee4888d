import CompositorCore
import CompositorIO
import CompositorTS

/// Writes the segments of an MPEG-TS packaging: each starts with PAT and PMT, then its access
/// units and AAC frames interleaved by time (video by decode time, audio by presentation time).
///
/// On the source's clock, timestamps are the source's presentation times on a 90 kHz clock from
/// 1.4 s (as ffmpeg starts), later when priming or B-frames decode before 0: every PTS and DTS
/// stays positive; continuity counters run on when the segments are written in order (as a
/// playlist plays them), and restart after a skip. On the composition's clock (`SegmentPlacement`)
/// they are composition times, and the counters continue the stream's.
/// Decode times move earlier by the largest negative composition offset (MP4's signed `ctts`),
/// since a transport stream's DTS may never pass its PTS, and placed, by the placement's
/// `addedDecodeDelay`. A video-only source that `writesSilence` gets silent ADTS frames on the
/// audio PID (`SilentAudioFragments`' AAC-LC, 48 kHz, stereo).
struct TransportStreamSegmentWriter: MP4SegmentWriter {
    /// The presentation time that becomes PTS 126,000 (1.4 s).
    static let firstTimestamp: Int64 = 126_000

    /// One track's media ticks to 90 kHz.
    private struct Clock {
        let mediaStart: Int64
        let timescale: Int32
        /// The track's presentation start in 90 kHz ticks.
        let offset: Int64
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
    /// One reader for both tracks: the samples are taken in time order, which is about file order.
    private var sampleBytes: PackagingSampleReader
    private var videoClock: Clock?
    private var audioClock: Clock?
    /// 90 kHz ticks added to presentation times on the source's clock.
    private let sourceBase: Int64
    /// The video's format (one per track: `MP4Packaging` checks) and, per video sample
    /// description, what Annex B adds to its samples (with its parameter sets: SPS then PPS; VPS,
    /// SPS, PPS for HEVC).
    private let videoFormat: VideoCodingFormat?
    private let framings: [AnnexBFraming]
    private let adts: [ADTSParameters]
    private var muxer: TransportStreamMuxer
    private var lastSegment: Int?
    /// A silent AAC frame and its ADTS header, where the packaging `writesSilence`.
    private let silence: (header: [UInt8], frame: [UInt8])?
    /// Whether the stream has an audio PID: the source's audio, or silence.
    private var hasAudio: Bool { packaging.audio != nil || silence != nil }

    init(_ packaging: MP4Packaging) throws(MP4Error) {
        let name = packaging.path.description
        sampleBytes = try packaging.sampleReader()
        self.packaging = packaging
        let descriptions = packaging.video?.track.sampleDescriptions ?? []
        videoFormat = descriptions.first?.codec.videoCodingFormat
        // Other codecs are not packaged, nor parameter sets a reader of the stream would refuse
        // (MP4Packaging checks).
        framings = videoFormat.map { format in
            descriptions.map { AnnexBFraming(format: format, lengthSize: $0.codec.nalLengthSize ?? 4, parameterSets: $0.codec.parameterSetUnits) }
        } ?? []
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
        sourceBase = Self.firstTimestamp - earliest
        let frame = SilentAudioFragments.frame
        if packaging.writesSilence, !frame.isEmpty, let header = ADTSHeader.bytes(
            audioObjectType: 2, samplingFrequencyIndex: UInt8(ADTSParameters.frequencyIndex(of: Int(SilentAudioFragments.sampleRate)) ?? 0),
            channelConfiguration: 2, payloadLength: frame.count) {
            silence = (header, frame)
        } else {
            silence = nil
        }
        muxer = TransportStreamMuxer(video: videoFormat, hasAudio: packaging.audio != nil || silence != nil)
    }

    /// A transport stream has none: every segment starts with its PAT and PMT.
    func initSegment() -> [UInt8]? { nil }

    func checkUnchanged() throws(MP4Error) { try sampleBytes.checkUnchanged() }

    /// Segment `index` as transport stream packets, on the source's clock.
    mutating func segment(_ index: Int, into out: inout OutputBytes) throws(MP4Error) {
        if lastSegment.map({ $0 + 1 }) != index {
            muxer = TransportStreamMuxer(video: videoFormat, hasAudio: hasAudio)
        }
        lastSegment = index
        try write(index, base: sourceBase, audio: try audio(ofSegment: index, within: nil, origin: .zero, base: sourceBase), into: &out)
    }

    /// Segment `index` as transport stream packets, on the composition's clock.
    mutating func segment(_ index: Int, placedAt placement: SegmentPlacement, continuing stream: inout PackagedStream,
                          into out: inout OutputBytes) throws(MP4Error) {
        let name = packaging.path.description
        let base: Int64, decodeLead: Int64
        do {
            base = try placement.offset().converted(to: Int32(PESHeader.clockRate), rounding: .toNearestOrAwayFromZero).value
            decodeLead = try placement.addedDecodeDelay.converted(to: Int32(PESHeader.clockRate), rounding: .toNearestOrAwayFromZero).value
        } catch {
            throw .timeOverflow(file: name, reason: "segment \(index + 1) placed at \(placement.compositionStart): \(error)")
        }
        muxer = TransportStreamMuxer(video: videoFormat, hasAudio: hasAudio, continuing: stream.continuityCounters)
        lastSegment = nil
        let audio = silence == nil ? .source(try packaging.audioFrames(ofSegment: index, heldBy: placement))
            : try audio(ofSegment: index, within: placement.piece, origin: placement.piece.start, base: base)
        try write(index, base: base, decodeLead: decodeLead, audio: audio, into: &out)
        stream.continuityCounters = muxer.continuityCounters
    }

    /// The audio a segment carries: frames of the source's track, or silent frames.
    private enum SegmentAudio {
        case source(Range<Int>)
        /// `count` silent frames, the first presenting at `firstTimestamp` (90 kHz).
        case silence(firstTimestamp: Int64, count: Int)

        var count: Int {
            switch self {
            case .source(let frames): return frames.count
            case .silence(_, let count): return count
            }
        }
    }

    /// Segment `index`'s own audio frames, or where the packaging writes silence, the silent
    /// frames of a grid from `origin` (source presentation time) that start in it, within `piece`
    /// when one is given, `base` added to their times.
    private func audio(ofSegment index: Int, within piece: MediaTimeRange?, origin: MediaTime, base: Int64) throws(MP4Error) -> SegmentAudio {
        guard silence != nil else { return .source(packaging.segments[index].audio) }
        let name = packaging.path.description
        let frames: (first: Int64, count: Int)?, originTicks: Int64
        do {
            frames = try packaging.silentFrames(ofSegment: index, within: piece, origin: origin)
            originTicks = try origin.converted(to: Int32(PESHeader.clockRate), rounding: .toNearestOrAwayFromZero).value
        } catch {
            throw .timeOverflow(file: name, reason: "the silence of segment \(index + 1): \(error)")
        }
        guard let (first, count) = frames else { return .silence(firstTimestamp: 0, count: 0) }
        let (offset, overflow) = first.multipliedReportingOverflow(by: Self.silentFrameTicks)
        let (ticks, sumOverflow) = originTicks.addingReportingOverflow(offset)
        guard !overflow, !sumOverflow else {
            throw .timeOverflow(file: name, reason: "the silence of segment \(index + 1): frame \(first) from \(originTicks) ticks of 90 kHz")
        }
        return .silence(firstTimestamp: try Self.timestamp(ticks, base: base, file: name), count: count)
    }

    /// A silent frame's length on the 90 kHz clock: 1,024 samples at 48 kHz.
    private static let silentFrameTicks = Int64(SilentAudioFragments.samplesPerFrame) * PESHeader.clockRate / Int64(SilentAudioFragments.sampleRate)

    /// Segment `index`'s video and the audio frames `audio`, `base` added to every presentation
    /// time, and video decode times `decodeLead` ticks earlier than that.
    private mutating func write(_ index: Int, base: Int64, decodeLead: Int64 = 0, audio: SegmentAudio,
                                into out: inout OutputBytes) throws(MP4Error) {
        let segment = packaging.segments[index]
        let name = packaging.path.description
        // Local, so that the muxer writes while the sample reader lends its bytes.
        var muxer = self.muxer
        defer { self.muxer = muxer }
        out.removeAll()
        muxer.writeTables(into: &out)
        // `k`: the segment's audio frames written so far.
        var v = segment.video.lowerBound, k = 0
        var nextAudio = try audioTime(k, of: audio, base: base, file: name)
        var nextVideo = try videoTimes(v, base: base, decodeLead: decodeLead, file: name)
        // A PES packet's payload, where its bytes are: in the sample read, or in a framing.
        var pieces: [UnsafeRawBufferPointer] = []
        // The segment's first picture gets the parameter sets even when its sample is not marked
        // a keyframe (the first segment takes the samples before the first keyframe): a reader
        // cannot decode a picture before them.
        var pictureWritten = false
        while v < segment.video.upperBound || k < audio.count {
            if v < segment.video.upperBound, let (pts, dts) = nextVideo,
               k >= audio.count || nextAudio.map({ dts <= $0 }) ?? true, let video = packaging.video, videoFormat != nil {
                let samples = video.samples
                let framing = framings[Int(samples.descriptionIndices[v])]
                let keyframe = samples.isSync(v)
                let offset = samples.offsets[v]
                try sampleBytes.withSample(at: offset, size: Int(samples.sizes[v])) { (bytes) throws(MP4Error) in
                    pieces.removeAll(keepingCapacity: true)
                    let holdsPicture: Bool
                    do throws(WireFailure) {
                        holdsPicture = try framing.appendPieces(of: bytes, withParameterSets: keyframe || !pictureWritten, to: &pieces, at: offset)
                    } catch {
                        throw .malformed(file: name, boxPath: video.track.boxPath, offset: error.offset,
                                         reason: "video sample \(v + 1): \(error.reason)")
                    }
                    // A sample without a picture (empty, say) shows nothing new: left out, the
                    // picture before it stays up, as it would have.
                    if holdsPicture {
                        muxer.writeVideo(pieces, pts: UInt64(pts), dts: UInt64(dts), isKeyframe: keyframe, into: &out)
                        pictureWritten = true
                    }
                }
                v += 1
                nextVideo = try videoTimes(v, base: base, decodeLead: decodeLead, file: name)
            } else if let pts = nextAudio, case .silence = audio, let silence {
                silence.header.withUnsafeBytes { header in
                    silence.frame.withUnsafeBytes { frame in
                        pieces.removeAll(keepingCapacity: true)
                        pieces.append(header)
                        pieces.append(frame)
                        muxer.writeAudio(pieces, pts: UInt64(pts), into: &out)
                    }
                }
                k += 1
                nextAudio = try audioTime(k, of: audio, base: base, file: name)
            } else if let pts = nextAudio, case .source(let frames) = audio, let track = packaging.audio {
                let a = frames.lowerBound + k
                let samples = track.samples
                let parameters = adts[Int(samples.descriptionIndices[a])]
                let size = Int(samples.sizes[a])
                guard let header = ADTSHeader.bytes(
                    audioObjectType: parameters.audioObjectType, samplingFrequencyIndex: parameters.samplingFrequencyIndex,
                    channelConfiguration: parameters.channelConfiguration, payloadLength: size) else {
                    throw .unsupported(file: name, boxPath: track.track.boxPath, offset: samples.offsets[a],
                                       reason: "audio sample \(a + 1) of \(size) bytes is longer than an ADTS frame can hold")
                }
                // An empty sample is no AAC frame (a reader refuses an ADTS header alone): left out,
                // a gap of its length.
                if size > 0 {
                    try sampleBytes.withSample(at: samples.offsets[a], size: size) { (bytes) throws(MP4Error) in
                        header.withUnsafeBytes { header in
                            pieces.removeAll(keepingCapacity: true)
                            pieces.append(header)
                            pieces.append(bytes)
                            muxer.writeAudio(pieces, pts: UInt64(pts), into: &out)
                        }
                    }
                }
                k += 1
                nextAudio = try audioTime(k, of: audio, base: base, file: name)
            } else {
                break
            }
        }
    }

    /// Video sample `index`'s PTS and DTS on the 90 kHz clock, the DTS `decodeLead` ticks
    /// earlier; `nil` past the last sample.
    private func videoTimes(_ index: Int, base: Int64, decodeLead: Int64, file: String) throws(MP4Error) -> (pts: Int64, dts: Int64)? {
        guard let clock = videoClock, let samples = packaging.video?.samples, index < samples.count else { return nil }
        let (decodeBase, overflow) = base.subtractingReportingOverflow(decodeLead)
        guard !overflow else { throw .timeOverflow(file: file, reason: "a decode time \(decodeLead) ticks of 90 kHz before \(base)") }
        return (try Self.timestamp(clock.ticks(samples.compositionTime(index), file: file), base: base, file: file),
                try Self.timestamp(clock.ticks(samples.decodeTimes[index] - clock.decodeShift, file: file), base: decodeBase, file: file))
    }

    /// The PTS of the segment's audio frame `k` on the 90 kHz clock, `nil` past its last.
    private func audioTime(_ k: Int, of audio: SegmentAudio, base: Int64, file: String) throws(MP4Error) -> Int64? {
        guard k < audio.count else { return nil }
        switch audio {
        case .source(let frames):
            guard let clock = audioClock, let samples = packaging.audio?.samples, frames.lowerBound + k < samples.count else { return nil }
            return try Self.timestamp(clock.ticks(samples.decodeTimes[frames.lowerBound + k], file: file), base: base, file: file)
        case .silence(let first, _):
            return try Self.timestamp(Int64(k) * Self.silentFrameTicks, base: first, file: file)
        }
    }

    /// `ticks + base`, which a PES header can carry: 33 bits, not negative.
    private static func timestamp(_ ticks: Int64, base: Int64, file: String) throws(MP4Error) -> Int64 {
        let (sum, overflow) = ticks.addingReportingOverflow(base)
        guard !overflow, sum >= 0, sum < 1 << 33 else {
            throw .timeOverflow(file: file, reason: "a sample at \(ticks) + \(base) ticks of 90 kHz, outside a PES header's 33-bit timestamps")
        }
        return sum
    }
}
