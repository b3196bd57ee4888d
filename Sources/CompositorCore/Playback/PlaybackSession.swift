/// The policy engine an app wires its player to: pure and deterministic.
///
/// It is fed the player's position (composition time) and the user's actions, and answers each with
/// a `Reaction`: commands for the player and events for the app. It applies snapback, `once` and
/// `sticky` breaks, skip and seek restrictions, and insert-now. It works over any backend that
/// reports composition time: one item playing a composition, or a queue of per-segment items.
///
/// ```swift
/// var session = try PlaybackSession(schedule: schedule, naturalDurations: durations)
/// apply(session.start())                                  // plays the pre-roll
/// apply(session.update(position: player.currentTime))    // on every tick or boundary
/// apply(try session.seek(toContentTime: .init(seconds: 50)))   // snapback: the last unplayed break first
/// ```
///
/// Played state outlives the session: `playedState` exports it, `init(…, playedState:)` resumes
/// from it without replaying `once` breaks.
///
/// Times from outside (positions, seek targets, a bookmark) are clamped to the composition and
/// taken at the tick of `composition.timescale` at or before them (the instant on screen), so the
/// playhead is always on the composition's grid and every computation after that is exact: a
/// player clock at `12345678901/1000000000` and a 29.97 fps break at `301301/30000` never meet in
/// arithmetic that could overflow or trap.
public struct PlaybackSession: Sendable {
    public internal(set) var schedule: Schedule
    public internal(set) var naturalDurations: [MediaLocation: MediaTime]
    public private(set) var composition: Composition
    public var snapback: SnapbackPolicy
    /// The playhead, in composition time, on the composition's grid (`composition.timescale`).
    public internal(set) var position: MediaTime = .zero
    /// Breaks that have played through or were skipped.
    public internal(set) var playedBreakIDs: Set<String> = []
    /// Whether playback reached the end (cleared by a seek back).
    public private(set) var hasEnded = false
    /// Whether the viewer paused (`pause()`) and has not resumed.
    public private(set) var isPaused = false
    /// Times into each ad (by ad ID) that the session reports as `.adProgress` when play reaches
    /// them, and offers as boundaries (VAST `progress` tracking: `[ad ID: [offset]]`). Offsets at or
    /// past an ad's played end are never reached.
    public var adProgressOffsets: [String: [MediaTime]] = [:]

    var startedBreakIDs: Set<String> = []
    /// Where to go when the current break ends: more snapback breaks, then the user's target.
    var pendingSeeks: [PendingSeek] = []
    var insertedBreakCount = 0
    /// The segment the playhead was last found in: where the next tick most likely is (an index
    /// into `composition.segments`, checked before use, so a new composition cannot mislead it).
    private var segmentHint = 0

    enum PendingSeek: Hashable, Sendable {
        case breakStart(id: String)
        case target(SeekTarget)
    }

    /// Starts a session at the beginning, or at `playedState`'s bookmark with its breaks played.
    ///
    /// - Parameters:
    ///   - schedule: The clips and breaks to play.
    ///   - naturalDurations: The natural duration of each source, for clips without `end`.
    ///   - snapback: Which unplayed breaks a forward seek plays first (`.lastUnplayed` by default).
    ///   - playedState: What an earlier session saved: its played breaks (a `once` break among them
    ///     is left out) and its bookmark. `nil` (the default) starts afresh.
    /// - Throws: `ScheduleError` when the schedule cannot be laid out, as `Composition.init` says.
    public init(
        schedule: Schedule,
        naturalDurations: [MediaLocation: MediaTime] = [:],
        snapback: SnapbackPolicy = .lastUnplayed,
        playedState: PlayedState? = nil
    ) throws(ScheduleError) {
        self.schedule = schedule
        self.naturalDurations = naturalDurations
        self.snapback = snapback
        let played = Set(playedState?.playedBreakIDs.filter { schedule.adBreak(id: $0) != nil } ?? [])
        self.playedBreakIDs = played
        self.startedBreakIDs = played
        self.composition = try PlaybackSession.compile(schedule, naturalDurations, played: played)
        self.bookmark = playedState?.bookmark
    }

    private let bookmark: MediaTime?

    /// Begins playback: at composition time 0, or at the imported bookmark as a seek from the start
    /// (so the snapback policy applies to breaks before it).
    ///
    /// - Returns: The commands that put the player at the start (or the bookmark), and the events
    ///   there (a pre-roll starting).
    public mutating func start() -> Reaction {
        var reaction = Reaction()
        position = composition.onGrid(.zero, clampedTo: composition.duration)
        if let bookmark, bookmark > .zero {
            let target = SeekTarget.content(composition.onGrid(bookmark, clampedTo: composition.contentDuration), playingBreaksThere: false)
            performSeek(to: target, requested: landing(for: target), into: &reaction)
        } else {
            reaction.commands.append(.seek(to: position))
            enterSegment(at: position, into: &reaction)
        }
        return reaction
    }

    // MARK: Playback

    /// The next composition time after `time` where the session has something to say (a segment
    /// boundary, an ad quartile, the end), or `nil` at the end. A player can observe these instants
    /// (as `AVPlayer.addBoundaryTimeObserver` does) instead of polling. `time` may be in any
    /// timescale; the answer is on the composition's grid.
    ///
    /// - Parameter time: A composition time.
    /// - Returns: The next instant to observe, or `nil` at or after the end.
    public func nextBoundary(after time: MediaTime) -> MediaTime? {
        guard time < composition.duration else { return nil }
        return boundary(after: time, inSegment: composition.segmentIndex(at: MediaTime.max(time, .zero)))
    }

    /// `nextBoundary(after:)` for a `time` before the end, in segment `index` (`nil` before 0).
    private func boundary(after time: MediaTime, inSegment index: Int?) -> MediaTime {
        guard let index else { return .zero }
        let segment = composition.segments[index]
        var next = segment.compositionRange.end
        if segment.isAd {
            for quartile in 1...3 {
                let point = PlaybackSession.quartilePoint(quartile, of: segment.compositionRange)
                if point > time { next = point; break }
            }
            for point in progressPoints(of: segment) where point.time > time && point.time < next { next = point.time }
        }
        return next
    }

    /// Where each progress offset of the ad in `segment` falls on the composition's grid (the first
    /// tick at or after it, as a quartile's), inside the segment.
    private func progressPoints(of segment: Segment) -> [(time: MediaTime, offset: MediaTime)] {
        guard let ad = segment.adPosition, let offsets = adProgressOffsets[ad.adID], !offsets.isEmpty else { return [] }
        let range = segment.compositionRange
        return offsets.compactMap { offset in
            guard offset > .zero, let exact = try? range.start.adding(offset), exact < range.end,
                  let time = try? exact.converted(to: composition.timescale, rounding: .up), time < range.end else { return nil }
            return (time, offset)
        }
    }

    /// The player played on to `newPosition`: reports every boundary crossed, in order. A position
    /// behind the playhead (the player jumped back on its own) is taken as a seek there.
    /// `newPosition` is clamped to the composition and taken at the tick of `composition.timescale`
    /// at or before it.
    ///
    /// - Parameter newPosition: The player's position, in composition time.
    /// - Returns: The events of every boundary crossed, and any commands they bring (a snapback
    ///   target's seek, a new composition once a `once` break has played).
    public mutating func update(position newPosition: MediaTime) -> Reaction {
        var reaction = Reaction()
        let target = composition.onGrid(newPosition, clampedTo: composition.duration)
        guard target >= position else {
            position = target
            hasEnded = false
            pendingSeeks.removeAll()
            enterSegment(at: position, into: &reaction)
            return reaction
        }
        while !hasEnded, position < composition.duration {
            let before = segmentIndexFollowingPlayback(at: position)
            let boundary = boundary(after: position, inSegment: before)
            guard boundary <= target else { break }
            position = boundary
            if let index = before, composition.segments[index].compositionRange.end == boundary {
                // A segment ended; anything it starts (a seek, a new composition) ends this update.
                if crossSegmentEnd(index, into: &reaction) { return reaction }
            } else if let index = before, let ad = composition.segments[index].adPosition {
                let segment = composition.segments[index]
                let quartile = (1...3).first {
                    PlaybackSession.quartilePoint($0, of: segment.compositionRange) == boundary
                }
                if let quartile { emit(.adQuartile(ad, quartile: quartile), into: &reaction) }
                for point in progressPoints(of: segment) where point.time == boundary {
                    emit(.adProgress(ad, offset: point.offset), into: &reaction)
                }
            }
        }
        if !hasEnded { position = target }
        return reaction
    }

    /// Puts the playhead at `newPosition` without reporting what lies before it: a viewer joining
    /// a live stream there. Reports what the segment there starts (the break and ad, in one).
    mutating func join(at newPosition: MediaTime) -> Reaction {
        var reaction = Reaction()
        position = composition.onGrid(newPosition, clampedTo: composition.duration)
        hasEnded = false
        pendingSeeks.removeAll()
        enterSegment(at: position, into: &reaction)
        return reaction
    }

    /// Takes a schedule of the same live stream, reloaded: more content, breaks joined or grown.
    /// The playhead keeps its composition time (the stream's clock); the player is told nothing,
    /// since it plays the stream itself.
    mutating func follow(_ schedule: Schedule) throws(ScheduleError) -> Reaction {
        var reaction = Reaction()
        let new = try PlaybackSession.compile(schedule, naturalDurations, played: playedBreakIDs)
        self.schedule = schedule
        guard new != composition else { return reaction }
        let old = composition
        composition = new
        position = new.onGrid(position, clampedTo: new.duration)
        emit(.compositionChanged(old: old, new: new), into: &reaction)
        return reaction
    }

    /// The viewer paused: `.paused`, once (a second pause says nothing).
    ///
    /// - Returns: The event, or nothing when already paused.
    public mutating func pause() -> Reaction {
        var reaction = Reaction()
        guard !isPaused else { return reaction }
        isPaused = true
        emit(.paused, into: &reaction)
        return reaction
    }

    /// Playback goes on after a pause: `.resumed`, once.
    ///
    /// - Returns: The event, or nothing when not paused.
    public mutating func resume() -> Reaction {
        var reaction = Reaction()
        guard isPaused else { return reaction }
        isPaused = false
        emit(.resumed, into: &reaction)
        return reaction
    }

    /// The segment at `time` (in `[0, duration)`), looked for first where playback goes: the
    /// segment of the last answer, then the next one; only a jump searches the whole composition.
    /// Keeps a tick's cost flat in the number of breaks.
    private mutating func segmentIndexFollowingPlayback(at time: MediaTime) -> Int? {
        let segments = composition.segments
        if segmentHint < segments.count, segments[segmentHint].compositionRange.contains(time) { return segmentHint }
        if segmentHint + 1 < segments.count, segments[segmentHint + 1].compositionRange.contains(time) {
            segmentHint += 1
            return segmentHint
        }
        guard let index = composition.segmentIndex(at: time) else { return nil }
        segmentHint = index
        return index
    }

    /// Handles the end of segment `index` at `position`. Returns true when it issued a command.
    private mutating func crossSegmentEnd(_ index: Int, into reaction: inout Reaction) -> Bool {
        let segment = composition.segments[index]
        if let ad = segment.adPosition {
            emit(.adEnded(ad, skipped: false), into: &reaction)
            if ad.podPosition < ad.podSize {
                emitAdStarted(at: index + 1, into: &reaction)
                return false
            }
            return finishBreak(ad.breakID, skipped: false, into: &reaction)
        }
        if index + 1 < composition.segments.count {
            enterSegment(at: position, into: &reaction)
        } else {
            emitEnded(into: &reaction)
        }
        return false
    }

    /// A break has played through or was skipped: mark it played, drop it if `once`, then (when
    /// `continuing`) go where the session is headed: a pending snapback seek, or what follows the
    /// break. Returns true when it issued a command.
    @discardableResult
    mutating func finishBreak(_ breakID: String, skipped: Bool, continuing: Bool = true, into reaction: inout Reaction) -> Bool {
        guard let placed = composition.placedBreak(id: breakID) else { return false }
        position = placed.compositionRange.end
        emit(.breakEnded(breakID: breakID, skipped: skipped), into: &reaction)
        playedBreakIDs.insert(breakID)
        var issuedCommand = false
        if placed.policy == .once {
            issuedCommand = rebuild(keeping: anchor(ofSegmentAt: placed.segmentIndices.upperBound), into: &reaction)
        }
        guard continuing else { return issuedCommand }
        if !pendingSeeks.isEmpty {
            performPending(pendingSeeks.removeFirst(), into: &reaction)
            return true
        }
        enterSegment(at: position, resumingContent: true, into: &reaction)
        return issuedCommand
    }

    private mutating func performPending(_ pending: PendingSeek, into reaction: inout Reaction) {
        switch pending {
        case .breakStart(let id):
            guard let placed = composition.placedBreak(id: id) else { return }
            position = placed.compositionRange.start
        case .target(let target):
            position = landing(for: target)
        }
        reaction.commands.append(.seek(to: position))
        enterSegment(at: position, resumingContent: true, into: &reaction)
    }

    // MARK: Events

    /// Reports arriving at `time` by a jump or a boundary: a break's start and its first ad, content
    /// after a break (`resumingContent`), or the end.
    mutating func enterSegment(at time: MediaTime, resumingContent: Bool = false, into reaction: inout Reaction) {
        guard let index = composition.segmentIndex(at: time) else {
            emitEnded(into: &reaction)
            return
        }
        hasEnded = false
        let segment = composition.segments[index]
        guard let ad = segment.adPosition, segment.compositionRange.start == time else {
            if resumingContent, !segment.isAd { emit(.contentResumed, into: &reaction) }
            return
        }
        if ad.podPosition == 1 {
            let first = startedBreakIDs.insert(ad.breakID).inserted
            emit(.breakStarted(breakID: ad.breakID, first: first), into: &reaction)
        }
        emitAdStarted(at: index, into: &reaction)
    }

    private mutating func emitAdStarted(at index: Int, into reaction: inout Reaction) {
        guard let ad = composition.segments[index].adPosition else { return }
        emit(.adStarted(ad), into: &reaction)
    }

    private mutating func emitEnded(into reaction: inout Reaction) {
        guard !hasEnded else { return }
        hasEnded = true
        position = composition.duration
        emit(.ended, into: &reaction)
    }

    func emit(_ kind: PlaybackEvent.Kind, into reaction: inout Reaction) {
        reaction.events.append(PlaybackEvent(
            kind: kind, compositionTime: position, contentTime: composition.contentTime(forCompositionTime: position)))
    }

    /// Where `quartile` / 4 of `range` is: the first tick of the range's timescale (the
    /// composition's grid) at or after the exact quarter, so a quarter of the ad has played when
    /// the playhead gets there; exact whenever the quarter is a whole tick. Never past the range's end.
    static func quartilePoint(_ quartile: Int, of range: MediaTimeRange) -> MediaTime {
        guard let (start, end) = try? MediaTime.commonTimescale(range.start, range.end) else { return range.end }
        let (span, overflow) = end.value.subtractingReportingOverflow(start.value)
        guard !overflow, let ticks = try? MediaTime.divide(span, times: Int64(quartile), by: 4, rounding: .up) else {
            return range.end
        }
        // ticks <= span, so start + ticks <= end: no overflow.
        return MediaTime(value: start.value + ticks, timescale: start.timescale)
    }

    // MARK: Rebuilding

    /// A place on the timeline that survives a rebuild: a content time (after any breaks there) or
    /// an offset into an ad.
    enum Anchor {
        case content(MediaTime)
        case ad(id: String, offset: MediaTime)
        case end
    }

    func anchor(ofSegmentAt index: Int, offset: MediaTime = .zero) -> Anchor {
        guard index < composition.segments.count else { return .end }
        let segment = composition.segments[index]
        if let ad = segment.adPosition { return .ad(id: ad.adID, offset: offset) }
        return .content(segment.contentRange.start + offset)
    }

    /// The anchor of the playhead.
    var playheadAnchor: Anchor {
        guard let index = composition.segmentIndex(at: position) else { return .end }
        return anchor(ofSegmentAt: index, offset: position - composition.segments[index].compositionRange.start)
    }

    static func compile(
        _ schedule: Schedule, _ durations: [MediaLocation: MediaTime], played: Set<String>
    ) throws(ScheduleError) -> Composition {
        let gone = Set(schedule.breaks.filter { $0.policy == .once && played.contains($0.id) }.map(\.id))
        return try Composition(schedule: schedule, naturalDurations: durations, excludingBreaks: gone)
    }

    /// Recompiles after a change to the schedule, the durations or the played state, keeps the
    /// playhead at `anchor`, and tells the app and the player. Returns true when it issued a command.
    @discardableResult
    mutating func rebuild(keeping anchor: Anchor, into reaction: inout Reaction) -> Bool {
        // The schedule was valid when compiled and only loses breaks here, so this cannot fail;
        // edits that add things compile first (see `apply(_:)`).
        guard let new = try? PlaybackSession.compile(schedule, naturalDurations, played: playedBreakIDs) else { return false }
        return install(new, keeping: anchor, into: &reaction)
    }

    @discardableResult
    mutating func install(_ new: Composition, keeping anchor: Anchor, into reaction: inout Reaction) -> Bool {
        let old = composition
        guard new != old else { return false }
        composition = new
        // Anchors are times of the old composition: put on the new one's grid (its timescale may
        // differ) before any arithmetic.
        switch anchor {
        case .content(let t): position = new.compositionTime(forContentTime: t)
        case .ad(let id, let offset):
            if let segment = new.segments.first(where: { $0.adPosition?.adID == id }) {
                let range = segment.compositionRange
                position = range.start + new.onGrid(offset, clampedTo: range.duration)
            } else {
                position = new.compositionTime(forContentTime: old.contentTime(forCompositionTime: position))
            }
        case .end: position = new.duration
        }
        emit(.compositionChanged(old: old, new: new), into: &reaction)
        reaction.commands.append(.load(new, at: position))
        return true
    }
}
