/// An output track with every sample at its final time: what the `trak` box will describe.
struct PlacedTrack: Sendable {
    var kind: MP4TrackKind
    var timescale: Int32
    var descriptions: [MP4SampleDescription]
    /// Samples in decode order; `decode` and `composition` are absolute output ticks.
    var samples: [TrackRun.Sample] = []
    /// The piece each sample belongs to, parallel to `samples`.
    var pieceOfSample: [Int] = []
    /// Decode time at which the track's media ends (the last sample's decode time + duration).
    var mediaEnd: Int64 = 0
    var edits: [MP4EditListEntry] = []
    /// Decode time at which each placed run starts, in run order.
    var runStarts: [Int64] = []

    init(kind: MP4TrackKind, timescale: Int32, descriptions: [MP4SampleDescription]) {
        self.kind = kind
        self.timescale = timescale
        self.descriptions = descriptions
    }

    /// Appends a run placed at decode time `start`.
    mutating func append(_ run: TrackRun, at start: Int64, piece: Int) {
        for var sample in run.samples {
            sample.decode += start
            sample.composition += start
            samples.append(sample)
            pieceOfSample.append(piece)
        }
    }

    /// Moves every composition time (and media edit) later by `shift`, so that no composition
    /// offset and no edit media time is negative.
    mutating func shiftComposition(by shift: Int64) {
        guard shift != 0 else { return }
        for index in samples.indices { samples[index].composition += shift }
        for index in edits.indices where edits[index].mediaTime != nil { edits[index].mediaTime! += shift }
    }

    /// Sample durations: the gap to the next sample's decode time, and for the last sample the gap to
    /// `mediaEnd`.
    func durations(file: String) throws(MP4Error) -> [UInt32] {
        var durations: [UInt32] = []
        durations.reserveCapacity(samples.count)
        for index in samples.indices {
            let next = index + 1 < samples.count ? samples[index + 1].decode : mediaEnd
            let duration = next - samples[index].decode
            guard duration >= 0, duration <= Int64(UInt32.max) else {
                throw .timeOverflow(file: file, reason: "a \(kind) sample would last \(duration) ticks of 1/\(timescale) s, outside 0...\(UInt32.max)")
            }
            durations.append(UInt32(duration))
        }
        return durations
    }
}

extension LayoutContext {
    // MARK: - Sample-accurate: one edit per piece

    /// Builds a track for sample-accurate cuts: each piece's samples (with their hidden lead-in and
    /// tail), one edit per piece with the piece's boundaries in the movie timescale.
    mutating func sampleAccurateTrack(_ kind: MP4TrackKind, timescale: Int32, movieTimescale: Int32,
                                      movieBoundaries: [Int64]) throws(MP4Error) -> PlacedTrack {
        let table = kind == .video ? videoDescriptions : audioDescriptions
        var track = PlacedTrack(kind: kind, timescale: timescale, descriptions: table.descriptions)
        var runs: [TrackRun?] = []
        var spares: [[TrackRun.Sample]] = []
        var gaps: [Int64] = []
        for (index, piece) in pieces.enumerated() {
            let pieceMovie = movieBoundaries[index + 1] - movieBoundaries[index]
            let timeline = kind == .video ? piece.video : piece.audio
            let window = timeline.flatMap { self.window(of: piece, in: $0) }
            let gapMovie = try window.map { (w) throws(MP4Error) in
                try exact(piece.path) { () throws(MediaTimeError) in min(pieceMovie, try w.leadingGap.ticks(in: movieTimescale)) }
            } ?? 0
            let length = try exact(piece.path) { () throws(MediaTimeError) in
                try MediaTime.divide(pieceMovie - gapMovie, times: Int64(timescale), by: Int64(movieTimescale), rounding: .toNearestOrAwayFromZero)
            }
            gaps.append(gapMovie)
            switch (kind, timeline, window) {
            case (.video, let timeline?, let window?) where gapMovie < pieceMovie:
                let (run, spare) = try videoRun(piece, timeline, window: window, windowLength: length, timescale: timescale)
                runs.append(run)
                spares.append(spare)
            case (.video, _, _):
                runs.append(nil)
                spares.append([])
            case (_, let timeline?, let window?) where gapMovie < pieceMovie:
                runs.append(try audioRun(piece, timeline, window: window, windowLength: length, timescale: timescale))
                spares.append([])
            default:
                let borrowed = timeline.map { tl in
                    (audioDescriptions.outputIndex(source: piece.source, description: Int(tl.samples.descriptionIndices[0])), piece.path)
                } ?? borrowedAudioDescription(for: index)!
                gaps[index] = 0
                let fullLength = try exact(piece.path) { () throws(MediaTimeError) in
                    try MediaTime.divide(pieceMovie, times: Int64(timescale), by: Int64(movieTimescale), rounding: .toNearestOrAwayFromZero)
                }
                runs.append(try silenceRun(description: borrowed.0, file: borrowed.1, windowLength: fullLength, timescale: timescale))
                spares.append([])
            }
        }

        // ffmpeg (5.x) tracks which sample description applies by counting the samples it has
        // read, but its edit-list handling reads some samples twice: past a piece's end (up to
        // the next keyframe, two with B-frames) and, for audio, a second before a piece's start.
        // With one description that is harmless; with several, the count drifts and later pieces
        // decode with the wrong parameters. So each piece gets the samples ffmpeg looks for from its
        // own source: hidden keyframes after a video piece, hidden silence before an audio piece.
        if track.descriptions.count > 1 {
            if kind == .video {
                try appendTrailingKeyframes(&runs, spares: spares)
            } else {
                try prependAudioLeadIn(&runs, timescale: timescale)
            }
        }

        try place(runs, in: &track, file: pieces[0].path)
        // Edits: one per piece (plus an empty one before a track that starts late).
        var edits: [MP4EditListEntry] = []
        var runStarts = track.runStarts
        for (index, run) in runs.enumerated() {
            let pieceMovie = UInt64(movieBoundaries[index + 1] - movieBoundaries[index])
            guard let run else {
                edits.append(MP4EditListEntry(segmentDuration: pieceMovie, mediaTime: nil))
                continue
            }
            let gap = UInt64(gaps[index])
            if gap > 0 { edits.append(MP4EditListEntry(segmentDuration: gap, mediaTime: nil)) }
            let start = runStarts.removeFirst()
            edits.append(MP4EditListEntry(segmentDuration: pieceMovie - gap, mediaTime: start + run.windowStart))
        }
        track.edits = edits
        // No negative composition offsets (ctts version 0) and no negative edit media times.
        let shift = max(0, track.samples.map { $0.decode - $0.composition }.max() ?? 0,
                        -(edits.compactMap(\.mediaTime).min() ?? 0))
        track.shiftComposition(by: shift)
        return track
    }

    /// Places runs one after another: each starts once the previous has decoded, and late enough
    /// that none of its samples presents inside the previous piece's window or before the
    /// previous piece's last sample. The gap goes to the previous run's last sample, which so
    /// lasts until the next piece: a video frame is held, never skipped.
    func place(_ runs: [TrackRun?], in track: inout PlacedTrack, file: String) throws(MP4Error) {
        var previous: (start: Int64, run: TrackRun)?
        var starts: [Int64] = []
        for (piece, run) in runs.enumerated() {
            guard let run else { continue }
            var start: Int64 = 0
            if let previous {
                start = max(previous.start + previous.run.decodeEnd,
                            previous.start + previous.run.windowEnd - run.minComposition,
                            previous.start + previous.run.maxComposition + 1 - run.minComposition)
            }
            track.append(run, at: start, piece: piece)
            starts.append(start)
            previous = (start, run)
        }
        if let previous {
            track.mediaEnd = max(previous.start + previous.run.decodeEnd, previous.start + previous.run.windowEnd)
        }
        track.runStarts = starts
    }

    /// Appends hidden sync samples after each video run but the last, so that ffmpeg's read past
    /// the run's window ends inside the run (see `sampleAccurateTrack`).
    func appendTrailingKeyframes(_ runs: inout [TrackRun?], spares: [[TrackRun.Sample]]) throws(MP4Error) {
        let hasCompositionOffsets = runs.contains { $0?.samples.contains { $0.decode != $0.composition } ?? false }
        // ffmpeg stops at the first keyframe ending at or after the window, or the second one
        // when the track has composition offsets.
        let needed = hasCompositionOffsets ? 2 : 1
        guard let lastRun = runs.lastIndex(where: { $0 != nil }) else { return }
        for index in runs.indices where index != lastRun {
            guard var run = runs[index], !spares[index].isEmpty else { continue }
            let base = max(run.decodeEnd, run.windowEnd, run.maxComposition + 1)
            var qualifying = 0
            for (position, sample) in run.samples.enumerated() where sample.isSync {
                let next = position + 1 < run.samples.count ? run.samples[position + 1].decode : base
                if sample.composition + (next - sample.decode) >= run.windowEnd { qualifying += 1 }
            }
            let missing = max(0, needed - qualifying)
            for extra in 0..<missing {
                var sample = spares[index][min(extra, spares[index].count - 1)]
                sample.decode = base + Int64(extra)
                sample.composition = base + Int64(extra)
                run.samples.append(sample)
            }
            run.decodeEnd = base + Int64(missing)
            runs[index] = run
        }
    }

    /// Puts at least one second of hidden silence, in the run's own description, before each
    /// audio run but the first (see `sampleAccurateTrack`).
    mutating func prependAudioLeadIn(_ runs: inout [TrackRun?], timescale: Int32) throws(MP4Error) {
        guard let firstRun = runs.firstIndex(where: { $0 != nil }) else { return }
        for index in runs.indices where index > firstRun {
            guard var run = runs[index], run.windowStart < Int64(timescale), let first = run.samples.first else { continue }
            let silence = try silence(for: first.description, file: pieces[index].path)
            try exact(pieces[index].path) { () throws(MediaTimeError) in
                let count = try silence.framesToCover(Int64(timescale) - run.windowStart, timescale: timescale)
                let length = try silence.offset(ofFrame: count, timescale: timescale)
                run.shift(by: length)
                run.samples.insert(contentsOf: try silence.frames(count: count, from: 0, timescale: timescale, leadIn: true), at: 0)
            }
            runs[index] = run
        }
    }
}
