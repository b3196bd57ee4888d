import CompositorCore
import CompositorIO
import CompositorTS

extension TransportStreamReader.Index {
    /// The movie the segments read so far make: tracks, tables, edits, and where each sample is.
    func movie(budget: inout MP4SampleBudget) throws(MP4Error) -> MP4Movie {
        let playlist = source.playlist
        let (audio, audioDecodeTimes) = try audioTimeline()
        guard let zero, !video.isEmpty || !audio.isEmpty else {
            throw .unsupportedStream(file: playlist.description, offset: 0, reason: "the segments hold no H.264, HEVC or AAC samples")
        }
        try TransportStreamReader.checkNoHoles(segmentHolds, source: source)
        try budget.charge(video.count + audio.count, file: playlist.description)
        let clock = TransportStreamReader.clock
        var tracks: [MP4Track] = []
        let layout = Layout(video: video, audio: audio, files: files)

        if let first = video.first {
            var decodeTimes: [Int64] = [], durations: [UInt32] = [], offsets: [Int32] = []
            decodeTimes.reserveCapacity(video.count); durations.reserveCapacity(video.count); offsets.reserveCapacity(video.count)
            var end = Int64.min
            for (index, sample) in video.enumerated() {
                let duration: Int64
                if index + 1 < video.count {
                    duration = video[index + 1].dts - sample.dts
                } else {
                    duration = durations.last.map(Int64.init) ?? (playlistTime + zero - sample.pts)
                }
                guard duration > 0, duration <= Int64(UInt32.max) else {
                    throw decodeOrder(video[min(index + 1, video.count - 1)], "video decode times go from \(sample.dts) to \(sample.dts + duration) (90 kHz)")
                }
                guard let offset = Int32(exactly: sample.pts - sample.dts) else {
                    throw decodeOrder(sample, "a video frame presented \(sample.pts - sample.dts) ticks from its decode time")
                }
                decodeTimes.append(sample.dts - first.dts)
                durations.append(UInt32(duration))
                offsets.append(offset)
                end = max(end, sample.pts + duration)
            }
            let start = zero - first.dts
            guard start >= 0, end > zero else {
                throw decodeOrder(first, "the video does not start with the playlist's first segment")
            }
            let table = MP4SampleTable(
                offsets: layout.videoPositions, sizes: video.map(\.size), decodeTimes: decodeTimes, durations: durations,
                compositionOffsetPerSample: offsets, descriptionIndices: video.map(\.description), syncPerSample: video.map(\.isSync))
            tracks.append(try track(id: 1, kind: .video, timescale: Int32(clock), table: table, descriptions: videoDescriptions,
                                    edits: [MP4EditListEntry(segmentDuration: UInt64(end - zero), mediaTime: start)]))
        }

        if let first = audio.first, let rate = audioSampleRate {
            let perFrame = Int64(ADTSHeader.samplesPerFrame)
            let decodeTimes = audioDecodeTimes
            var durations = zip(decodeTimes.dropFirst(), decodeTimes).map { UInt32(clamping: $0 - $1) }
            durations.append(UInt32(perFrame))
            let length = decodeTimes[decodeTimes.count - 1] + perFrame
            // The audio's start and end on the 90 kHz presentation clock.
            let end = first.pts + (try ticks(length, rate: rate, frame: first))
            guard end > zero else { throw decodeOrder(first, "the audio ends before the playlist's first segment starts") }
            let edits: [MP4EditListEntry]
            if first.pts <= zero {
                edits = [MP4EditListEntry(segmentDuration: UInt64(end - zero), mediaTime: try samples(zero - first.pts, rate: rate, frame: first))]
            } else {
                edits = [MP4EditListEntry(segmentDuration: UInt64(first.pts - zero), mediaTime: nil),
                         MP4EditListEntry(segmentDuration: UInt64(end - first.pts), mediaTime: 0)]
            }
            let table = MP4SampleTable(
                offsets: layout.audioPositions, sizes: audio.map(\.size), decodeTimes: decodeTimes, durations: durations,
                compositionOffsets: [], descriptionIndices: audio.map(\.description), syncFlags: nil)
            tracks.append(try track(id: 2, kind: .audio, timescale: Int32(rate), table: table, descriptions: audioDescriptions, edits: edits))
        }

        let samples = TransportStreamSamples(segmentFiles: files, layout: layout, videoUnits: videoUnits)
        let duration = tracks.map(\.presentationDuration).max() ?? .zero
        return MP4Movie(path: playlist, store: .transportStream(samples), timescale: Int32(clock), duration: duration,
                        tracks: tracks, gaplessInfo: nil)
    }

    /// The audio frames that play and their decode times, in samples from the first frame's PTS:
    /// each at its PTS, or where the frame before ends when that is within half a frame (jitter in
    /// the timestamps is not a gap). A frame after a discontinuity that starts more than half a
    /// frame before the audio before it ends is left out (the next encoding's priming).
    private func audioTimeline() throws(MP4Error) -> ([AudioFrame], [Int64]) {
        guard let first = audio.first, let rate = audioSampleRate else { return ([], []) }
        let perFrame = Int64(ADTSHeader.samplesPerFrame)
        var kept: [AudioFrame] = [], times: [Int64] = []
        kept.reserveCapacity(audio.count); times.reserveCapacity(audio.count)
        for frame in audio {
            let actual = try samples(frame.pts - first.pts, rate: rate, frame: frame) + Int64(frame.frameInPacket) * perFrame
            if let previous = times.last {
                let expected = previous + perFrame
                if actual < expected - perFrame / 2, frame.mayOverlap { continue }
                var time = abs(actual - expected) <= perFrame / 2 ? expected : actual
                // Earlier than the grid: the frame before was cut short (as an MP4 whose last frame
                // of a loop or clip lasts less than 1,024 samples packages); it lasts until this one.
                if time <= previous, let before = kept.last {
                    // A frame stamped after the one before can still land on it once both are
                    // rounded to samples (the one before lasted less than a sample and a tick):
                    // it starts a sample later. Stamped at or before it, the stream is broken.
                    guard (frame.pts, frame.frameInPacket) > (before.pts, before.frameInPacket) else {
                        throw decodeOrder(frame, "an audio frame at \(frame.pts) (90 kHz) does not start after the one before")
                    }
                    time = previous + 1
                }
                times.append(time)
            } else {
                times.append(actual)
            }
            kept.append(frame)
        }
        return (kept, times)
    }

    /// Where each sample's bytes go in the demuxed layout: block by block of the segments (see
    /// `SegmentPackets`), the video samples whose PES packet starts in a block, then its audio
    /// frames. A render copying the layout reads each block once, and its output interleaves the
    /// tracks about as the segments did. Made in one pass: each track's positions (its sample
    /// table's offsets) and, in layout order, what `TransportStreamSamples` keeps of each sample.
    struct Layout {
        var videoPositions: [UInt64] = [], audioPositions: [UInt64] = []
        var samples: [TransportStreamSamples.Sample] = []
        var segmentIndices: [UInt32] = [], packetOffsets: [UInt64] = [], dataOffsets: [UInt32] = []
        var positions: [UInt64] = [], sizes: [UInt32] = []

        init(video: [VideoSample], audio: [AudioFrame], files: [TransportStreamSamples.SegmentFile]) {
            videoPositions.reserveCapacity(video.count); audioPositions.reserveCapacity(audio.count)
            func block(_ segment: UInt32, _ offset: UInt64) -> (segment: UInt32, block: UInt64) {
                (segment, SegmentPackets.block(of: offset, segmentStart: files[Int(segment)].byteRange?.lowerBound ?? 0))
            }
            var v = 0, a = 0
            while v < video.count || a < audio.count {
                let videoBlock = v < video.count ? block(video[v].segment, video[v].packetOffset) : nil
                let audioBlock = a < audio.count ? block(audio[a].segment, audio[a].packetOffset) : nil
                guard let here = [videoBlock, audioBlock].compactMap({ $0 }).min(by: { $0 < $1 }) else { break }
                while v < video.count, block(video[v].segment, video[v].packetOffset) == here {
                    let sample = video[v]
                    videoPositions.append(place(.video(Int32(v)), segment: sample.segment, packetOffset: sample.packetOffset,
                                                dataOffset: 0, size: sample.size))
                    v += 1
                }
                while a < audio.count, block(audio[a].segment, audio[a].packetOffset) == here {
                    let frame = audio[a]
                    audioPositions.append(place(.audio(Int32(a)), segment: frame.segment, packetOffset: frame.packetOffset,
                                                dataOffset: frame.dataOffset, size: frame.size))
                    a += 1
                }
            }
        }

        /// Puts `sample` after those placed so far; returns its position.
        private mutating func place(_ sample: TransportStreamSamples.Sample, segment: UInt32, packetOffset: UInt64,
                                    dataOffset: UInt32, size: UInt32) -> UInt64 {
            let position = (positions.last ?? 0) + UInt64(sizes.last ?? 0)
            samples.append(sample); segmentIndices.append(segment); packetOffsets.append(packetOffset)
            dataOffsets.append(dataOffset); positions.append(position); sizes.append(size)
            return position
        }
    }

    private func track(id: UInt32, kind: TrackKind, timescale: Int32, table: MP4SampleTable, descriptions: TransportStreamReader.Descriptions,
                       edits: [MP4EditListEntry]) throws(MP4Error) -> MP4Track {
        let handler: FourCC = kind == .video ? "vide" : "soun"
        var parsed: [MP4SampleDescription] = []
        for entry in descriptions.entries {
            do {
                parsed.append(try MP4SampleDescription(entry: ByteReader(entry), handler: handler))
            } catch {
                // The entries are this library's own: a failure here is a bug, reported rather than trapped.
                throw error.error(file: source.playlist.description, boxPath: "\(kind) sample entry")
            }
        }
        return MP4Track(trackID: id, kind: kind, handler: handler, isEnabled: true, displayMatrix: .identity, timescale: timescale,
                        mediaDuration: table.decodeEnd, movieTimescale: Int32(TransportStreamReader.clock), editList: edits,
                        sampleDescriptions: parsed, samples: table, boxPath: "\(kind) stream", boxOffset: 0,
                        editListOffset: nil, gaplessInfo: nil)
    }

    /// 90 kHz ticks as samples at `rate`, to the nearest.
    private func samples(_ ticks: Int64, rate: Int, frame: AudioFrame) throws(MP4Error) -> Int64 {
        do { return try MediaTime.divide(ticks, times: Int64(rate), by: TransportStreamReader.clock, rounding: .toNearestOrAwayFromZero) } catch {
            throw decodeOrder(frame, "an audio time out of range")
        }
    }

    private func ticks(_ samples: Int64, rate: Int, frame: AudioFrame) throws(MP4Error) -> Int64 {
        do { return try MediaTime.divide(samples, times: TransportStreamReader.clock, by: Int64(rate), rounding: .toNearestOrAwayFromZero) } catch {
            throw decodeOrder(frame, "an audio time out of range")
        }
    }

    private func decodeOrder(_ sample: VideoSample, _ reason: String) -> MP4Error {
        .malformedStream(file: files[Int(sample.segment)].path.description, offset: sample.packetOffset, reason: reason)
    }

    private func decodeOrder(_ frame: AudioFrame, _ reason: String) -> MP4Error {
        .malformedStream(file: files[Int(frame.segment)].path.description, offset: frame.packetOffset, reason: reason)
    }
}
