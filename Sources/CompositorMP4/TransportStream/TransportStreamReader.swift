import CompositorCore
import CompositorIO
import CompositorTS

/// Reads a transport stream source (an HLS playlist's segments) into the MP4 model: one H.264 or
/// HEVC video and one AAC audio track with sample tables, sample entries and edit lists, as if the
/// segments had been remuxed into an MP4 with `ffmpeg -c copy`, but without writing anything.
///
/// Timing:
/// - The source's time 0 is the first segment's earliest video presentation time (its earliest
///   audio one without video): the instant the playlist's first `EXTINF` starts.
/// - Video keeps the 90 kHz clock: decode times are DTS, composition offsets PTS - DTS, the last
///   frame lasts as long as the one before. Audio counts samples at its own rate, 1,024 a frame,
///   each frame at its PTS to the nearest sample; PTS jitter under half a frame is taken as
///   gapless. Audio before time 0 (encoder priming: ffmpeg puts one frame ahead of the video) is
///   hidden by the audio's edit, audio that starts later by an empty edit.
/// - Timestamps unwrap across the 33-bit wrap. After `EXT-X-DISCONTINUITY` they start afresh: that
///   segment's earliest presentation is placed at the sum of the `EXTINF`s before it.
/// - A sample is an access unit (one per video PES packet) or an ADTS frame; sync samples are
///   access units with an H.264 IDR or an HEVC IRAP picture (a CRA's leading pictures are the
///   stitcher's to handle, as in any MP4). Each distinct set of parameter sets (SPS/PPS, and VPS
///   for HEVC), or of AAC settings, is a sample description (`avc1`, `hvc1`, `mp4a`).
package enum TransportStreamReader {
    /// Stream types this reader does not read (ISO/IEC 13818-1, table 2-34, and its
    /// registrations), and what is said of them.
    static let unsupportedVideo: [UInt8: String] = [
        0x01: "MPEG-1 video", 0x02: "MPEG-2 video", 0x10: "MPEG-4 Part 2 video", 0x33: "VVC video",
    ]
    static let unsupportedAudio: [UInt8: String] = [
        0x03: "MPEG-1 audio (MP3)", 0x04: "MPEG-2 audio (MP3)", 0x11: "AAC in LATM", 0x81: "AC-3 audio", 0x87: "E-AC-3 audio",
    ]
    static let clock = PESHeader.clockRate
    /// The most 90 kHz ticks the segments' `EXTINF`s may add up to: 2^61, about 800,000 years.
    /// A discontinuity's segments are placed at the playlist time they start at, added to the
    /// stream's own timestamps (unwrapped, so past 2^33), and those sums and their differences
    /// must stay inside 64 bits; a playlist that lies about its durations is refused instead.
    static let maximumPlaylistTicks: Int64 = 1 << 61
    /// Segments read side by side before the index takes them.
    static let scanBatch = 8

    /// The movie, and the timestamp its time 0 is (to line up a variant and its renditions).
    static func read(_ source: HLSSegmentSource, budget: inout MP4SampleBudget) throws(MP4Error) -> (MP4Movie, TimestampOrigin) {
        var index = Index(source: source)
        // Segments are read side by side a few at a time (more would hold more facts at once),
        // then taken in order.
        var start = 0
        while start < source.segments.count {
            let end = min(start + scanBatch, source.segments.count)
            for (segment, scan) in zip(start..<end, TransportStreamSegmentScan.scans(of: source, start..<end)) {
                try index.add(scan.get(), segment: segment)
            }
            start = end
        }
        let movie = try index.movie(budget: &budget)
        // `movie` has checked that there are samples, so there is a time 0.
        return (movie, .transportStream(index.zero ?? 0))
    }
}

extension TransportStreamReader {
    /// The samples found so far, as the segments are read in order.
    struct Index {
        struct VideoSample {
            var dts: Int64, pts: Int64
            let size: UInt32, isSync: Bool, description: UInt16
            let segment: UInt32, packetOffset: UInt64
        }
        struct AudioFrame {
            /// The PTS of its PES packet, and its place among the PES packet's frames.
            var pts: Int64
            let frameInPacket: Int
            /// The frame is in the first segment after a discontinuity: it may overlap the audio
            /// before (the next encoding's priming), and is then left out.
            let mayOverlap: Bool
            let size: UInt32, dataOffset: UInt32, description: UInt16
            let segment: UInt32, packetOffset: UInt64
        }

        let source: HLSSegmentSource
        var files: [TransportStreamSamples.SegmentFile] = []
        var video: [VideoSample] = []
        var videoUnits = VideoSampleUnits()
        var audio: [AudioFrame] = []
        var videoDescriptions = Descriptions()
        var audioDescriptions = Descriptions()
        var audioSampleRate: Int?
        /// The video's coding format, once a segment's PMT has named it (one for the whole source).
        var videoFormat: VideoCodingFormat?
        /// Parameter sets in effect, by NAL unit type and id, and the description they make (made
        /// again only when a parameter set changes, not for every keyframe that repeats them).
        var parameterSets: [UInt8: [UInt32: [UInt8]]] = [:]
        var videoDescription: UInt16?
        /// The AAC settings last seen (AudioSpecificConfig bytes) and their description.
        var audioDescription: (config: [UInt8], index: UInt16)?
        var videoClock = TimestampUnwrapper(), audioClock = TimestampUnwrapper()
        /// Added to the segments' unwrapped presentation timestamps: 0 until a discontinuity.
        var shift: Int64 = 0
        /// Added to their video decode timestamps: the same, unless the new encoding decodes
        /// further ahead of its presentation than the one before (it has B-frames, the one before
        /// had none); then its decoding starts where the video before ends, and its composition
        /// offsets shrink (negative ones are allowed: the stitcher shifts them).
        var decodeShift: Int64 = 0
        /// Time 0 of the source, on the first segment's clock.
        var zero: Int64?
        /// The playlist time a segment starts at, in 90 kHz ticks.
        var playlistTime: Int64 = 0
        /// Whether each segment read so far holds video samples, and audio frames.
        var segmentHolds: [(video: Bool, audio: Bool)] = []

        init(source: HLSSegmentSource) { self.source = source }

        /// Puts segment `index`'s packets after the segments before it.
        mutating func add(_ scan: TransportStreamSegmentScan, segment index: Int) throws(MP4Error) {
            let segment = source.segments[index]
            let path = segment.path
            if segment.discontinuity { videoClock = TimestampUnwrapper(); audioClock = TimestampUnwrapper() }
            let videoStart = video.count, audioStart = audio.count
            if let program = scan.program, let format = program.format {
                if let videoFormat, videoFormat != format {
                    throw .unsupportedStream(file: path.description, offset: program.offset,
                                             reason: "segment \(index + 1)'s video is \(format), the segments' before it \(videoFormat); one track has one format")
                }
                videoFormat = format
            }
            for packet in scan.packets {
                switch packet {
                case .video(let packet): try addVideo(packet, segment: index, file: path)
                case .audio(let packet): try addAudio(packet, segment: index, file: path)
                }
            }
            if let failure = scan.failure { throw failure }
            guard let program = scan.program else {
                throw .malformedStream(file: path.description, offset: scan.range.lowerBound,
                                       reason: "no program map table (PAT and PMT): not a transport stream segment HLS can play")
            }
            files.append(.init(path: path, version: scan.version, byteRange: segment.byteRange,
                               videoPID: program.video, audioPID: program.audio))
            segmentHolds.append((video.count > videoStart, audio.count > audioStart))

            // Where this segment's timestamps land.
            let earliest = video[videoStart...].map(\.pts).min() ?? audio[audioStart...].map(\.pts).min()
            if zero == nil {
                zero = earliest
            } else if segment.discontinuity, let earliest, let zero {
                shift = zero + playlistTime - earliest
                decodeShift = shift
                if videoStart > 0, videoStart < video.count {
                    let last = video[videoStart - 1].dts
                    let lastDuration = videoStart > 1 ? last - video[videoStart - 2].dts : 0
                    decodeShift = max(shift, last + lastDuration - video[videoStart].dts)
                }
            }
            for sample in videoStart..<video.count {
                video[sample].pts += shift
                video[sample].dts += decodeShift
            }
            for frame in audioStart..<audio.count { audio[frame].pts += shift }
            guard let ticks = try? MediaTime.divide(segment.duration.value, times: TransportStreamReader.clock,
                                                   by: Int64(segment.duration.timescale), rounding: .toNearestOrAwayFromZero),
                  case (let sum, false) = playlistTime.addingReportingOverflow(ticks), sum <= TransportStreamReader.maximumPlaylistTicks else {
                throw .timeOverflow(file: source.playlist.description, reason: "the segments' durations add up past 2^61 ticks of 90 kHz "
                                    + "(about 800,000 years), more than the streams' timestamps can be placed after")
            }
            playlistTime = sum
        }

        mutating func addVideo(_ packet: TransportStreamSegmentScan.Video, segment: Int, file: FilePath) throws(MP4Error) {
            guard let format = videoFormat else { return }
            // Encoders repeat the parameter sets at every keyframe: the description is made again
            // only when one of them changes.
            var changed = false
            for set in packet.parameterSets where parameterSets[set.type]?[set.id] != set.bytes {
                parameterSets[set.type, default: [:]][set.id] = set.bytes
                changed = true
            }
            guard format.parameterSetTypes.allSatisfy({ parameterSets[$0]?.isEmpty == false }) else {
                throw .malformedStream(file: file.description, offset: packet.offset,
                                       reason: "a picture before any " + (format == .h264 ? "sequence and picture parameter sets (SPS, PPS)"
                                                                          : "video, sequence and picture parameter sets (VPS, SPS, PPS)"))
            }
            let description: UInt16
            if let current = videoDescription, !changed {
                description = current
            } else {
                description = try videoDescriptions.index(of: sampleEntry(format, file: file, offset: packet.offset), file: file, offset: packet.offset)
                videoDescription = description
            }
            video.append(VideoSample(dts: videoClock.unwrap(packet.dts), pts: 0, size: UInt32(packet.sampleSize), isSync: packet.isRandomAccess,
                                     description: description, segment: UInt32(segment), packetOffset: packet.offset))
            videoUnits.append(packet.units)
            // PTS is unwrapped next to its DTS, which it follows by less than the wrap's half.
            let last = video.count - 1
            video[last].pts = video[last].dts + (Int64(packet.pts) - Int64(packet.dts) + TimestampUnwrapper.range * 3 / 2) % TimestampUnwrapper.range
                - TimestampUnwrapper.range / 2
        }

        /// The `avc1` or `hvc1` sample entry for the parameter sets in effect (each type's sorted by id).
        func sampleEntry(_ format: VideoCodingFormat, file: FilePath, offset: UInt64) throws(MP4Error) -> [UInt8] {
            let sets = format.parameterSetTypes.map { type in
                (type: type, sets: (parameterSets[type] ?? [:]).sorted { $0.key < $1.key }.map(\.value))
            }
            switch format {
            case .h264:
                let parsed = try streamErrors(file) { () throws(WireFailure) in try H264SequenceParameterSet(unit: sets[0].sets[0], at: offset) }
                return SampleEntryWriter.avc1(width: parsed.width, height: parsed.height, profile: parsed.profile,
                                              compatibility: parsed.constraints, level: parsed.level, chromaFormat: parsed.chromaFormat,
                                              bitDepthLuma: parsed.bitDepthLuma, bitDepthChroma: parsed.bitDepthChroma,
                                              sequenceParameterSets: sets[0].sets, pictureParameterSets: sets[1].sets)
            case .hevc:
                let parsed = try streamErrors(file) { () throws(WireFailure) in try HEVCSequenceParameterSet(unit: sets[1].sets[0], at: offset) }
                return SampleEntryWriter.hvc1(width: parsed.width, height: parsed.height, profileTierLevel: parsed.profileTierLevel,
                                              maxSubLayers: parsed.maxSubLayers, temporalIDNesting: parsed.temporalIDNesting,
                                              chromaFormat: parsed.chromaFormat, bitDepthLuma: parsed.bitDepthLuma,
                                              bitDepthChroma: parsed.bitDepthChroma, parameterSets: sets)
            }
        }

        mutating func addAudio(_ packet: TransportStreamSegmentScan.Audio, segment: Int, file: FilePath) throws(MP4Error) {
            let frames = packet.frames
            let unwrapped = audioClock.unwrap(packet.pts)
            let mayOverlap = source.segments[segment].discontinuity
            for (position, frame) in frames.enumerated() {
                let rate = frame.header.sampleRate
                if let audioSampleRate, audioSampleRate != rate {
                    throw .unsupportedStream(file: file.description, offset: packet.offset,
                                             reason: "the audio's sample rate changes from \(audioSampleRate) to \(rate) Hz; one track has one rate")
                }
                audioSampleRate = rate
                let config = frame.header.audioSpecificConfig
                let description: UInt16
                if let current = audioDescription, current.config == config {
                    description = current.index
                } else {
                    let channels = Int(frame.header.channelConfiguration == 7 ? 8 : frame.header.channelConfiguration)
                    let entry = SampleEntryWriter.mp4a(sampleRate: rate, channelCount: channels, audioSpecificConfig: config)
                    description = try audioDescriptions.index(of: entry, file: file, offset: packet.offset)
                    audioDescription = (config, description)
                }
                audio.append(AudioFrame(pts: unwrapped, frameInPacket: position, mayOverlap: mayOverlap, size: UInt32(frame.data.count),
                                        dataOffset: UInt32(frame.data.lowerBound), description: description,
                                        segment: UInt32(segment), packetOffset: packet.offset))
            }
        }
    }

    /// Refuses a segment that leaves a hole in a track: one with no samples at all (only program
    /// tables), or without video (audio) between segments with video (audio). Played, such a
    /// segment is a frozen picture or silence for its whole duration, which the playlist does not
    /// say (as `EXT-X-GAP` would, which is refused as well). A track may start late or end early:
    /// segments before its first or after its last are not holes.
    static func checkNoHoles(_ holds: [(video: Bool, audio: Bool)], source: HLSSegmentSource) throws(MP4Error) {
        func hole(_ index: Int, _ what: String) -> MP4Error {
            let segment = source.segments[index]
            return .unsupportedStream(
                file: segment.path.description, offset: segment.byteRange?.lowerBound ?? 0,
                reason: "segment \(index + 1) of \(source.playlist) holds \(what): its \(segment.duration) s would play as a "
                    + "frozen picture or silence that the playlist does not mark; give the segment its media")
        }
        if let empty = holds.firstIndex(where: { !$0.video && !$0.audio }) { throw hole(empty, "no video or audio, only program tables") }
        for (track, has) in [("video", { (h: (video: Bool, audio: Bool)) in h.video }), ("audio", { $0.audio })] {
            guard let first = holds.firstIndex(where: has), let last = holds.lastIndex(where: has) else { continue }
            if let missing = holds[first...last].firstIndex(where: { !has($0) }) { throw hole(missing, "no \(track)") }
        }
    }

    /// Distinct sample entries, by their bytes.
    struct Descriptions {
        var entries: [[UInt8]] = []
        private var indexByBytes: [[UInt8]: Int] = [:]

        mutating func index(of entry: [UInt8], file: FilePath, offset: UInt64) throws(MP4Error) -> UInt16 {
            if let index = indexByBytes[entry] { return UInt16(index) }
            guard entries.count <= Int(UInt16.max) else {
                throw .unsupportedStream(file: file.description, offset: offset, reason: "more than 65,536 distinct codec settings in one source")
            }
            indexByBytes[entry] = entries.count
            entries.append(entry)
            return UInt16(entries.count - 1)
        }
    }
}
