import CompositorCore

extension LayoutContext {
    // MARK: - Sample-accurate: one edit per piece, joined where the media runs on

    /// Builds a track for sample-accurate cuts: each piece's samples (with their hidden lead-in and
    /// tail) and one edit per piece, with the pieces' boundaries in the movie timescale; edits
    /// whose media follows on are joined (`joiningContiguous`).
    ///
    /// Where a source lacks the track (or its track starts after the piece does) there is a hole.
    /// In video the previous edit runs on over it, so the last frame is held; holes before any
    /// media become an empty edit, at the very start (ffmpeg 5.x mishandles empty edits anywhere
    /// else). In audio a hole is an edit of its own showing silent frames, after one hidden
    /// silent frame: the previous piece's sound stops at the cut, not at the end of the AAC frame
    /// the cut falls in, and its last frame's overlap decodes into the hidden frame, not the gap.
    mutating func sampleAccurateTrack(_ kind: TrackKind, timescale: Int32, movieTimescale: Int32,
                                      movieBoundaries: [Int64]) throws(MP4Error) -> PlacedTrack {
        let table = kind == .video ? videoDescriptions : audioDescriptions
        var track = PlacedTrack(kind: kind, timescale: timescale, descriptions: table.descriptions)
        let composition = try exact(pieces[pieces.count - 1].path) { () throws(MediaTimeError) in
            try MediaTime.divide(movieBoundaries[pieces.count], times: Int64(timescale), by: Int64(movieTimescale), rounding: .up)
        }
        guard composition <= Self.maximumTrackTicks else { throw tooLong(track, piece: pieces.count - 1) }

        // Each piece: the hole at its start (movie ticks) and the window its media fills.
        var holes: [Int64] = []
        var windows: [(timeline: SourceTrackTimeline, window: TrackWindow)?] = []
        for (index, piece) in pieces.enumerated() {
            let pieceMovie = movieBoundaries[index + 1] - movieBoundaries[index]
            let timeline = kind == .video ? piece.video : piece.audio
            guard let timeline, let window = try window(of: piece, in: timeline) else {
                holes.append(pieceMovie)
                windows.append(nil)
                continue
            }
            let gap = try exact(piece.path) { () throws(MediaTimeError) in min(pieceMovie, try window.leadingGap.ticks(in: movieTimescale)) }
            holes.append(gap)
            windows.append(gap < pieceMovie ? (timeline, window) : nil)
        }

        // Edits: a media edit per piece with media; video's lengthened over the holes after it,
        // audio's followed by an edit of silence for them.
        var edits: [MP4EditListEntry] = []
        var editOfPiece: [Int?] = Array(repeating: nil, count: pieces.count)
        var silenceEditOfPiece: [Int?] = Array(repeating: nil, count: pieces.count)
        var lastEditIsSilence = false
        for index in pieces.indices {
            let pieceMovie = movieBoundaries[index + 1] - movieBoundaries[index]
            if holes[index] > 0 {
                if let last = edits.indices.last, kind == .video || lastEditIsSilence {
                    edits[last].segmentDuration += UInt64(holes[index])
                } else {
                    edits.append(MP4EditListEntry(segmentDuration: UInt64(holes[index]), mediaTime: kind == .audio ? 0 : nil))
                    if kind == .audio { silenceEditOfPiece[index] = edits.count - 1 }
                    lastEditIsSilence = kind == .audio
                }
            }
            if windows[index] != nil {
                edits.append(MP4EditListEntry(segmentDuration: UInt64(pieceMovie - holes[index]), mediaTime: 0))
                editOfPiece[index] = edits.count - 1
                lastEditIsSilence = false
            }
        }

        // An edit's duration in the track's ticks: what ffmpeg computes, and so what a window is.
        func trackTicks(_ movieTicks: UInt64, piece: Int) throws(MP4Error) -> Int64 {
            try exact(pieces[piece].path) { () throws(MediaTimeError) in
                try MediaTime.divide(Int64(movieTicks), times: Int64(timescale), by: Int64(movieTimescale), rounding: .toNearestOrAwayFromZero)
            }
        }

        var slots: [RunSlot] = []
        // Silence is made in the description of the audio before it (of the first audio, before any).
        var silenceDescription: Int?
        if kind == .audio, let first = windows.firstIndex(where: { $0 != nil }),
           let index = windows[first]?.timeline.samples.descriptionIndices.first {
            silenceDescription = audioDescriptions.outputIndex(source: pieces[first].source, description: Int(index))
        }
        for (index, piece) in pieces.enumerated() {
            if let edit = silenceEditOfPiece[index], let description = silenceDescription {
                let length = try trackTicks(edits[edit].segmentDuration, piece: index)
                slots.append(RunSlot(piece: index, edit: edit, run: try silenceRun(description: description, piece: index, windowLength: length,
                                                                                   timescale: timescale, hiddenFrame: !slots.isEmpty)))
            }
            guard let (timeline, window) = windows[index], let edit = editOfPiece[index] else { continue }
            // The window is as long as the edit; for video, the piece's own part first, then the holes after it.
            let pieceMovie = movieBoundaries[index + 1] - movieBoundaries[index]
            let ownLength = try trackTicks(UInt64(pieceMovie - holes[index]), piece: index)
            if kind == .video {
                // A dwell's window is its frame's first tick, held: the frames decoded after it stay hidden.
                let shownLength = timeline.isDwell ? min(ownLength, 1) : ownLength
                var (run, spare) = try videoRun(piece, timeline, window: window, windowLength: shownLength, timescale: timescale)
                try checkSpan(of: run, in: track, piece: index)
                run.extendWindow(by: try trackTicks(edits[edit].segmentDuration, piece: index) - shownLength)
                slots.append(RunSlot(piece: index, edit: edit, run: run, spareKeyframes: spare))
            } else {
                var run = try audioRun(piece, timeline, window: window, windowLength: ownLength, timescale: timescale)
                try checkSpan(of: run, in: track, piece: index)
                try fillWithSilence(&run, piece: index, timescale: timescale)
                if let last = try exact(piece.path, { () throws(MediaTimeError) in try run.lastSample() }) {
                    silenceDescription = last.description
                }
                slots.append(RunSlot(piece: index, edit: edit, run: run))
            }
        }
        guard !slots.isEmpty else {
            track.edits = edits
            return track
        }

        // ffmpeg (5.x) tracks which sample description applies by counting the samples it has
        // read, but its edit-list handling reads some samples twice: past a piece's end (up to
        // the next keyframe, two with B-frames) and, for audio, a second before a piece's start.
        // With one description that is harmless; with several, the count drifts and later pieces
        // decode with the wrong parameters. So each piece gets the samples ffmpeg looks for from its
        // own source: hidden keyframes after a video piece, hidden silence before an audio piece.
        if track.descriptions.count > 1 {
            if kind == .video {
                try exact(pieces[0].path) { () throws(MediaTimeError) in try appendTrailingKeyframes(&slots) }
            } else {
                try prependAudioLeadIn(&slots, timescale: timescale)
            }
        }

        try place(slots, in: &track)
        for (slot, start) in zip(slots, track.runStarts) {
            edits[slot.edit].mediaTime = start + slot.run.windowStart
        }
        track.edits = Self.joiningContiguous(edits, timescale: timescale, movieTimescale: movieTimescale)
        // No negative composition offsets (ctts version 0) and no negative edit media times.
        let lead = try exact(pieces[0].path) { () throws(MediaTimeError) in try track.largestDecodeLead() }
        track.shiftComposition(by: max(lead, -(edits.compactMap(\.mediaTime).min() ?? 0)))
        return track
    }

    /// `edits` with each edit that shows the media right after the previous one's joined to it:
    /// where a cut falls on a keyframe and nothing is hidden on either side, the two pieces'
    /// samples follow each other in the media as they do in the composition, and one edit shows
    /// both. Players that honour only the first edit, or none (REFERENCE.md; the player
    /// matrix in Compositor.docc/Players.md), then play such joins right. Joined only when the first edit's duration is a whole
    /// number of media ticks, so the joined edit shows exactly what the two did.
    ///
    /// ```
    /// edits   [dur 8 s @ media 0]  [dur 6 s @ media 8 s]  [dur 4 s @ media 20 s]
    /// joined  [dur 14 s @ media 0]                        [dur 4 s @ media 20 s]
    /// ```
    static func joiningContiguous(_ edits: [MP4EditListEntry], timescale: Int32, movieTimescale: Int32) -> [MP4EditListEntry] {
        var joined: [MP4EditListEntry] = []
        joined.reserveCapacity(edits.count)
        for edit in edits {
            if let last = joined.last, let lastStart = last.mediaTime, let start = edit.mediaTime,
               last.playsAtNormalRate, edit.playsAtNormalRate,
               // Durations are at most 2^60 movie ticks (`maximumTrackTicks`) and timescales 31 bits.
               let mediaTicks = try? MediaTime.divide(Int64(last.segmentDuration), times: Int64(timescale), by: Int64(movieTimescale), rounding: .down),
               (try? MediaTime.divide(mediaTicks, times: Int64(movieTimescale), by: Int64(timescale), rounding: .down)) == Int64(last.segmentDuration),
               lastStart.addingReportingOverflow(mediaTicks) == (start, false) {
                joined[joined.count - 1].segmentDuration += edit.segmentDuration
            } else {
                joined.append(edit)
            }
        }
        return joined
    }

    /// A run, the piece it comes from and the edit that shows it.
    struct RunSlot {
        var piece: Int
        var edit: Int
        var run: TrackRun
        /// Video: sync samples of the same source that may be appended, hidden, for ffmpeg.
        var spareKeyframes: RunSpan.SpareKeyframes?
    }

    /// The most ticks an output track may span: 2^60, 36 years at a 1 GHz timescale. A source can
    /// claim any length (an edit list, a frame that lasts centuries) and runs add up piece by piece:
    /// with the composition, each run and every placed time within this bound, the sums made with
    /// them (window extensions, placement, composition shift, edit media times) cannot overflow.
    static let maximumTrackTicks: Int64 = 1 << 60

    func checkSpan(of run: TrackRun, in track: PlacedTrack, piece: Int) throws(MP4Error) {
        guard run.spans(within: Self.maximumTrackTicks) else { throw tooLong(track, piece: piece) }
    }

    func tooLong(_ track: PlacedTrack, piece: Int) -> MP4Error {
        .invalidPiece(index: pieces[piece].number, file: pieces[piece].path, reason:
            "its \(track.kind) would take the output track past 2^60 ticks of 1/\(track.timescale) s "
            + "(\(Self.maximumTrackTicks / Int64(track.timescale)) s), the most one track may span")
    }

    /// Places runs one after another: each starts once the previous has decoded, and late enough
    /// that none of its samples presents inside the previous piece's window or before the
    /// previous piece's last sample. The gap goes to the previous run's last sample, which so
    /// lasts until the next piece: a video frame is held, never skipped.
    func place(_ slots: [RunSlot], in track: inout PlacedTrack) throws(MP4Error) {
        let limit = Self.maximumTrackTicks
        var previous: (start: Int64, run: TrackRun)?
        track.reserveCapacity(runs: slots.count)
        for slot in slots {
            let run = slot.run
            try checkSpan(of: run, in: track, piece: slot.piece)
            var start: Int64 = 0
            if let previous {
                // Every term is within 3 × limit: no overflow.
                start = max(previous.start + previous.run.decodeEnd,
                            previous.start + previous.run.windowEnd - run.minComposition,
                            previous.start + previous.run.maxComposition + 1 - run.minComposition)
            }
            guard start <= limit else { throw tooLong(track, piece: slot.piece) }
            track.append(run, at: start, piece: slot.piece)
            previous = (start, run)
        }
        if let previous {
            track.mediaEnd = max(previous.start + previous.run.decodeEnd, previous.start + previous.run.windowEnd)
            guard track.mediaEnd <= limit else { throw tooLong(track, piece: slots[slots.count - 1].piece) }
        }
    }

    /// Appends hidden sync samples after each video run but the last, so that ffmpeg's read past
    /// the run's window ends inside the run (see `sampleAccurateTrack`).
    func appendTrailingKeyframes(_ slots: inout [RunSlot]) throws(MediaTimeError) {
        var hasCompositionOffsets = false
        for slot in slots where !hasCompositionOffsets {
            var samples = slot.run.samples()
            while let sample = try samples.next() {
                if sample.decode != sample.composition {
                    hasCompositionOffsets = true
                    break
                }
            }
        }
        // ffmpeg stops at the first keyframe ending at or after the window, or the second one
        // when the track has composition offsets.
        let needed = hasCompositionOffsets ? 2 : 1
        for index in slots.indices.dropLast() {
            guard let spares = slots[index].spareKeyframes else { continue }
            var run = slots[index].run
            let base = max(run.decodeEnd, run.windowEnd, run.maxComposition + 1)
            var qualifying = 0
            var samples = run.samples()
            var current = try samples.next()
            while let sample = current {
                current = try samples.next()
                let next = current?.decode ?? base
                if sample.isSync, sample.composition + (next - sample.decode) >= run.windowEnd { qualifying += 1 }
            }
            let missing = max(0, needed - qualifying)
            if missing > 0 {
                // Exactly: appended to a full array, the spans of 20,000 runs would double.
                run.spans.reserveCapacity(run.spans.count + 1)
                run.spans.append(.keyframeCopies(spares, count: missing, from: base))
            }
            run.decodeEnd = base + Int64(missing)
            slots[index].run = run
        }
    }

    /// Puts at least one second of hidden silence, in the run's own description, before each
    /// audio run but the first (see `sampleAccurateTrack`).
    mutating func prependAudioLeadIn(_ slots: inout [RunSlot], timescale: Int32) throws(MP4Error) {
        for index in slots.indices.dropFirst() {
            var run = slots[index].run
            let file = pieces[slots[index].piece].path
            guard run.windowStart < Int64(timescale),
                  let first = try exact(file, { () throws(MediaTimeError) in try run.firstSample() }) else { continue }
            let silence = try silence(for: first.description, piece: slots[index].piece, gap: nil)
            try exact(file) { () throws(MediaTimeError) in
                let count = try silence.framesToCover(Int64(timescale) - run.windowStart, timescale: timescale)
                let length = try silence.offset(ofFrame: count, timescale: timescale)
                run.shift(by: length)
                if let frames = try RunSpan.silence(silence, count: count, from: 0, timescale: timescale, leadIn: true) {
                    run.spans.insert(frames, at: 0)
                }
            }
            slots[index].run = run
        }
    }
}
