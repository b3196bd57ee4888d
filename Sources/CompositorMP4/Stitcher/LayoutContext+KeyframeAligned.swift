import CompositorCore

/// Keyframe-aligned cuts: samples back to back, no hidden video, one edit per track.
extension LayoutContext {
    /// Places each piece's video where the previous one ends; returns the track and the
    /// composition boundaries (piece starts, then the end) it implies.
    mutating func keyframeAlignedVideoTrack(timescale: Int32) throws(MP4Error) -> (PlacedTrack, [MediaTime]) {
        var track = PlacedTrack(kind: .video, timescale: timescale, descriptions: videoDescriptions.descriptions)
        track.reserveCapacity(runs: pieces.count)
        var boundaryTicks: [Int64] = [0]
        // Every boundary, piece length, gap and run is within `maximumTrackTicks`, so no sum overflows.
        let limit = Self.maximumTrackTicks
        for (index, piece) in pieces.enumerated() {
            let start = boundaryTicks[index]
            let pieceTicks = try exact(piece.path) { () throws(MediaTimeError) in try piece.range.end.subtracting(piece.range.start).ticks(in: timescale) }
            guard pieceTicks <= limit else { throw tooLong(track, piece: index) }
            // Without video here, the previous frame is held to the piece's end (its duration runs
            // to the next sample).
            var end = start + pieceTicks
            if let timeline = piece.video, let window = try window(of: piece, in: timeline) {
                let gapTicks = try exact(piece.path) { () throws(MediaTimeError) in try window.leadingGap.ticks(in: timescale) }
                guard gapTicks <= limit else { throw tooLong(track, piece: index) }
                let (run, _) = try videoRun(piece, timeline, window: window, windowLength: pieceTicks - gapTicks, timescale: timescale)
                try checkSpan(of: run, in: track, piece: index)
                // Where the source changes media segment inside the piece, frames it needed only to
                // decode (and hid) would show here.
                if index + 1 < pieces.count, pieces[index + 1].number == piece.number, run.maxComposition >= run.windowEnd {
                    throw StitchPlanner.splitInsideGOP(piece, at: piece.range.end)
                }
                // A source whose frames outlast the snapped range (irregular timing) pushes the next piece.
                let runStart = start + gapTicks
                track.append(run, at: runStart, piece: index)
                end = max(end, runStart + run.decodeEnd)
            }
            guard end <= limit else { throw tooLong(track, piece: index) }
            boundaryTicks.append(end)
        }
        track.mediaEnd = boundaryTicks.last!
        // Media time starts at the first sample (decode times in a file always do): video that
        // starts late is delayed by an empty edit instead (see `keyframeAlignedEdits`).
        if let start = track.runStarts.first, start > 0 {
            track.shift(by: -start)
            track.presentationDelay = start
        }
        let boundaries = boundaryTicks.map { MediaTime(value: $0, timescale: timescale) }
        return (track, boundaries)
    }

    /// Whole audio frames per piece, chosen so the audio's running end stays within half a frame
    /// of the video's boundaries: no drift, however many pieces. Each piece starts at the frame
    /// nearest its (snapped) start, after silence for as long as its audio (or that frame) starts late; silence
    /// makes up for audio that is missing or too short. Silence is made only where a whole frame
    /// is missing, so audio that needs none may be in any codec.
    mutating func keyframeAlignedAudioTrack(timescale: Int32, boundaries: [MediaTime]) throws(MP4Error) -> PlacedTrack {
        var track = PlacedTrack(kind: .audio, timescale: timescale, descriptions: audioDescriptions.descriptions)
        track.reserveCapacity(runs: pieces.count)
        // With the composition within `maximumTrackTicks`, so is every target, and no sum overflows.
        let composition = try exact(pieces[pieces.count - 1].path) { () throws(MediaTimeError) in try boundaries[pieces.count].ticks(in: timescale) }
        guard composition <= Self.maximumTrackTicks else { throw tooLong(track, piece: pieces.count - 1) }
        // An Opus decoder discards its `PreSkip` samples at the start of the stream: the first
        // frame's first `PreSkip` samples present before time 0, hidden by the edit (as in the
        // source), and every boundary is that much later in the media.
        let hidden = try audioDescriptions.descriptions.first?.opusPreSkip.map { (preSkip) throws(MP4Error) in
            try exact(pieces[0].path) { () throws(MediaTimeError) in
                try MediaTime(value: Int64(preSkip), timescale: 48000).ticks(in: timescale, rounding: .toNearestOrAwayFromZero)
            }
        } ?? 0
        track.hiddenLead = hidden
        var end: Int64 = 0
        for (index, piece) in pieces.enumerated() {
            let target = try exact(piece.path) { () throws(MediaTimeError) in try boundaries[index + 1].ticks(in: timescale) } + hidden - end
            var run = TrackRun(spans: [], decodeEnd: 0, windowStart: 0, windowLength: 0)
            // The length of a frame of the piece's own audio: gaps shorter than half of it need no silence.
            var frameLength: Int64?
            var description: Int
            if let timeline = piece.audio, let window = try window(of: piece, in: timeline) {
                let table = timeline.samples
                let ts = timeline.timescale
                let convert = TickConverter(from: ts, to: timescale)
                let (start, endCeiling, lead) = try exact(piece.path) { () throws(MediaTimeError) in
                    // The first piece's first frame starts its hidden lead before the piece does.
                    let hiddenHere = MediaTime(value: end == 0 ? hidden : 0, timescale: timescale)
                    return (try timeline.mediaTime(at: window.start).subtracting(hiddenHere),
                            try timeline.mediaTime(at: window.end).ticks(in: ts, rounding: .up),
                            try window.leadingGap.ticks(in: timescale))
                }
                // The first frame whose middle is at or after the start (in ticks, twice over: a
                // frame's middle may fall between two).
                let doubledStart = try exact(piece.path) { () throws(MediaTimeError) in try start.multiplied(by: 2).ticks(in: ts, rounding: .up) }
                let first = table.firstSample { 2 * table.compositionTime($0) + Int64(table.durations[$0]) >= doubledStart }
                description = audioDescriptions.outputIndex(source: piece.source, description: Int(table.descriptionIndices[first ?? 0]))
                if let first {
                    frameLength = try exact(piece.path) { () throws(MediaTimeError) in try convert.convert(Int64(table.durations[first])) }
                    // Audio that starts after the piece does keeps its place: silence until then. So
                    // does a first frame that starts well inside the piece because the one before it
                    // is stretched over a gap (ffmpeg's fragmented MP4s time the first AAC frame to
                    // last until the second: 5024 ticks for 1024 samples).
                    let late = try exact(piece.path) { () throws(MediaTimeError) in
                        try MediaTime.max(.zero, try MediaTime(value: table.compositionTime(first), timescale: ts).subtracting(start))
                            .ticks(in: timescale, rounding: .toNearestOrAwayFromZero)
                    }
                    try appendSilence(to: &run, until: min(lead + late, target), frameLength: frameLength, description: description,
                                      piece: index, timescale: timescale, leadIn: true)
                    let sourceStart = run.decodeEnd
                    var sample = first
                    while sample < table.count, table.compositionTime(sample) < endCeiling {
                        let (decode, duration) = try exact(piece.path) { () throws(MediaTimeError) in
                            (try convert.convert(table.decodeTimes[sample] - table.decodeTimes[first]),
                             try convert.convert(table.decodeTimes[sample] + Int64(table.durations[sample]) - table.decodeTimes[first]))
                        }
                        // Take the frame if most of it falls before the piece's end.
                        guard sourceStart + decode + (duration - decode) / 2 < target else { break }
                        description = audioDescriptions.outputIndex(source: piece.source, description: Int(table.descriptionIndices[sample]))
                        run.decodeEnd = sourceStart + duration
                        frameLength = duration - decode
                        sample += 1
                    }
                    if sample > first {
                        let track = spanSource(.audio, of: piece, table: table)
                        var frames = try exact(piece.path) { () throws(MediaTimeError) in
                            try RunSpan.source(RunSpan.SourceSamples(
                                source: track, range: first..<sample, convert: convert,
                                decodeBase: table.decodeTimes[first], compositionBase: 0, sync: .allPresentingAtDecodeTime))
                        }
                        frames.shift(by: sourceStart)
                        run.spans.append(frames)
                    }
                }
            } else if let own = piece.audio {
                // The source has audio, but none inside the range: silence in its own description.
                description = audioDescriptions.outputIndex(source: piece.source, description: Int(own.samples.descriptionIndices[0]))
            } else if let borrowed = borrowedAudioDescription(for: index) {
                description = borrowed.description
            } else {
                throw .invalidPiece(index: piece.number, file: piece.path, reason: "no piece has audio to make silence with")
            }
            // Silence for what the source could not cover.
            try appendSilence(to: &run, until: target, frameLength: frameLength, description: description,
                              piece: index, timescale: timescale, leadIn: false)
            run.windowLength = run.decodeEnd
            track.append(run, at: end, piece: index)
            end += run.decodeEnd
        }
        track.mediaEnd = max(end, composition + hidden)
        return track
    }

    /// Appends the silent frames whose middle falls before `target` to `run`. None are made (and
    /// none need to be possible) when the gap is at most half of `frameLength`, the length of the
    /// piece's own frames.
    private mutating func appendSilence(to run: inout TrackRun, until target: Int64, frameLength: Int64?, description: Int,
                                        piece: Int, timescale: Int32, leadIn: Bool) throws(MP4Error) {
        let gap = target - run.decodeEnd
        guard gap > 0, gap > (frameLength ?? 0) / 2 else { return }
        let silence = try self.silence(for: description, piece: piece, gap: MediaTime(value: gap, timescale: timescale))
        // At most one frame past those that cover the gap qualifies, so the search starts just
        // before that many (never from 0, which would take as long as the gap is long).
        let covering = try exact(pieces[piece].path) { () throws(MediaTimeError) in try silence.framesToCover(gap, timescale: timescale) }
        try checkSilence(covering, piece: piece, timescale: timescale, gap: gap)
        try exact(pieces[piece].path) { () throws(MediaTimeError) in
            let length = run.decodeEnd
            var count = max(0, covering - 2)
            while true {
                let frameStart = length + (try silence.offset(ofFrame: count, timescale: timescale))
                let frameEnd = length + (try silence.offset(ofFrame: count + 1, timescale: timescale))
                guard frameStart + (frameEnd - frameStart) / 2 < target else { break }
                count += 1
            }
            if let frames = try RunSpan.silence(silence, count: count, from: length, timescale: timescale, leadIn: leadIn) {
                run.spans.append(frames)
            }
            run.decodeEnd = length + (try silence.offset(ofFrame: count, timescale: timescale))
        }
    }

    /// One edit showing the whole media from its first composition time, after an empty edit
    /// while the track has not started (pieces without it at the start).
    func keyframeAlignedEdits(for track: PlacedTrack, movieTimescale: Int32, movieBoundaries: [Int64]) throws(MP4Error) -> [MP4EditListEntry] {
        let total = UInt64(movieBoundaries.last!)
        guard let minComposition = track.minComposition else { return [MP4EditListEntry(segmentDuration: total, mediaTime: nil)] }
        let firstComposition = max(0, minComposition)
        let lead = UInt64(try exact(pieces[0].path) { () throws(MediaTimeError) in
            try MediaTime(value: track.presentationDelay, timescale: track.timescale).ticks(in: movieTimescale)
        })
        var edits: [MP4EditListEntry] = []
        if lead > 0 { edits.append(MP4EditListEntry(segmentDuration: lead, mediaTime: nil)) }
        // The delay ends at the first sample, which starts no later than the last boundary, and
        // both are rounded alike: `lead <= total`. The subtraction is checked all the same.
        edits.append(MP4EditListEntry(segmentDuration: total - min(lead, total), mediaTime: firstComposition + track.hiddenLead))
        return edits
    }
}
