import CompositorCore
import CompositorTS

/// Building one piece's run of samples in one output track.
extension LayoutContext {
    /// The part of a piece a source track can present: the range clipped to the track's
    /// presentation, and how much of the piece passes before the track starts.
    struct TrackWindow {
        /// Presentation times, clipped to the track.
        let start: MediaTime
        let end: MediaTime
        /// Piece time before the track starts presenting (the track starts late).
        let leadingGap: MediaTime
    }

    func window(of piece: ResolvedPiece, in timeline: SourceTrackTimeline) throws(MP4Error) -> TrackWindow? {
        let start = MediaTime.max(piece.range.start, timeline.presentationStart)
        let end = MediaTime.min(piece.range.end, timeline.presentationEnd)
        guard start < end else { return nil }
        let gap = try exact(piece.path) { () throws(MediaTimeError) in try start.subtracting(piece.range.start) }
        return TrackWindow(start: start, end: end, leadingGap: gap)
    }

    /// Video: every sample from the last keyframe presenting at or before the window start where
    /// decoding can start (in decode order; see `DecodeStart`) to the last sample presenting
    /// before the window end, but the keyframe's leading pictures. Frames outside the window are
    /// decoded but hidden by the edit; samples after the last one needed are not copied. An HEVC
    /// CRA keyframe is copied marked as a splice. `spareKeyframes` are sync samples of the same
    /// source the ffmpeg workaround may append.
    mutating func videoRun(_ piece: ResolvedPiece, _ timeline: SourceTrackTimeline, window: TrackWindow,
                           windowLength: Int64, timescale: Int32) throws(MP4Error) -> (run: TrackRun, spareKeyframes: RunSpan.SpareKeyframes?) {
        let samples = timeline.samples
        let ts = timeline.timescale
        let (cs, startFloor, endCeiling) = try exact(piece.path) { () throws(MediaTimeError) in
            let cs = try timeline.mediaTime(at: window.start)
            let startFloor = try cs.ticks(in: ts, rounding: .down)
            // A dwell shows the one frame presenting at its media time.
            guard timeline.isDwell else { return (cs, startFloor, try timeline.mediaTime(at: window.end).ticks(in: ts, rounding: .up)) }
            let (afterFloor, overflow) = startFloor.addingReportingOverflow(1)
            guard !overflow else { throw .overflow("a dwell at media time \(cs)") }
            return (cs, startFloor, afterFloor)
        }
        // Keyframes present in decode order: those at or before the start come first.
        let flagged = keyframes.flaggedSync(in: timeline, source: piece.source)
        let split = flagged.partitioningIndex { samples.compositionTime($0) > startFloor }
        let k = try keyframes.nearestStart(among: flagged, split: split, of: timeline, source: piece.source).map { flagged[$0] } ?? 0
        // A piece starts by giving the decoder its parameter sets, where they go in-band.
        let track = spanSource(.video, of: piece, table: samples)
        let inBand = track.inBand
        let startParameterSets = inBand.isEmpty ? nil : inBand[Int(samples.descriptionIndices[k])]
        var spliced: (bytes: SampleBytes, size: UInt32)?
        if try keyframes.decodeStart(k, of: timeline, source: piece.source) == .cleanRandomAccess {
            let prefix = startParameterSets.map { syntheticPayloads[$0.payload] } ?? []
            let payload = prefix + (try keyframes.splicedBytes(k, of: timeline, source: piece.source))
            guard let size = UInt32(exactly: payload.count) else {
                throw .timeOverflow(file: piece.path.description, reason: "a \(samples.sizes[k])-byte keyframe with its parameter sets in-band is past 4 GiB")
            }
            syntheticPayloads.append(payload)
            spliced = (.synthetic(payload: syntheticPayloads.count - 1), size)
        }
        var last = k
        for index in k..<samples.count {
            // Not to the track's end for every piece: past here, every sample presents after the window.
            if samples.decodeTimes[index] + samples.smallestCompositionOffset >= endCeiling { break }
            if samples.compositionTime(index) < endCeiling { last = index }
        }

        return try exact(piece.path) { () throws(MediaTimeError) in
            let convert = TickConverter(from: ts, to: timescale)
            let baseDecode = samples.decodeTimes[k]
            let baseComposition = samples.compositionTime(k)
            let descriptions = track.descriptions
            var start = TrackSample(
                bytes: spliced?.bytes ?? .source(file: piece.source, offset: samples.offsets[k]), size: spliced?.size ?? samples.sizes[k],
                decode: 0, composition: 0, isSync: samples.isSync(k),
                description: descriptions[Int(samples.descriptionIndices[k])], isLeadIn: spliced != nil)
            // (A spliced keyframe has its parameter sets in its payload already.)
            if let startParameterSets { try start.carry(startParameterSets) }
            var spans: [RunSpan] = [.single(start)]
            // The keyframe's leading pictures (decoded after it, shown before it: an open GOP's
            // RASL pictures) may reference pictures before it, which the output does not have.
            // They are shown before the window, so they are left out (none references them), and
            // the samples after them decode that much earlier: each stretch between them is a span.
            var leftOut: Int64 = 0
            var stretchStart: Int?
            for index in k + 1...last + 1 {
                let included = index <= last && samples.compositionTime(index) >= baseComposition
                if included, stretchStart == nil { stretchStart = index }
                if !included, let first = stretchStart {
                    spans.append(try .source(RunSpan.SourceSamples(
                        source: track, range: first..<index, convert: convert,
                        decodeBase: baseDecode + leftOut, compositionBase: baseComposition,
                        // Pictures flagged sync before the window were found not to be decode starts
                        // (else decoding would start there): unflagged, so a player does not start there.
                        sync: .flaggedPresentingAfter(startFloor))))
                    stretchStart = nil
                }
                if index <= last, !included { leftOut += Int64(samples.durations[index]) }
            }
            let decodeEnd = try convert.convert(samples.decodeTimes[last] + Int64(samples.durations[last]) - baseDecode - leftOut)
            let windowStart = try cs.subtracting(MediaTime(value: baseComposition, timescale: ts)).ticks(in: timescale, rounding: .up)

            // Sync samples after the run first (the next GOPs), then the run's own, latest first.
            let after = (last + 1..<samples.count).lazy.filter(samples.isSync).prefix(2)
            let before = (k...last).reversed().lazy.filter(samples.isSync).prefix(2)
            let spareIndices = Array(after) + Array(before)
            let spares = spareIndices.first.map { RunSpan.SpareKeyframes(source: track, first: $0, second: spareIndices.dropFirst().first) }
            return (TrackRun(spans: spans, decodeEnd: decodeEnd, windowStart: windowStart, windowLength: windowLength), spares)
        }
    }

    /// Samples at 48 kHz an Opus decoder needs to converge after a random access (80 ms).
    static let opusPreroll: Int64 = 3840

    /// Audio: the frames that overlap the window, plus pre-roll before them, hidden by the edit:
    /// one frame for AAC (its decoder needs the previous frame to rebuild the first); for Opus,
    /// frames covering at least 80 ms and its `PreSkip` (a decoder converges within 80 ms, RFC 7845
    /// 4.6, and discards `PreSkip` samples at the start of the stream whatever the edit hides).
    /// Silence for a track that ends before the window does is added by `fillWithSilence`.

    mutating func audioRun(_ piece: ResolvedPiece, _ timeline: SourceTrackTimeline, window: TrackWindow,
                           windowLength: Int64, timescale: Int32) throws(MP4Error) -> TrackRun {
        let samples = timeline.samples
        let ts = timeline.timescale
        let (startFloor, endCeiling, cs) = try exact(piece.path) { () throws(MediaTimeError) in
            let cs = try timeline.mediaTime(at: window.start)
            return (try cs.ticks(in: ts, rounding: .down), try timeline.mediaTime(at: window.end).ticks(in: ts, rounding: .up), cs)
        }
        // Searched, not scanned, where frames present in decode order: a scan of every frame per
        // piece made 10,000 breaks quadratic.
        guard let firstOverlap = samples.firstSample(where: { samples.compositionTime($0) + Int64(samples.durations[$0]) > startFloor }),
              let lastOverlap = samples.lastSample(where: { samples.compositionTime($0) < endCeiling }),
              firstOverlap <= lastOverlap else {
            let description = audioDescriptions.outputIndex(source: piece.source, description: Int(samples.descriptionIndices[0]))
            return try silenceRun(description: description, piece: piece.index, windowLength: windowLength, timescale: timescale)
        }
        let firstDescription = audioDescriptions.descriptions[
            audioDescriptions.outputIndex(source: piece.source, description: Int(samples.descriptionIndices[firstOverlap]))]
        var first = firstOverlap
        if case .aac = firstDescription.codec { first = max(0, firstOverlap - 1) }
        if let preSkip = firstDescription.opusPreSkip {
            let needed = try exact(piece.path) { () throws(MediaTimeError) in
                try MediaTime(value: max(Int64(preSkip), Self.opusPreroll), timescale: 48000).ticks(in: ts, rounding: .up)
            }
            while first > 0, startFloor - samples.compositionTime(first) < needed { first -= 1 }
        }

        let convert = TickConverter(from: ts, to: timescale)
        let track = spanSource(.audio, of: piece, table: samples)
        let baseDecode = samples.decodeTimes[first]
        let baseComposition = samples.compositionTime(first)
        let (span, decodeEnd, windowStart) = try exact(piece.path) { () throws(MediaTimeError) in
            (try RunSpan.source(RunSpan.SourceSamples(
                source: track, range: first..<lastOverlap + 1, convert: convert,
                decodeBase: baseDecode, compositionBase: baseComposition, sync: .flagged)),
             try convert.convert(samples.decodeTimes[lastOverlap] + Int64(samples.durations[lastOverlap]) - baseDecode),
             try cs.subtracting(MediaTime(value: baseComposition, timescale: ts)).ticks(in: timescale))
        }
        return TrackRun(spans: [span], decodeEnd: decodeEnd, windowStart: windowStart, windowLength: windowLength)
    }

    /// Appends silent frames (in the run's last description) until the audio covers the window:
    /// for a source whose audio ends before the piece does, or a window lengthened over a hole.
    mutating func fillWithSilence(_ run: inout TrackRun, piece: Int, timescale: Int32) throws(MP4Error) {
        let file = pieces[piece].path
        guard run.windowEnd > run.decodeEnd,
              let last = try exact(file, { () throws(MediaTimeError) in try run.lastSample() }) else { return }
        let gap = run.windowEnd - run.decodeEnd
        let silence = try silence(for: last.description, piece: piece, gap: MediaTime(value: gap, timescale: timescale))
        let count = try exact(file) { () throws(MediaTimeError) in try silence.framesToCover(gap, timescale: timescale) }
        try checkSilence(count, piece: piece, timescale: timescale, gap: gap)
        try exact(file) { () throws(MediaTimeError) in
            if let frames = try RunSpan.silence(silence, count: count, from: run.decodeEnd, timescale: timescale) { run.spans.append(frames) }
            run.decodeEnd += try silence.offset(ofFrame: count, timescale: timescale)
        }
    }

    /// Silence for the whole window, in the given description; after one hidden silent frame
    /// with `hiddenFrame`, which takes the overlap of the frame decoded before it.
    mutating func silenceRun(description: Int, piece: Int, windowLength: Int64, timescale: Int32,
                             hiddenFrame: Bool = false) throws(MP4Error) -> TrackRun {
        let file = pieces[piece].path
        let silence = try silence(for: description, piece: piece, gap: MediaTime(value: windowLength, timescale: timescale))
        let count = try exact(file) { () throws(MediaTimeError) in try silence.framesToCover(windowLength, timescale: timescale) }
        try checkSilence(count, piece: piece, timescale: timescale, gap: windowLength)
        return try exact(file) { () throws(MediaTimeError) in
            let hidden: Int64 = hiddenFrame ? 1 : 0
            let lead = try silence.offset(ofFrame: hidden, timescale: timescale)
            return TrackRun(spans: try RunSpan.silence(silence, count: count + hidden, from: 0, timescale: timescale).map { [$0] } ?? [],
                            decodeEnd: try silence.offset(ofFrame: count + hidden, timescale: timescale),
                            windowStart: lead, windowLength: windowLength)
        }
    }
}
