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

    /// The source: the MP4 file, or the HLS playlist whose segments were read.
    package let path: FilePath
    package let container: Container
    /// Where the samples are, as read: the segments hold only for these versions of the files.
    let store: MP4SampleStore
    let video: SourceTrackTimeline?
    let audio: SourceTrackTimeline?
    package let segments: [Segment]
    /// Whether its segments carry silent audio (`SilentAudioFragments`: AAC-LC, 48 kHz, stereo)
    /// beside its video, as a source without audio does in a stream whose other pieces have
    /// audio: every piece then carries the same tracks, and a player that feeds one audio buffer
    /// across pieces (hls.js: "the video SourceBuffer does not exist" after an init segment
    /// without audio) plays on, with no discontinuity for a change of tracks (RFC 8216 4.3.2.3).
    /// Muxed segments only (`segmentWriter()`); a source with audio has no use for it.
    package var fillsAudioWithSilence = false

    /// How long the packaged playlist plays: the longest track's presentation.
    package var duration: MediaTime { segments.last?.range.end ?? .zero }

    /// Each track's kind and coding format, video first ("video H.264", "audio mp4a"): where
    /// these change from one piece to the next, a playlist needs an `EXT-X-DISCONTINUITY` even
    /// when the timestamps run on (RFC 8216 4.3.2.3: the number and type of tracks).
    package var trackTypes: [String] {
        let types = [video, audio].compactMap { $0 }.map { timeline in
            let description = timeline.track.sampleDescriptions[0]
            let format = description.codec.videoCodingFormat.map { "\($0)" } ?? description.format.description
            return "\(timeline.track.kind.map { "\($0)" } ?? "media") \(format)"
        }
        return types + (writesSilence ? ["audio mp4a"] : [])
    }

    /// Whether the muxed segments written carry silence (`fillsAudioWithSilence`, where it applies).
    package var writesSilence: Bool { fillsAudioWithSilence && audio == nil && video != nil }

    /// The timescale the muxed fragmented MP4 segments give each kind of track where it is not
    /// the track's own (a multiple of it): one that every piece of a stream shares
    /// (`sharingFragmentTimescales(_:)`).
    package private(set) var fragmentTimescales: [TrackKind: Int32] = [:]

    /// `packagings`, each kind of track of their muxed fragmented MP4 segments given one
    /// timescale, the least common multiple of theirs (the silence's 48 kHz counted where one
    /// `writesSilence`), when it fits 31 bits; a kind whose tracks already share one, or whose
    /// multiple does not fit, keeps its own. Times scale exactly, by a whole factor.
    ///
    /// Why: hls.js, where a new init segment's track has another timescale than the one it took
    /// its time from, takes the new piece's first decode time for the piece's playlist start,
    /// although the timestamps run on (no discontinuity): a piece with B-frames then shows its
    /// pictures late by their reorder delay, and the gap before them makes it seek past its first
    /// keyframe (demo.json's content at 24 fps, 12,288 ticks a second, after ad1's 30 fps, 15,360).
    package static func sharingFragmentTimescales(_ packagings: [MP4Packaging]) -> [MP4Packaging] {
        var shared: [TrackKind: Int32] = [:]
        for kind in TrackKind.allCases {
            var scales = packagings.compactMap { (kind == .video ? $0.video : $0.audio)?.timescale }
            if kind == .audio, packagings.contains(where: \.writesSilence) { scales.append(SilentAudioFragments.sampleRate) }
            guard Set(scales).count > 1, let common = leastCommonMultiple(scales, limit: Int64(Int32.max)) else { continue }
            shared[kind] = common
        }
        return packagings.map { packaging in
            var packaging = packaging
            packaging.fragmentTimescales = shared
            return packaging
        }
    }

    /// The silent frames segment `index` carries where the packaging `writesSilence`: of a grid
    /// of frames from `origin` (source presentation time), those that start in the segment,
    /// within `piece` when one is given; `nil` when none does.
    ///
    /// - Throws: `MediaTimeError` when a time in samples does not fit 64 bits.
    func silentFrames(ofSegment index: Int, within piece: MediaTimeRange?, origin: MediaTime) throws(MediaTimeError) -> (first: Int64, count: Int)? {
        let segment = segments[index].range
        let start = try MediaTime.max(segment.start, piece?.start ?? segment.start).subtracting(origin)
        let end = try MediaTime.min(segment.end, piece?.end ?? segment.end).subtracting(origin)
        guard start < end else { return nil }
        let (first, count) = try SilentAudioFragments.frames(startingIn: MediaTimeRange(start: start, end: end))
        return count > 0 ? (first, count) : nil
    }

    /// Reads the source's `moov` and decides the segments; no sample is read yet.
    package init(path: FilePath, container: Container, targetDuration: MediaTime, cuts: [MediaTime] = []) throws(MP4Error) {
        try self.init(movie: try MP4Reader.read(path: path), container: container, targetDuration: targetDuration, cuts: cuts)
    }

    /// Decides the segments of a source already read: an MP4 file, or an HLS source's segments
    /// (`MP4Reader.read(_:audioRendition:budget:)`), packaged again.
    package init(movie: MP4Movie, container: Container, targetDuration: MediaTime, cuts: [MediaTime] = []) throws(MP4Error) {
        let file = movie.path.description
        let video = try movie.videoTrack.map { (track) throws(MP4Error) in try SourceTrackTimeline(track: track, file: file) }
        let audio = try movie.audioTrack.map { (track) throws(MP4Error) in try SourceTrackTimeline(track: track, file: file) }
        guard video != nil || audio != nil else {
            throw .unsupported(file: file, boxPath: "moov", offset: 0, reason: "no video or audio track with samples to package")
        }
        for timeline in [video, audio].compactMap({ $0 }) {
            try Self.checkPackageable(timeline.track, in: container, file: file)
            try Self.checkPresentsSamples(timeline, file: file)
            if container == .fragmentedMP4 { try Self.checkPresentsAfterFirstDecode(timeline.track, file: file) }
        }
        self.path = movie.path
        self.container = container
        self.store = movie.store
        self.video = video
        self.audio = audio
        var keyframes = KeyframeReader(sources: [movie.store])
        self.segments = try Self.segments(video: video, audio: audio, targetDuration: targetDuration, cuts: cuts, file: file,
                                          keyframes: &keyframes)
        try keyframes.close()
        if container == .mpegTS, let video, let audio { try Self.checkSoundReachesPicture(video: video, audio: audio, segments: segments, file: file) }
    }

    /// A reader of TS segments starts the playlist's time at the first segment's earliest picture,
    /// and an ADTS frame lasts 1,024 samples whatever the source's `stts` said: audio that ends
    /// before that picture would all play before the playlist starts, so such a source is refused.
    private static func checkSoundReachesPicture(video: SourceTrackTimeline, audio: SourceTrackTimeline, segments: [Segment],
                                                 file: String) throws(MP4Error) {
        guard case .aac(let config)? = audio.track.sampleDescriptions.first?.codec, config.sampleRate > 0,
              let first = segments.first, let lastFrame = segments.last.map({ $0.audio.upperBound - 1 }), lastFrame >= 0 else { return }
        func time(_ body: () throws(MediaTimeError) -> MediaTime) throws(MP4Error) -> MediaTime {
            do { return try body() } catch {
                throw .timeOverflow(file: file, reason: "\(audio.track.boxPath) against \(video.track.boxPath): \(error)")
            }
        }
        var picture: MediaTime?
        for index in first.video {
            let start = try time { () throws(MediaTimeError) in try video.presentationTime(ofMedia: video.compositionTime(index)) }
            picture = picture.map { MediaTime.min($0, start) } ?? start
        }
        let frameStart = MediaTime(value: audio.samples.decodeTimes[lastFrame], timescale: audio.timescale)
        let soundEnd = try time { () throws(MediaTimeError) in
            try audio.presentationTime(ofMedia: frameStart)
                .adding(MediaTime(value: Int64(ADTSHeader.samplesPerFrame), timescale: Int32(clamping: config.sampleRate)))
        }
        guard let picture, soundEnd <= picture else { return }
        throw .unsupported(file: file, boxPath: audio.track.boxPath, offset: audio.track.boxOffset,
                           reason: "its audio, as ADTS frames of 1,024 samples, ends at \(soundEnd.formatted(.milliseconds)), before the "
                               + "video's first picture at \(picture.formatted(.milliseconds)), where MPEG-TS segments start: none of it "
                               + "would play; package as fragmented MP4")
    }

    /// A writer of the segments in `container`, reading the source (checked to be the version
    /// the segments were planned from).
    package func segmentWriter() throws(MP4Error) -> any MP4SegmentWriter {
        switch container {
        case .mpegTS: return try TransportStreamSegmentWriter(self)
        case .fragmentedMP4: return try FragmentedMP4SegmentWriter(self)
        }
    }

    /// The kinds of track packaged: video, then audio, each when the source has it.
    package var trackKinds: [TrackKind] { (video == nil ? [] : [.video]) + (audio == nil ? [] : [.audio]) }

    /// The sample description of the track of `kind` (its first), when there is one.
    package func sampleDescription(of kind: TrackKind) -> MP4SampleDescription? {
        (kind == .video ? video : audio)?.track.sampleDescriptions.first
    }

    /// A writer of fragmented MP4 segments of one kind of track alone (a DASH representation's):
    /// its init segment holds that track, as track 1; times are as `segmentWriter()` writes them.
    ///
    /// - Returns: `nil` when the source has no track of `kind`.
    package func fragmentedSegmentWriter(only kind: TrackKind) throws(MP4Error) -> FragmentedMP4SegmentWriter? {
        guard (kind == .video ? video : audio) != nil else { return nil }
        return try FragmentedMP4SegmentWriter(self, only: kind)
    }

    /// The audio frames of segment `index` that `placement`'s piece holds (see `SegmentPlacement`):
    /// its own, less those whose middle is outside the piece, and, for the piece's first segment,
    /// the frame before it that straddles the piece's start, when its middle is inside.
    func audioFrames(ofSegment index: Int, heldBy placement: SegmentPlacement) throws(MP4Error) -> Range<Int> {
        let range = segments[index].audio
        guard let audio else { return range }
        let samples = audio.samples
        func start(_ frame: Int) throws(MediaTimeError) -> MediaTime {
            try audio.presentationTime(ofMedia: MediaTime(value: samples.decodeTimes[frame], timescale: audio.timescale))
        }
        func held(_ frame: Int) throws(MediaTimeError) -> Bool {
            try placement.holdsAudioFrame(start: start(frame), duration: MediaTime(value: Int64(samples.durations[frame]), timescale: audio.timescale))
        }
        do {
            var first = range.lowerBound, end = range.upperBound
            // A frame before the piece is in none of its segments: the first takes it.
            while first > 0, try start(first - 1) < placement.piece.start, try held(first - 1) { first -= 1 }
            while first < end, try !held(first) { first += 1 }
            while end > first, try !held(end - 1) { end -= 1 }
            return first..<end
        } catch {
            throw .timeOverflow(file: path.description, reason: "the audio of segment \(index + 1): \(error)")
        }
    }

    /// How long before its presentation segment `index`'s first video sample (in decode order)
    /// decodes as this packaging writes it: its reorder delay, 2 frames in a typical H.264 stream
    /// with B-frames. MPEG-TS, where no decode time may pass its presentation time, adds the most
    /// negative composition offset's size where the source has any (see
    /// `TransportStreamSegmentWriter`); fragmented MP4 carries the offsets as they are, so a
    /// negative one presents the sample at its decode time or before. Zero without video.
    package func decodeDelay(ofSegment index: Int) -> MediaTime {
        guard let video, segments.indices.contains(index), let first = segments[index].video.first else { return .zero }
        let samples = video.samples
        let offset = samples.compositionOffset(first)
        let delay = container == .mpegTS ? offset - min(samples.smallestCompositionOffset, 0) : max(offset, 0)
        return MediaTime(value: delay, timescale: video.timescale)
    }

    /// Each track's sample descriptions, video first: its encoding parameters.
    package var sampleDescriptions: [[MP4SampleDescription]] {
        [video, audio].compactMap { $0?.track.sampleDescriptions }
    }

    /// A reader of the source's samples, checked to be the version the segments were planned from.
    func sampleReader() throws(MP4Error) -> PackagingSampleReader {
        if case .file(let path, let version) = store {
            return .file(SampleBlockReader(file: try mp4Errors { () throws(FileError) in try ReadableFile(path: path, expecting: version) }))
        }
        return .store(try SourceFiles.reader(store))
    }

    /// A track whose edit starts where its samples have ended presents none of them: its frames
    /// would all go before the first segment, where a player drops them (and a reader of the
    /// segments refuses a stream whose audio ends before it starts).
    private static func checkPresentsSamples(_ timeline: SourceTrackTimeline, file: String) throws(MP4Error) {
        let samples = timeline.samples
        let mediaEnd = samples.decodeEnd + max(0, Int64(samples.compositionOffsets.max() ?? 0))
        guard timeline.mediaStart >= mediaEnd else { return }
        let track = timeline.track
        throw .unsupported(file: file, boxPath: track.boxPath + "/edts/elst", offset: track.editListOffset ?? track.boxOffset,
                           reason: "its edit starts at media time \(timeline.mediaStart) (1/\(timeline.timescale) s), where the track's "
                               + "\(samples.count) samples have ended (\(mediaEnd)): it presents none of them, so there is nothing "
                               + "of it to package; remove the edit list, or the track")
    }

    /// Fragments carry a track's composition offsets as they are, and reading fragmented MP4 here
    /// wants no sample presented before the track's first decode time (`MovieFragments`): a
    /// source that has one is refused before anything is written, naming its `ctts`.
    private static func checkPresentsAfterFirstDecode(_ track: MP4Track, file: String) throws(MP4Error) {
        let samples = track.samples
        guard samples.smallestCompositionOffset < 0, let first = samples.decodeTimes.first else { return }
        guard let early = samples.firstSample(where: { samples.compositionTime($0) < first }) else { return }
        throw .unsupported(file: file, boxPath: track.boxPath + "/mdia/minf/stbl/ctts", offset: track.boxOffset,
                           reason: "sample \(early + 1) is presented at \(samples.compositionTime(early)) (1/\(track.timescale) s), before "
                               + "the track's first decode time (\(first)); fragmented MP4 segments of it would not read back here")
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
            for (index, description) in track.sampleDescriptions.enumerated() {
                switch description.codec {
                case .avc where track.kind == .video, .hevc where track.kind == .video:
                    guard let format = description.codec.videoCodingFormat, format == track.sampleDescriptions[0].codec.videoCodingFormat else {
                        throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                           reason: "H.264 and HEVC sample descriptions in one track; an MPEG-TS stream carries one video format")
                    }
                    do throws(WireFailure) { try AnnexBFraming.checkInBand(description.codec.parameterSetUnits, format: format) } catch {
                        throw .malformed(file: file, boxPath: path, offset: track.boxOffset,
                                         reason: "the \(format == .h264 ? "avcC" : "hvcC") of sample description \(index + 1): \(error.reason)")
                    }
                case .aac(let config) where track.kind == .audio:
                    guard (1...7).contains(config.channelConfiguration), (1...4).contains(config.coreObjectType),
                          ADTSParameters.frequencyIndex(of: config.sampleRate) != nil else {
                        throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                           reason: "AAC (object type \(config.objectType), \(config.sampleRate) Hz, channel configuration \(config.channelConfiguration)) that ADTS cannot describe; package as fragmented MP4")
                    }
                default:
                    throw .unsupported(file: file, boxPath: path, offset: track.boxOffset,
                                       reason: "\(description.codecIdentity) \(track.kind.map { "\($0)" } ?? "media"); MPEG-TS segments are packaged from H.264 or HEVC video and AAC audio (package as fragmented MP4)")
                }
            }
            // A picture's presentation goes after its decode by the offset less the most negative
            // one (`TransportStreamSegmentWriter`): a reader wants that within 2^31 ticks.
            let samples = track.samples
            let span = Int64(samples.compositionOffsets.max() ?? 0) - min(samples.smallestCompositionOffset, 0)
            if span.multipliedFullWidth(by: 90_000) >= Int64(track.timescale).multipliedFullWidth(by: 1 << 31) {
                throw .unsupported(file: file, boxPath: track.boxPath + "/mdia/minf/stbl/ctts", offset: track.boxOffset,
                                   reason: "composition offsets that span \(span) ticks of 1/\(track.timescale) s, more than MPEG-TS timestamps "
                                       + "can put between a picture's decode and its presentation (2^31 ticks of 90 kHz, about 6.6 hours); "
                                       + "package as fragmented MP4")
            }
            // A 90 kHz tick is the finest step of MPEG-TS timestamps: samples closer than that
            // would share one, and a reader takes them for one another's repeats.
            let durations = samples.durations
            if let close = (0..<max(0, samples.count - 1)).first(where: { Int64(durations[$0]) * 90_000 < Int64(track.timescale) }) {
                throw .unsupported(file: file, boxPath: track.boxPath + "/mdia/minf/stbl/stts", offset: track.boxOffset,
                                   reason: "samples \(close + 1) and \(close + 2) decode \(durations[close]) ticks of 1/\(track.timescale) s apart, "
                                       + "less than a 90 kHz tick, which MPEG-TS timestamps need between them; package as fragmented MP4")
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
        // each audio frame without video), by its presentation time, increasing and inside (0, end),
        // after the first: the first segment holds that one, even when it presents after 0 (video
        // that starts after the audio), so that no segment is without a picture to start from.
        var candidates: [(time: MediaTime, sample: Int)] = []
        guard let splitting = video ?? audio else { return [] }
        var firstDecodable: Int?
        for index in 0..<splitting.samples.count where splitting.samples.isSync(index) {
            let start = try time { () throws(MediaTimeError) in try splitting.presentationTime(ofMedia: splitting.compositionTime(index)) }
            guard firstDecodable == nil || (start > (candidates.last?.time ?? .zero) && start < end),
                  try keyframes.decodeStart(index, of: splitting, source: 0) != .none else { continue }
            if firstDecodable == nil { firstDecodable = index } else { candidates.append((start, index)) }
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
    /// The init segment (`EXT-X-MAP`), for a container that has one.
    func initSegment() -> [UInt8]?
    /// Segment `index`'s bytes on the source's clock (see the writers), in place of what `bytes`
    /// held. One buffer kept for every segment keeps its storage: a new one per segment would
    /// cost fresh pages for every byte written.
    mutating func segment(_ index: Int, into bytes: inout OutputBytes) throws(MP4Error)
    /// Segment `index`'s bytes on the composition's clock, where `placement` puts it, continuing
    /// `stream` (the segments written before it, from any packaging).
    mutating func segment(_ index: Int, placedAt placement: SegmentPlacement, continuing stream: inout PackagedStream,
                          into bytes: inout OutputBytes) throws(MP4Error)
    /// Throws when the source changed while it was being read.
    func checkUnchanged() throws(MP4Error)
}

/// Where a segment plays in a stream timestamped on the composition's clock, which a player
/// follows from piece to piece as one stream: no timestamp jumps back or forward at a switch.
///
/// A timestamp is composition time plus `clockStart` (`compositionClockStart` unless a stream
/// goes on another's clock, as live ads go on the content's), so that frames decoding before
/// their presentation (B-frames) never need a negative one.
package struct SegmentPlacement: Sendable, Equatable {
    /// The timestamp of composition time 0.
    package static let compositionClockStart = MediaTime(seconds: 10)

    /// The piece the segment belongs to, in the source's presentation time. An audio frame goes
    /// with the piece that holds its middle, so each piece's sound starts and ends within half a
    /// frame of its picture (a source's audio often starts a frame before its video).
    package var piece: MediaTimeRange
    /// Where the piece starts in the composition.
    package var compositionStart: MediaTime
    /// The timestamp of composition time 0.
    package var clockStart: MediaTime
    /// How much earlier than its source has them the piece's video decode times are written
    /// (in fragmented MP4, its composition offsets as much longer): so that each piece of a
    /// stream that runs on without a discontinuity decodes its first picture as long before
    /// showing it as the others, and decode times run on from piece to piece as presentation
    /// times do (`MP4Packaging.decodeDelay(ofSegment:)`).
    package var addedDecodeDelay: MediaTime

    package init(piece: MediaTimeRange, compositionStart: MediaTime, clockStart: MediaTime = compositionClockStart,
                 addedDecodeDelay: MediaTime = .zero) {
        self.piece = piece
        self.compositionStart = compositionStart
        self.clockStart = clockStart
        self.addedDecodeDelay = addedDecodeDelay
    }

    /// Composition time - source time + the clock's start: what turns a source time of the
    /// piece into its timestamp.
    func offset() throws(MediaTimeError) -> MediaTime {
        try compositionStart.subtracting(piece.start).adding(clockStart)
    }

    /// Whether an audio frame `[start, start + duration)` in source time is the piece's.
    func holdsAudioFrame(start: MediaTime, duration: MediaTime) throws(MediaTimeError) -> Bool {
        let twiceMiddle = try start.multiplied(by: 2).adding(duration)
        let twiceStart = try piece.start.multiplied(by: 2), twiceEnd = try piece.end.multiplied(by: 2)
        return twiceMiddle >= twiceStart && twiceMiddle < twiceEnd
    }
}

/// What runs on from segment to segment of one stream written from several packagings.
package struct PackagedStream: Sendable, Equatable {
    /// The MPEG-TS continuity counters of the packets written so far.
    var continuityCounters = ContinuityCounters()
    /// The fragmented MP4 `mfhd` sequence number of the next segment.
    var nextSequenceNumber: UInt32 = 1

    package init() {}

    /// A stream whose next fragmented MP4 segment is numbered `nextSequenceNumber` (from 1).
    package init(nextSequenceNumber: UInt32) { self.nextSequenceNumber = nextSequenceNumber }
}

/// A packaging's sample bytes: an MP4 file's, read in blocks; an HLS source's, sample by sample.
enum PackagingSampleReader {
    case file(SampleBlockReader)
    case store(any SampleStoreReader)

    /// Calls `body` with the `size` bytes at `offset` (as the sample table counts).
    mutating func withSample<T>(at offset: UInt64, size: Int, _ body: (UnsafeRawBufferPointer) throws(MP4Error) -> T) throws(MP4Error) -> T {
        switch self {
        case .file(var reader):
            defer { self = .file(reader) }
            return try reader.withSample(at: offset, size: size, body)
        case .store(var reader):
            defer { self = .store(reader) }
            let bytes = try reader.read(offset: offset, count: size)
            return try bytes.withUnsafeBytes { raw in Result { () throws(MP4Error) in try body(raw) } }.get()
        }
    }

    /// Appends the `count` bytes at `offset` to `out`; an MP4 file's are read straight into it.
    mutating func append(at offset: UInt64, count: Int, to out: inout OutputBytes) throws(MP4Error) {
        switch self {
        case .file(let reader):
            try reader.append(at: offset, count: count, to: &out)
        case .store(var reader):
            defer { self = .store(reader) }
            out.append(contentsOf: try reader.read(offset: offset, count: count))
        }
    }

    func checkUnchanged() throws(MP4Error) {
        switch self {
        case .file(let reader): try mp4Errors { () throws(FileError) in try reader.file.checkUnchanged() }
        case .store(let reader): try reader.checkUnchanged()
        }
    }
}
