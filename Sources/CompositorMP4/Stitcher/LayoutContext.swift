import CompositorCore
import CompositorIO

/// Turns resolved pieces into the output's tracks, edit lists and byte layout.
struct LayoutContext {
    typealias ResolvedPiece = StitchPlanner.ResolvedPiece

    let pieces: [ResolvedPiece]
    let cutMode: MP4CutMode
    let sources: [(path: FilePath, store: MP4SampleStore)]
    let videoDescriptions: StitchPlanner.DescriptionTable
    let audioDescriptions: StitchPlanner.DescriptionTable
    /// Checks the keyframes pieces start at, and reads those to be marked as splices.
    var keyframes: KeyframeReader

    /// Synthetic payloads: in-band parameter sets (first, as the video table numbers them), and
    /// silent frames, one per audio description that needed one.
    var syntheticPayloads: [[UInt8]] = []
    private var silenceByDescription: [Int: SilenceSource] = [:]
    /// Each source track's part of its spans, made once (see `RunSpan.SourceTrack`).
    private var spanSources: [SpanSourceKey: RunSpan.SourceTrack] = [:]
    private struct SpanSourceKey: Hashable {
        let source: Int
        let kind: TrackKind
    }

    init(pieces: [ResolvedPiece], cutMode: MP4CutMode, sources: [(FilePath, MP4SampleStore)],
         videoDescriptions: StitchPlanner.DescriptionTable, audioDescriptions: StitchPlanner.DescriptionTable,
         keyframes: KeyframeReader) {
        self.pieces = pieces
        self.cutMode = cutMode
        self.sources = sources.map { (path: $0.0, store: $0.1) }
        self.videoDescriptions = videoDescriptions
        self.audioDescriptions = audioDescriptions
        self.keyframes = keyframes
        syntheticPayloads = videoDescriptions.inBandPayloads
    }

    /// The shared part of the spans cut from `piece`'s source track of `kind` (whose samples
    /// are `table`).
    mutating func spanSource(_ kind: TrackKind, of piece: ResolvedPiece, table: MP4SampleTable) -> RunSpan.SourceTrack {
        let key = SpanSourceKey(source: piece.source, kind: kind)
        if let known = spanSources[key] { return known }
        let descriptions = kind == .video ? videoDescriptions : audioDescriptions
        let made = RunSpan.SourceTrack(table: table, file: piece.source, descriptions: descriptions.outputIndices(source: piece.source),
                                       inBand: descriptions.inBandParameterSets(source: piece.source))
        spanSources[key] = made
        return made
    }

    var hasVideo: Bool { pieces.contains { $0.video != nil } }
    var hasAudio: Bool { pieces.contains { $0.audio != nil } }

    mutating func makePlan() throws(MP4Error) -> MP4StitchPlan {
        let videoTimescale = try chooseVideoTimescale()
        let audioTimescale = pieces.first { $0.audio != nil }?.audio?.timescale

        var tracks: [PlacedTrack] = []
        var boundaries: [MediaTime]
        var movieTimescale: Int32
        var movieBoundaries: [Int64]

        switch cutMode {
        case .sampleAccurate:
            boundaries = try exactBoundaries()
            movieTimescale = chooseMovieTimescale(boundaries, fallback: videoTimescale ?? audioTimescale ?? 1000)
            movieBoundaries = try boundaries.map { (b) throws(MP4Error) in try exact("(composition)") { () throws(MediaTimeError) in try b.ticks(in: movieTimescale) } }
            if let videoTimescale {
                tracks.append(try sampleAccurateTrack(.video, timescale: videoTimescale, movieTimescale: movieTimescale, movieBoundaries: movieBoundaries))
            }
            if let audioTimescale {
                tracks.append(try sampleAccurateTrack(.audio, timescale: audioTimescale, movieTimescale: movieTimescale, movieBoundaries: movieBoundaries))
            }
        case .keyframeAligned, .webSafe:
            var videoTrack: PlacedTrack?
            if let videoTimescale {
                let (track, videoBoundaries) = try keyframeAlignedVideoTrack(timescale: videoTimescale)
                videoTrack = track
                boundaries = videoBoundaries
            } else {
                boundaries = try exactBoundaries()
            }
            movieTimescale = chooseMovieTimescale(boundaries, fallback: videoTimescale ?? audioTimescale ?? 1000)
            movieBoundaries = try boundaries.map { (b) throws(MP4Error) in try exact("(composition)") { () throws(MediaTimeError) in try b.ticks(in: movieTimescale) } }
            if var videoTrack {
                videoTrack.edits = try keyframeAlignedEdits(for: videoTrack, movieTimescale: movieTimescale, movieBoundaries: movieBoundaries)
                tracks.append(videoTrack)
            }
            if let audioTimescale {
                var audio = try keyframeAlignedAudioTrack(timescale: audioTimescale, boundaries: boundaries)
                audio.edits = try keyframeAlignedEdits(for: audio, movieTimescale: movieTimescale, movieBoundaries: movieBoundaries)
                tracks.append(audio)
            }
        }

        // The planner checked that every piece's video is shown alike.
        if let display = pieces.lazy.compactMap({ $0.video?.track.displayMatrix }).first {
            for index in tracks.indices where tracks[index].kind == .video { tracks[index].displayMatrix = display }
        }

        // Sample numbers and counts are 32-bit in the tables (so are chunk counts and description
        // indices, of which there are fewer): a track of more samples (thousands of pieces of a
        // source of millions) cannot be written.
        for track in tracks where track.sampleCount > Int(UInt32.max) {
            let piece = track.piece(ofSample: Int(UInt32.max)) ?? pieces.count - 1
            throw .invalidPiece(index: pieces[piece].number, file: pieces[piece].path, reason:
                "the output's \(track.kind) track would have more than the \(UInt32.max) samples an MP4 track can number")
        }

        // One plan piece per piece asked for: its parts (see `ResolvedPiece`) are consecutive.
        var planPieces: [MP4StitchPlan.Piece] = []
        planPieces.reserveCapacity(pieces.last.map { $0.number + 1 } ?? 0)
        var first = 0
        while first < pieces.count {
            let piece = pieces[first]
            var last = first
            while last + 1 < pieces.count, pieces[last + 1].number == piece.number { last += 1 }
            let parts = pieces[first...last]
            planPieces.append(MP4StitchPlan.Piece(
                path: sources[piece.source].path, requestedRange: piece.requested,
                sourceRange: MediaTimeRange(start: piece.range.start, end: pieces[last].range.end),
                compositionRange: MediaTimeRange(
                    start: MediaTime(value: movieBoundaries[first], timescale: movieTimescale),
                    end: MediaTime(value: movieBoundaries[last + 1], timescale: movieTimescale)),
                sourceHasVideo: parts.contains { $0.video != nil }, sourceHasAudio: parts.contains { $0.audio != nil }))
            first = last + 1
        }
        try keyframes.close()
        let layout = try StitchLayoutBuilder(
            tracks: tracks, sources: sources, syntheticPayloads: syntheticPayloads,
            movieTimescale: movieTimescale, movieDuration: UInt64(movieBoundaries.last!)).build()
        return MP4StitchPlan(cutMode: cutMode, pieces: planPieces, layout: layout)
    }

    // MARK: - Timescales and boundaries

    /// The least common multiple of the video sources' timescales and the timescales of the piece
    /// boundaries, so every source tick and every cut is a whole number of output ticks; when that
    /// does not fit, the largest source timescale (cuts then round to the nearest tick).
    func chooseVideoTimescale() throws(MP4Error) -> Int32? {
        let videoPieces = pieces.filter { $0.video != nil }
        guard !videoPieces.isEmpty else { return nil }
        var scales = videoPieces.map { $0.video!.timescale }
        for piece in pieces {
            scales.append(piece.range.start.reduced.timescale)
            scales.append(piece.range.end.reduced.timescale)
        }
        if let common = leastCommonMultiple(scales, limit: 1 << 26) { return common }
        return videoPieces.map { $0.video!.timescale }.max()
    }

    /// A movie timescale in which every composition boundary is a whole tick (at least 1000
    /// ticks per second); `fallback` when no such timescale fits 32 bits.
    func chooseMovieTimescale(_ boundaries: [MediaTime], fallback: Int32) -> Int32 {
        // A track that starts late in a piece has an empty edit as long as the gap: exact only
        // in a timescale that holds it (1024/12288 s in a 1000 timescale moved a frame into the piece).
        let gaps = pieces.flatMap { piece in
            [piece.video, piece.audio].compactMap { timeline in
                timeline.flatMap { $0.presentationStart > piece.range.start ? try? $0.presentationStart.subtracting(piece.range.start) : nil }
            }
        }
        return leastCommonMultiple([1000] + (boundaries + gaps).map { $0.reduced.timescale }, limit: 1 << 30) ?? fallback
    }

    /// Where each piece starts and ends in the output when every piece plays its whole range.
    func exactBoundaries() throws(MP4Error) -> [MediaTime] {
        var boundaries = [MediaTime.zero]
        for piece in pieces {
            let next = try exact(piece.path) { () throws(MediaTimeError) in try boundaries.last!.adding(try piece.range.end.subtracting(piece.range.start)) }
            boundaries.append(next)
        }
        return boundaries
    }

    // MARK: - Silence

    /// The silent frame for output audio description `description`, made once, to fill `gap`
    /// of piece `piece` (`nil`: a hidden lead-in the piece needs before it). Only AAC-LC silence
    /// can be made: for any other audio the message names the codec as it is, the gap, and the
    /// file (and track) the description comes from, which is another piece's when the piece has
    /// no audio of its own.
    mutating func silence(for description: Int, piece: Int, gap: MediaTime?) throws(MP4Error) -> SilenceSource {
        if let existing = silenceByDescription[description] { return existing }
        let entry = audioDescriptions.descriptions[description]
        let origin = audioDescriptions.origins[description]
        guard case .aac(let config) = entry.codec, let bytes = SilentAACFrame.bytes(for: config) else {
            let pieceFile = pieces[piece].path
            let number = pieces[piece].number
            let whose = pieceFile == origin.file ? "piece \(number)" : "piece \(number) (\(pieceFile))"
            let what = if case .aac(let config) = entry.codec {
                "AAC of audio object type \(config.coreObjectType) with channel configuration \(config.channelConfiguration)"
            } else {
                entry.codecIdentity.description
            }
            let need = if let gap {
                "\(whose) has no audio for \(gap) s, to be filled with silence"
            } else {
                "\(whose) needs a hidden lead-in of silence (its track has several sample descriptions)"
            }
            throw .unsupported(file: origin.file, boxPath: origin.trackPath, offset: origin.trackOffset,
                               reason: "\(need), which the stitcher makes only in AAC-LC with 1 to 8 channels; this audio is \(what). "
                                   + "Cut where the source has audio, or give the pieces AAC audio")
        }
        guard config.sampleRate > 0 else {
            throw .malformed(file: origin.file, boxPath: origin.trackPath, offset: origin.trackOffset,
                             reason: "the AAC configuration's sample rate is 0")
        }
        syntheticPayloads.append(bytes)
        // A sample rate is at most 24 bits (AudioSpecificConfig's explicit rate), so it fits Int32.
        let source = SilenceSource(payload: syntheticPayloads.count - 1, size: UInt32(bytes.count), description: description,
                                   samplesPerFrame: Int64(config.samplesPerFrame), sampleRate: Int32(config.sampleRate))
        silenceByDescription[description] = source
        return source
    }

    /// The most silent frames one fill may take: about 90 minutes at 48 kHz (9 hours at 8 kHz).
    /// Silence is not backed by bytes of the source but by a duration it claims (an edit list, a
    /// frame that lasts hours), and each frame costs memory and table entries until the file is
    /// written: a longer fill is refused, not attempted.
    static let maximumSilentFrames: Int64 = 1 << 18

    /// Throws unless `count` silent frames, to fill `gap` ticks of piece `piece`, are within
    /// `maximumSilentFrames`.
    func checkSilence(_ count: Int64, piece: Int, timescale: Int32, gap: Int64) throws(MP4Error) {
        guard count <= Self.maximumSilentFrames else {
            throw .invalidPiece(index: pieces[piece].number, file: pieces[piece].path, reason:
                "its audio is missing for \(MediaTime(value: gap, timescale: timescale)) s: filling that with silence takes "
                + "\(count) frames, more than the \(Self.maximumSilentFrames) the stitcher makes")
        }
    }

    /// The audio description to make silence with for a piece whose source has no audio: the
    /// nearest earlier piece's, else the nearest later one's.
    func borrowedAudioDescription(for pieceIndex: Int) -> (description: Int, file: String)? {
        let order = (0..<pieceIndex).reversed() + Array((pieceIndex + 1)..<pieces.count)
        for index in order {
            guard let audio = pieces[index].audio else { continue }
            let sourceDescription = Int(audio.samples.descriptionIndices[0])
            return (audioDescriptions.outputIndex(source: pieces[index].source, description: sourceDescription), pieces[index].path)
        }
        return nil
    }
}

/// Runs a time computation of the plan, reporting overflow against `file` (a piece's).
func exact<T>(_ file: String, _ body: () throws(MediaTimeError) -> T) throws(MP4Error) -> T {
    do { return try body() } catch {
        if case .overflow(let what) = error { throw .timeOverflow(file: file, reason: what) }
        throw .timeOverflow(file: file, reason: error.description)
    }
}

/// The least common multiple of `values`, or `nil` when it passes `limit`.
func leastCommonMultiple(_ values: [Int32], limit: Int64) -> Int32? {
    var result: Int64 = 1
    for value in Set(values) where value > 0 {
        let divisor = Int64(gcd(UInt64(result), UInt64(value)))
        let (product, overflow) = (result / divisor).multipliedReportingOverflow(by: Int64(value))
        guard !overflow, product <= limit else { return nil }
        result = product
    }
    return Int32(result)
}
