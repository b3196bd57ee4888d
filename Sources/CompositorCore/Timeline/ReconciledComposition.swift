/// A composition as scheduled and as an output really plays it once its cuts are made: exact
/// (a sample-accurate render), moved to keyframes, or moved to segment boundaries (a stitched
/// playlist). Both exports return one, and a player of either output maps its times through it.
///
/// ```
/// requested |feature 0-8.5        |ad 0-6|feature 8.5-20  |
/// played    |feature 0-8      |ad 0-6|feature 8-20        |   (cuts on 2 s keyframes)
///  requested 3 -> 3;  8.5 (ad start) -> 8;  16 (content 10) -> 16 (content 10)
/// ```
///
/// Segment `i` of `played` is segment `i` of `requested`, from the same source; only source ranges
/// (and so composition ranges and break positions) differ.
public struct ReconciledComposition: Sendable, Equatable {
    /// The composition as scheduled (exact cuts): what was given to the export.
    public let requested: Composition
    /// The composition the output plays: `requested` with every cut where the output made it, so
    /// `timeline` and mapping on it are exact for the output.
    public let played: Composition

    /// An output that made every cut as scheduled: `played` is `requested`.
    ///
    /// - Parameter composition: The composition, as scheduled and as played.
    public init(unchanged composition: Composition) {
        requested = composition
        played = composition
    }

    /// Reconciles `requested` with the cuts an output made: `played` is `requested` with each
    /// segment's source range replaced by `playedSourceRanges` (see
    /// `Composition.replacingSourceRanges(_:)`).
    ///
    /// - Parameters:
    ///   - requested: The composition as scheduled.
    ///   - playedSourceRanges: The source range each segment really plays, one per segment in order.
    /// - Throws: The `ScheduleError` of ranges that make no valid composition (a range emptied by
    ///   snapping, another count of ranges).
    public init(requested: Composition, playedSourceRanges: [MediaTimeRange]) throws(ScheduleError) {
        self.requested = requested
        played = try requested.replacingSourceRanges(playedSourceRanges)
    }

    /// Reconciles `requested` with the cuts an output made and checks where it placed them: as
    /// `init(requested:playedSourceRanges:)`, and each segment must be where the output put it on
    /// its own timeline (`placedRanges`).
    ///
    /// - Parameters:
    ///   - requested: The composition as scheduled.
    ///   - playedSourceRanges: The source range each segment really plays, one per segment in order.
    ///   - placedRanges: Where the output put each segment on its timeline, one per segment in order.
    /// - Throws: `ReconciliationError.snapping` when the ranges make no valid composition,
    ///   `.placedElsewhere` for the first segment the output placed elsewhere than `played` does.
    public init(requested: Composition, playedSourceRanges: [MediaTimeRange], placedRanges: [MediaTimeRange]) throws(ReconciliationError) {
        do { try self.init(requested: requested, playedSourceRanges: playedSourceRanges) } catch { throw .snapping(error) }
        for (index, (placed, segment)) in zip(placedRanges, played.segments).enumerated() where placed != segment.compositionRange {
            throw .placedElsewhere(segment: index, item: segment.id, placed: placed, composition: segment.compositionRange)
        }
    }

    /// Where the output (`played`) shows what `requested` shows at `requestedTime`: the same source
    /// frame, kept inside the same segment; a segment's start is the played segment's start. A
    /// player of the output seeks here when a `PlaybackSession` on `requested` (the schedule's
    /// times) asks for `requestedTime`.
    ///
    /// Inverse: `requestedTime(forPlayedTime:)`, for every time whose frame both show.
    ///
    /// - Parameter requestedTime: A time of `requested`.
    /// - Returns: The time of `played` (the output) that shows the same frame.
    public func playedTime(forRequestedTime requestedTime: MediaTime) -> MediaTime {
        requested.correspondingTime(requestedTime, in: played)
    }

    /// What a session on `requested` should be told when a player of the output is at
    /// `playedTime`: the same source frame, kept inside the same segment (a frame the requested
    /// cut leaves out maps to the nearest one it keeps). Inverse of `playedTime(forRequestedTime:)`.
    ///
    /// - Parameter playedTime: A time of `played` (the output), such as its player's position.
    /// - Returns: The time of `requested` that shows the same frame.
    public func requestedTime(forPlayedTime playedTime: MediaTime) -> MediaTime {
        played.correspondingTime(playedTime, in: requested)
    }

    /// The segments whose source range the output moved, as they play, with the range asked for.
    public var movedCuts: [(segment: Segment, requested: MediaTimeRange)] {
        zip(played.segments, requested.segments).compactMap { plays, asked in
            plays.sourceRange == asked.sourceRange ? nil : (plays, asked.sourceRange)
        }
    }

    /// Each break, as scheduled and as it plays, in order.
    public var breaks: [(requested: PlacedBreak, played: PlacedBreak)] {
        Array(zip(requested.breaks, played.breaks))
    }
}

/// Why an output's cuts do not reconcile with its composition.
public enum ReconciliationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The moved cuts make no valid composition (a range emptied by snapping, say).
    case snapping(ScheduleError)
    /// The output placed segment `segment` (`item`) at `placed` on its timeline, where the
    /// composition of its moved cuts puts it at `composition`.
    case placedElsewhere(segment: Int, item: String, placed: MediaTimeRange, composition: MediaTimeRange)

    public var description: String {
        switch self {
        case .snapping(let error): return "after snapping cuts: \(error)"
        case .placedElsewhere(let segment, let item, let placed, let composition):
            return "piece \(segment + 1) (\(quoted(item))) is at \(composition) s by its timeline, but the output placed it at \(placed) s"
        }
    }
}
