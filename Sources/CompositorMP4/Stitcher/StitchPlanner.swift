import CompositorCore

/// Decides everything about a stitched MP4 before writing: which samples of which source go
/// where, the output timescales, edit lists and chunk layout. Knows nothing about ads: it joins
/// pieces of files.
struct StitchPlanner {
    let pieces: [MP4StitchPiece]
    let cutMode: MP4CutMode
    /// Shared by all the sources: memory is bounded per render, not per source.
    var sampleBudget: MP4SampleBudget
    /// MP4 sources read before, by path (see `MP4Stitcher.movies`).
    let readBefore: [FilePath: MP4Movie]
    /// What to call sources, by path (see `MP4Stitcher.names`).
    let names: [FilePath: String]

    /// A piece with its source read and its range checked (and, when keyframe-aligned, snapped);
    /// or a part of one, where its source's edit list changes media segment (a source that is
    /// itself a stitch), each part showing one segment of each track.
    struct ResolvedPiece {
        /// Where it is in the resolved list.
        let index: Int
        /// The piece it is (a part of), as the caller numbered it: for messages.
        let number: Int
        let source: Int
        let path: String
        let requested: MediaTimeRange
        var range: MediaTimeRange
        let video: SourceTrackTimeline?
        let audio: SourceTrackTimeline?
    }

    mutating func makePlan() throws(MP4Error) -> MP4StitchPlan {
        guard !pieces.isEmpty else {
            throw .invalidPiece(index: 0, file: "(none)", reason: "nothing to stitch: the list of pieces is empty")
        }
        // Read each source once.
        var sourceIndex: [MP4StitchPiece.Source: Int] = [:]
        var movies: [MP4Movie] = []
        // Each source's name and timelines, found once: every piece cut from a source shares them.
        var files: [String] = []
        var timelines: [SourceTimelines] = []
        var sourceOfPiece: [Int] = []
        for piece in pieces {
            if let known = sourceIndex[piece.source] {
                sourceOfPiece.append(known)
                continue
            }
            let movie: MP4Movie
            switch piece.source {
            case .mp4(let path):
                if let read = readBefore[path] {
                    try sampleBudget.charge(read)
                    movie = read
                } else {
                    movie = try MP4Reader.read(path: path, budget: &sampleBudget)
                }
            case .hls(let source, let audio):
                movie = try MP4Reader.read(source, audioRendition: audio, budget: &sampleBudget)
            }
            movies.append(movie)
            files.append(names[piece.path] ?? piece.path.description)
            timelines.append(try SourceTimelines(of: movie, file: files[files.count - 1]))
            sourceIndex[piece.source] = movies.count - 1
            sourceOfPiece.append(movies.count - 1)
        }

        var resolved: [ResolvedPiece] = []
        resolved.reserveCapacity(pieces.count)
        for (number, (piece, source)) in zip(pieces, sourceOfPiece).enumerated() {
            resolved += try resolve(piece, number: number, firstIndex: resolved.count, source: source, file: files[source],
                                    movie: movies[source], timelines: timelines[source])
        }
        var keyframes = KeyframeReader(sources: movies.map(\.store))
        if cutMode.alignsToKeyframes {
            for index in resolved.indices {
                if let video = resolved[index].video, video.isDwell { throw Self.dwellNeedsHiddenFrames(resolved[index], video) }
                let unsnapped = resolved[index].range
                try snapToKeyframes(&resolved[index], keyframes: &keyframes)
                try checkInnerBoundaries(resolved, at: index, unsnapped: unsnapped)
            }
        }

        // One video track has one display matrix: every piece's video must be shown the same way.
        if let first = resolved.first(where: { $0.video != nil }), let display = first.video?.track.displayMatrix {
            for piece in resolved {
                guard let other = piece.video?.track.displayMatrix, !other.showsAlike(display) else { continue }
                throw .displayMismatch(file: first.path, display: display.description, otherFile: piece.path, otherDisplay: other.description)
            }
        }

        var videoTable = DescriptionTable(kind: .video)
        var audioTable = DescriptionTable(kind: .audio)
        for piece in resolved {
            if let video = piece.video { try videoTable.add(video.track, source: piece.source, file: piece.path.description) }
            if let audio = piece.audio { try audioTable.add(audio.track, source: piece.source, file: piece.path.description) }
        }
        if cutMode == .webSafe {
            try videoTable.mergeIntoOne()
            try audioTable.mergeIntoOne()
        }

        var context = LayoutContext(pieces: resolved, cutMode: cutMode,
                                    sources: movies.map { ($0.path, $0.store) },
                                    videoDescriptions: videoTable, audioDescriptions: audioTable, keyframes: keyframes)
        var plan = try context.makePlan()
        var noted = Set<Int>()
        plan.diagnostics = MP4StitchDiagnostic.notes(for: resolved.compactMap { piece in
            guard let video = piece.video, noted.insert(piece.source).inserted else { return nil }
            return (piece.path, video.track)
        })
        return plan
    }

    /// Checks a piece against its source and finds the tracks it uses: one resolved piece, or
    /// one per media segment it spans where the source's edit list has several (each part then
    /// shows one segment of each track; a part in a gap between segments shows none).
    private func resolve(_ piece: MP4StitchPiece, number: Int, firstIndex: Int, source: Int, file: String,
                         movie: MP4Movie, timelines: SourceTimelines) throws(MP4Error) -> [ResolvedPiece] {
        let range = piece.range
        func invalid(_ reason: String) -> MP4Error { .invalidPiece(index: number, file: file, reason: reason) }
        guard !range.start.isNegative else { throw invalid("the range \(range) starts before 0") }
        guard !range.isEmpty else { throw invalid("the range \(range) is empty") }
        let natural = movie.naturalDuration
        guard range.end <= natural else {
            throw invalid("the range \(range) ends past the source's duration of \(natural) s")
        }
        let (video, audio) = (timelines.video, timelines.audio)
        guard video != nil || audio != nil else { throw invalid("the source has no video or audio track with samples") }
        // Parts split where a track with several segments changes segment.
        var cuts = Set<MediaTime>()
        for timelines in [video, audio].compactMap({ $0 }) where timelines.count > 1 {
            for timeline in timelines {
                cuts.insert(timeline.presentationStart)
                cuts.insert(timeline.presentationEnd)
            }
        }
        let bounds = [range.start] + cuts.filter { range.start < $0 && $0 < range.end }.sorted() + [range.end]
        // Each part copies its own lead-in (a GOP of video): a tiny file of many short edits must
        // not make a render of millions of runs.
        guard bounds.count - 1 <= Self.maximumPartsPerPiece else {
            let track = [video, audio].compactMap { $0 }.first { $0.count > 1 }?.first?.track
            throw .unsupported(file: file, boxPath: track.map { $0.boxPath + "/edts/elst" } ?? "moov",
                               offset: track.map { $0.editListOffset ?? $0.boxOffset } ?? 0,
                               reason: "piece \(number) spans \(bounds.count - 1) media segments of the edit list, more than the "
                                   + "\(Self.maximumPartsPerPiece) one piece may; cut it into smaller pieces")
        }
        // Each part takes the segment showing it, else (in a gap) the next one, else the last: a
        // segment that shows nothing of it. Parts and segments are both in time order, so one
        // cursor per track finds them (an edit list may have millions of entries).
        var cursors = (video: 0, audio: 0)
        func segment(_ timelines: [SourceTrackTimeline]?, for part: MediaTimeRange, cursor: inout Int) -> SourceTrackTimeline? {
            guard let timelines else { return nil }
            while cursor + 1 < timelines.count, timelines[cursor].presentationEnd <= part.start { cursor += 1 }
            return timelines[cursor]
        }
        return zip(bounds, bounds.dropFirst()).enumerated().map { offset, bound in
            let part = MediaTimeRange(start: bound.0, end: bound.1)
            return ResolvedPiece(index: firstIndex + offset, number: number, source: source, path: file, requested: range, range: part,
                                 video: segment(video, for: part, cursor: &cursors.video),
                                 audio: segment(audio, for: part, cursor: &cursors.audio))
        }
    }

    /// A source's video and audio timelines (see `SourceTrackTimeline.timelines`); `nil` for a
    /// track it lacks.
    struct SourceTimelines {
        let video: [SourceTrackTimeline]?
        let audio: [SourceTrackTimeline]?

        init(of movie: MP4Movie, file: String) throws(MP4Error) {
            func timelines(of track: MP4Track?) throws(MP4Error) -> [SourceTrackTimeline]? {
                guard let track else { return nil }
                let timelines = try SourceTrackTimeline.timelines(of: track, file: file)
                guard !timelines.isEmpty else {
                    throw .unsupported(file: file, boxPath: track.boxPath + "/edts/elst", offset: track.editListOffset ?? track.boxOffset,
                                       reason: "an edit list of empty edits only: the track shows nothing")
                }
                return timelines
            }
            video = try timelines(of: movie.videoTrack)
            audio = try timelines(of: movie.audioTrack)
        }
    }

    /// The most parts one piece is cut into (see `resolve`).
    static let maximumPartsPerPiece = 1 << 16

    /// Keyframe-aligned cuts show whole GOPs and hide nothing: where a source's media segment
    /// changes inside a piece, the next segment must start on a keyframe, or its leading frames
    /// would show. Throws unless snapping left the part's inner boundaries where they were.
    private func checkInnerBoundaries(_ resolved: [ResolvedPiece], at index: Int, unsnapped: MediaTimeRange) throws(MP4Error) {
        let part = resolved[index]
        if index > 0, resolved[index - 1].number == part.number, part.range.start != unsnapped.start {
            throw Self.splitInsideGOP(part, at: unsnapped.start)
        }
        if index + 1 < resolved.count, resolved[index + 1].number == part.number, part.range.end != unsnapped.end {
            throw Self.splitInsideGOP(part, at: unsnapped.end)
        }
    }

    /// Part `part` of a piece (see `ResolvedPiece`) would show frames its source hides at `time`,
    /// where the source changes media segment inside a GOP.
    static func splitInsideGOP(_ part: ResolvedPiece, at time: MediaTime) -> MP4Error {
        let track = part.video?.track
        return .unsupported(file: part.path, boxPath: track.map { $0.boxPath + "/edts/elst" } ?? "moov",
                            offset: track.map { $0.editListOffset ?? $0.boxOffset } ?? 0,
                            reason: "piece \(part.number) spans the edit at \(time) s, where its source's video changes media segment "
                                + "inside a GOP: keyframe-aligned cuts hide no frames, so cut there, or use sample-accurate cuts")
    }

    /// Part `part` of a piece shows a dwell of its source (`video`): a frame that is rarely a
    /// keyframe, held, which keyframe-aligned cuts (whole GOPs, nothing hidden) cannot show.
    static func dwellNeedsHiddenFrames(_ part: ResolvedPiece, _ video: SourceTrackTimeline) -> MP4Error {
        let held = MediaTime(value: video.mediaStart, timescale: video.timescale)
        return .unsupported(file: part.path, boxPath: video.track.boxPath + "/edts/elst", offset: video.track.editListOffset ?? video.track.boxOffset,
                            reason: "piece \(part.number) shows a dwell of its source (the frame at media time \(held) s held from "
                                + "\(video.presentationStart) s to \(video.presentationEnd) s, an edit at media rate 0): keyframe-aligned cuts "
                                + "show whole GOPs and hide nothing, so they cannot hold one frame; use sample-accurate cuts, "
                                + "or cut around the dwell")
    }

    /// Moves the piece's range to keyframes where decoding can start (see
    /// `MP4CutMode.keyframeAligned` and `DecodeStart`): the start to the last at or before it
    /// (else the first), the end to the last at or before it and after both starts (else the
    /// first after them, else the end of the video). An end keyframe that frames shown before it
    /// follow in decode order (an open GOP's leading pictures, which would be cut off) is refused.
    private func snapToKeyframes(_ piece: inout ResolvedPiece, keyframes: inout KeyframeReader) throws(MP4Error) {
        guard let video = piece.video else { return }
        let samples = video.samples
        let requested = piece.range
        typealias Keyframe = KeyframeReader.Keyframe
        // Samples flagged sync that present inside the track's presentation, by presentation time.
        let inside: ArraySlice<Keyframe>
        do {
            let all = try keyframes.keyframeTimes(in: video, source: piece.source)
            inside = all[..<all.partitioningIndex { $0.time >= video.presentationEnd }]
        } catch {
            throw .timeOverflow(file: piece.path.description, reason: error.description)
        }
        /// Of `list`, the last at or before `time` where decoding can start, else the first after it.
        func decodeStart(nearest time: MediaTime, in list: ArraySlice<Keyframe>) throws(MP4Error) -> Keyframe? {
            let split = list.partitioningIndex { $0.time > time }
            return try keyframes.nearestStart(among: list.lazy.map(\.sample), split: split, of: video, source: piece.source).map { list[$0] }
        }

        var start = requested.start
        if requested.start >= video.presentationStart, let keyframe = try decodeStart(nearest: requested.start, in: inside) {
            start = keyframe.time
        }
        var end = requested.end
        if requested.end < video.presentationEnd {
            // After the requested start too: a start moved back over pictures flagged sync where
            // decoding cannot start must not end the piece before the time asked for.
            let earliest = MediaTime.max(start, requested.start)
            let after = inside[inside.partitioningIndex { $0.time > earliest }...]
            if let keyframe = try decodeStart(nearest: requested.end, in: after) {
                // Its leading pictures (an open GOP's) show before it but decode after it.
                let cts = samples.compositionTime(keyframe.sample)
                let next = keyframe.sample + 1
                guard !(next..<min(samples.count, next + Self.leadingPictureSearch)).contains(where: { samples.compositionTime($0) < cts }) else {
                    let track = video.track
                    throw .unsupported(file: piece.path, boxPath: track.boxPath, offset: track.boxOffset, reason:
                        "piece \(piece.number) would end at its source's keyframe at \(keyframe.time) s, but frames shown before "
                        + "that keyframe are decoded after it (an open GOP's leading pictures), so a keyframe-aligned cut "
                        + "cannot end there: use sample-accurate cuts, or end the piece where its source ends")
                }
                end = keyframe.time
            } else {
                end = video.presentationEnd
            }
        }
        piece.range = MediaTimeRange(start: start, end: end)
    }

    /// How far after a keyframe (in decode order) its leading pictures are looked for: more than
    /// any decoder's reordering depth (H.264 and HEVC allow at most 16 pictures).
    static let leadingPictureSearch = 32
}
