import CompositorCore

/// Decides everything about a stitched MP4 before writing: which samples of which source go
/// where, the output timescales, edit lists and chunk layout. Knows nothing about ads: it joins
/// pieces of files.
struct StitchPlanner {
    let pieces: [MP4StitchPiece]
    let cutMode: MP4CutMode

    /// A piece with its source read and its range checked (and, when keyframe-aligned, snapped).
    struct ResolvedPiece {
        let index: Int
        let source: Int
        let path: String
        let requested: MediaTimeRange
        var range: MediaTimeRange
        let video: SourceTrackTimeline?
        let audio: SourceTrackTimeline?
    }

    /// The distinct sample descriptions of one output track, and which source description maps
    /// to which.
    struct DescriptionTable {
        let kind: TrackKind
        init(kind: TrackKind) { self.kind = kind }
        var descriptions: [MP4SampleDescription] = []
        private var indexBySource: [Int: [Int]] = [:]
        private var first: (codec: FourCC, file: String)?

        /// Registers every description of `track` (from source `source`), checking the codec.
        mutating func add(_ track: MP4Track, source: Int, file: String) throws(MP4Error) {
            guard indexBySource[source] == nil else { return }
            var indices: [Int] = []
            for description in track.sampleDescriptions {
                if let first, first.codec != description.codecFamily {
                    throw .codecMismatch(track: kind, codec: first.codec.description, file: first.file,
                                         otherCodec: description.codecFamily.description, otherFile: file)
                }
                if first == nil { first = (description.codecFamily, file) }
                if let existing = descriptions.firstIndex(where: { $0.bytes == description.bytes }) {
                    indices.append(existing)
                } else {
                    descriptions.append(description)
                    indices.append(descriptions.count - 1)
                }
            }
            indexBySource[source] = indices
        }

        /// The output index of source `source`'s description `index`.
        func outputIndex(source: Int, description index: Int) -> Int { indexBySource[source]![index] }
    }

    func makePlan() throws(MP4Error) -> MP4StitchPlan {
        guard !pieces.isEmpty else {
            throw .invalidPiece(index: 0, file: "(none)", reason: "nothing to stitch: the list of pieces is empty")
        }
        // Read each source once.
        var sourceIndex: [FilePath: Int] = [:]
        var movies: [MP4Movie] = []
        for piece in pieces where sourceIndex[piece.path] == nil {
            sourceIndex[piece.path] = movies.count
            movies.append(try MP4Reader.read(path: piece.path))
        }

        var resolved: [ResolvedPiece] = []
        for (index, piece) in pieces.enumerated() {
            let source = sourceIndex[piece.path]!
            resolved.append(try resolve(piece, index: index, source: source, movie: movies[source]))
        }
        if cutMode == .keyframeAligned {
            for index in resolved.indices { try snapToKeyframes(&resolved[index]) }
        }

        var videoTable = DescriptionTable(kind: .video)
        var audioTable = DescriptionTable(kind: .audio)
        for piece in resolved {
            if let video = piece.video { try videoTable.add(video.track, source: piece.source, file: piece.path.description) }
            if let audio = piece.audio { try audioTable.add(audio.track, source: piece.source, file: piece.path.description) }
        }

        var context = LayoutContext(pieces: resolved, cutMode: cutMode,
                                    sources: movies.map { ($0.path, $0.fileVersion) },
                                    videoDescriptions: videoTable, audioDescriptions: audioTable)
        return try context.makePlan()
    }

    /// Checks a piece against its source and finds the tracks it uses.
    private func resolve(_ piece: MP4StitchPiece, index: Int, source: Int, movie: MP4Movie) throws(MP4Error) -> ResolvedPiece {
        let range = piece.range
        func invalid(_ reason: String) -> MP4Error { .invalidPiece(index: index, file: piece.path.description, reason: reason) }
        guard !range.start.isNegative else { throw invalid("the range \(range) starts before 0") }
        guard !range.isEmpty else { throw invalid("the range \(range) is empty") }
        let natural = movie.naturalDuration
        guard range.end <= natural else {
            throw invalid("the range \(range) ends past the source's duration of \(natural) s")
        }
        let video = try movie.videoTrack.map { (track) throws(MP4Error) in try SourceTrackTimeline(track: track, file: piece.path.description) }
        let audio = try movie.audioTrack.map { (track) throws(MP4Error) in try SourceTrackTimeline(track: track, file: piece.path.description) }
        guard video != nil || audio != nil else { throw invalid("the source has neither a video nor an audio track") }
        for timeline in [video, audio].compactMap({ $0 }) where timeline.samples.count == 0 {
            throw .malformed(file: piece.path.description, boxPath: timeline.track.boxPath, offset: timeline.track.boxOffset,
                             reason: "the track has no samples")
        }
        return ResolvedPiece(index: index, source: source, path: piece.path.description, requested: range, range: range,
                             video: video, audio: audio)
    }

    /// Moves the piece's range to keyframes (see `MP4CutMode.keyframeAligned`).
    private func snapToKeyframes(_ piece: inout ResolvedPiece) throws(MP4Error) {
        guard let video = piece.video else { return }
        do {
            let samples = video.samples
            let requested = piece.range
            let mediaStartTime = MediaTime(value: video.mediaStart, timescale: video.timescale)
            // Keyframes that present inside the track's presentation, by presentation time.
            var keyframeTimes: [MediaTime] = []
            for index in 0..<samples.count where samples.isSync(index) {
                let cts = video.compositionTime(index)
                guard cts >= mediaStartTime else { continue }
                keyframeTimes.append(try video.presentationTime(ofMedia: cts))
            }
            keyframeTimes.sort()
            var start = requested.start
            if requested.start >= video.presentationStart {
                if let atOrBefore = keyframeTimes.last(where: { $0 <= requested.start }) {
                    start = atOrBefore
                } else if let first = keyframeTimes.first, first < video.presentationEnd {
                    start = first
                }
            }
            var end = requested.end
            if requested.end < video.presentationEnd {
                let boundaries = keyframeTimes + [video.presentationEnd]
                if let floor = boundaries.last(where: { $0 <= requested.end && $0 > start }) {
                    end = floor
                } else if let ceiling = boundaries.first(where: { $0 > start }) {
                    end = ceiling
                }
            }
            piece.range = MediaTimeRange(start: start, end: end)
        } catch {
            throw .timeOverflow(file: piece.path.description, reason: error.description)
        }
    }
}
