/// A schedule compiled into one timeline: segments back to back from composition time 0, and the
/// breaks placed among them. Immutable; a change to the schedule makes a new composition.
///
/// Example (the reference sample app, abridged): content A [0, 90) with a 17 s ad at 23,
///
/// ```
/// composition  0        23      40                   107
///              |--A 0-23--|--ad--|------A 23-90-------|
/// content      0        23      23                    90
/// ```
///
/// ```swift
/// let composition = try Composition(schedule: schedule)
/// composition.compositionTime(forContentTime: .init(seconds: 23))   // 40: after the break
/// composition.contentTime(forCompositionTime: .init(seconds: 30))   // 23: inside the break
/// ```
///
/// Every time in a composition is a whole number of ticks of one timescale, `timescale`, so its
/// arithmetic is exact and cannot trap; queries from outside (a player's clock, a command line)
/// are clamped and moved to that grid on entry (see `timescale`).
public struct Composition: Hashable, Sendable {
    /// The segments in play order; contiguous from 0.
    public let segments: [Segment]
    /// The breaks in play order.
    public let breaks: [PlacedBreak]
    /// The length of the content timeline: the clips' durations added up (ads take none).
    public let contentDuration: MediaTime
    /// The length of the whole composition, ads included.
    public let duration: MediaTime
    /// What was changed from the schedule's request (clamped ends, rounded times).
    public let diagnostics: [Diagnostic]
    /// The ticks per second every time of the composition (segment, break, source, content and
    /// composition times) is a whole number of.
    ///
    /// It is the least common multiple of the timescales of the schedule's times (in lowest terms:
    /// starts, ends, natural durations used as ends, mid-roll positions, resume offsets) and of the
    /// largest power of ten up to 10^9 that keeps it within `Int32.max` and the composition's times
    /// within `Int64` ticks. So a tick is finer than 5 ns, and decimal times and nanosecond player
    /// clocks are exact where the timescale allows: a schedule of decimals has 1,000,000,000
    /// (a nanosecond); one with 29.97 fps times (`1001/30000`) has 300,000,000.
    ///
    /// When the schedule's timescales have no common multiple within `Int32` (`0.123456789` beside
    /// `1001/30000`), the multiple is built from the finest timescale down, leaving out each that
    /// does not fit; the times in a timescale left out are rounded to the nearest tick (halfway
    /// away from zero), each reported as `Diagnostic.timeRounded` with its value before and after.
    ///
    /// Queries (`contentTime(forCompositionTime:)`, `compositionTime(forContentTime:bias:)`,
    /// `locate(_:)`, `seekBar(at:playedBreakIDs:)`, and `PlaybackSession`'s positions and seeks)
    /// clamp a time to the valid range and then take the tick at or before it (the instant on
    /// screen): with a timescale of 300,000,000, a player clock at `12345678901/1000000000` is
    /// taken as `3703703670/300000000` (12.3456789 s).
    public let timescale: Int32

    // Lookup tables for O(log n) mapping: sorted keys to search, then one packed entry per answer
    // (a single cache miss at the end of a search, and no strings touched).
    let segmentStartIndex: SortedTimes
    let segmentLookup: [SegmentLookup]
    /// Content segments only, in order.
    let contentSegmentEndIndex: SortedTimes
    let contentSegmentLookup: [SegmentLookup]
    let breakStartIndex: SortedTimes
    let breakPositionIndex: SortedTimes
    /// Each break's index in `breaks`, by ID (a session finds the break that just ended by it).
    let breakIndexByID: [String: Int]

    struct SegmentLookup: Sendable {
        let compositionStart: MediaTime
        let contentStart: MediaTime
        let isAd: Bool
    }

    /// Compiles `schedule`.
    ///
    /// - Parameters:
    ///   - schedule: the clips and breaks to lay out.
    ///   - naturalDurations: the natural duration of each source, needed for clips without `end`
    ///     and used to clamp an `end` past it (reported in `diagnostics`).
    ///   - excludedBreakIDs: breaks to leave out, such as `once` breaks that have played. They are
    ///     still checked.
    /// - Throws: `ScheduleError` when the schedule cannot be laid out: no content, a clip without
    ///   `end` whose source's duration is not known, a mid-roll past the content, times that
    ///   overflow.
    public init(
        schedule: Schedule,
        naturalDurations: [MediaLocation: MediaTime] = [:],
        excludingBreaks excludedBreakIDs: Set<String> = []
    ) throws(ScheduleError) {
        var builder = Builder(naturalDurations: naturalDurations)
        try builder.build(schedule: schedule, excluding: excludedBreakIDs)
        self.init(
            segments: builder.segments, breaks: builder.breaks, contentDuration: builder.contentDuration,
            duration: builder.compositionCursor, diagnostics: builder.diagnostics, timescale: builder.grid.timescale)
    }

    /// A composition from parts already laid out and checked, with its lookup tables.
    init(
        segments: [Segment], breaks: [PlacedBreak], contentDuration: MediaTime, duration: MediaTime,
        diagnostics: [Diagnostic], timescale: Int32
    ) {
        self.timescale = timescale
        // Not copied out: a composition of 10,000 breaks has 20,000 content segments.
        let contentSegments = segments.lazy.filter { !$0.isAd }
        self.segments = segments
        self.breaks = breaks
        self.contentDuration = contentDuration
        self.duration = duration
        self.diagnostics = diagnostics
        func lookup(_ segment: Segment) -> SegmentLookup {
            SegmentLookup(compositionStart: segment.compositionRange.start, contentStart: segment.contentRange.start,
                          isAd: segment.isAd)
        }
        self.segmentStartIndex = SortedTimes(segments.map(\.compositionRange.start))
        self.segmentLookup = segments.map(lookup)
        self.contentSegmentEndIndex = SortedTimes(Array(contentSegments.map(\.contentRange.end)))
        self.contentSegmentLookup = Array(contentSegments.map(lookup))
        self.breakStartIndex = SortedTimes(breaks.map(\.compositionRange.start))
        self.breakPositionIndex = SortedTimes(breaks.map(\.position))
        // IDs are unique in a compiled schedule; the first wins should a caller's parts repeat one.
        self.breakIndexByID = Dictionary(breaks.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// `a + b`, with overflow reported against `item`.
    static func add(_ a: MediaTime, _ b: MediaTime, item: String) throws(ScheduleError) -> MediaTime {
        do { return try a.adding(b) } catch { throw .timeOverflow(item: item, error) }
    }

    /// `a - b`, with overflow reported against `item`.
    static func subtract(_ a: MediaTime, _ b: MediaTime, item: String) throws(ScheduleError) -> MediaTime {
        do { return try a.subtracting(b) } catch { throw .timeOverflow(item: item, error) }
    }

    /// `range.end - range.start`, exactly, with overflow reported against `item`.
    static func duration(of range: MediaTimeRange, item: String) throws(ScheduleError) -> MediaTime {
        try subtract(range.end, range.start, item: item)
    }

    /// `range` on `grid` (see `TimeGrid.place`); a range that rounding empties is an error naming
    /// `item` and the range as asked.
    static func place(
        _ range: MediaTimeRange, on grid: TimeGrid, item: String, fields: (start: String, end: String),
        diagnostics: inout [Diagnostic]
    ) throws(ScheduleError) -> MediaTimeRange {
        let start = try grid.place(range.start, item: item, field: fields.start, diagnostics: &diagnostics)
        let end = try grid.place(range.end, item: item, field: fields.end, diagnostics: &diagnostics)
        guard start < end else {
            throw .rangeBelowTimescale(item: item, start: range.start, end: range.end, timescale: grid.timescale)
        }
        return MediaTimeRange(start: start, end: end)
    }

    /// The composition's break with this ID.
    ///
    /// - Parameter id: The break's ID.
    /// - Returns: The break as placed, or `nil` when the composition has none with that ID (an
    ///   excluded break, or one the schedule does not have).
    public func placedBreak(id: String) -> PlacedBreak? { breakIndexByID[id].map { breaks[$0] } }

    /// The grid the composition's times are on.
    var grid: TimeGrid { TimeGrid(timescale: timescale) }

    /// `t` clamped to `[0, limit]` and moved to the tick of `timescale` at or before it, for a
    /// time from outside (a query, a player's clock, a duration to play). `limit` is on the grid.
    @inline(__always)
    package func onGrid(_ t: MediaTime, clampedTo limit: MediaTime) -> MediaTime {
        grid.floor(t, clampedTo: limit)
    }

    /// Equal when the timelines are: the lookup tables are derived and left out.
    public static func == (lhs: Composition, rhs: Composition) -> Bool {
        lhs.segments == rhs.segments && lhs.breaks == rhs.breaks && lhs.contentDuration == rhs.contentDuration
            && lhs.duration == rhs.duration && lhs.diagnostics == rhs.diagnostics
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(segments)
        hasher.combine(breaks)
        hasher.combine(diagnostics)
    }
}

extension Composition {
    /// Resolves every range and puts every time on one grid, then walks the content timeline
    /// once, emitting content up to each break and then the break's ads.
    private struct Builder {
        let naturalDurations: [MediaLocation: MediaTime]
        var segments: [Segment] = []
        var breaks: [PlacedBreak] = []
        var diagnostics: [Diagnostic] = []
        var contentDuration = MediaTime.zero
        var compositionCursor = MediaTime.zero
        var grid = TimeGrid(timescale: 1)

        // Content clips resolved to source ranges and laid end to end on the content timeline.
        private var clips: [(clip: ContentClip, range: MediaTimeRange)] = []
        private var clipContentStarts: [MediaTime] = []
        private var contentCursor = MediaTime.zero
        private var clipIndex = 0

        /// A break with its times resolved and on the grid (its ads' ranges are in one flat array,
        /// so a schedule of 10,000 breaks costs no allocation per break).
        private struct ResolvedBreak {
            /// The index in `schedule.breaks`.
            let index: Int
            /// The mid-roll position, on the grid.
            let at: MediaTime?
            let resumeOffset: MediaTime
            /// Where the break's ads' ranges start in the flat array of ad ranges.
            let firstAdRange: Int
        }

        init(naturalDurations: [MediaLocation: MediaTime]) { self.naturalDurations = naturalDurations }

        mutating func build(schedule: Schedule, excluding excluded: Set<String>) throws(ScheduleError) {
            guard !schedule.content.isEmpty else { throw .noContent }
            for id in excluded where schedule.adBreak(id: id) == nil { throw .unknownID(id) }

            // Every range resolved (defaults, clamps), excluded breaks' too so their errors surface.
            var clipRanges: [MediaTimeRange] = []
            clipRanges.reserveCapacity(schedule.content.count)
            for clip in schedule.content {
                clipRanges.append(try resolveRange(item: clip.id, source: clip.source, start: clip.start, end: clip.end))
            }
            var adRanges: [MediaTimeRange] = []
            adRanges.reserveCapacity(schedule.breaks.reduce(0) { $0 + $1.ads.count })
            for adBreak in schedule.breaks {
                for ad in adBreak.ads {
                    adRanges.append(try resolveRange(item: ad.id, source: ad.source, start: ad.start, end: ad.end))
                }
            }

            // One grid for every time the timeline is built from (see `Composition.timescale`).
            var times: [MediaTime] = []
            times.reserveCapacity(2 * clipRanges.count + 2 * schedule.breaks.count + 2 * adRanges.count)
            for range in clipRanges { times.append(range.start); times.append(range.end) }
            for range in adRanges { times.append(range.start); times.append(range.end) }
            for adBreak in schedule.breaks {
                if case .midroll(let at) = adBreak.placement { times.append(at) }
                times.append(adBreak.resumeOffset)
            }
            grid = TimeGrid(times)
            let zero = MediaTime(value: 0, timescale: grid.timescale)
            (contentDuration, compositionCursor, contentCursor) = (zero, zero, zero)

            for (clip, range) in zip(schedule.content, clipRanges) {
                let placed = try place(range, item: clip.id)
                clips.append((clip, placed))
                clipContentStarts.append(contentDuration)
                contentDuration = try add(contentDuration, try Composition.duration(of: placed, item: clip.id), item: clip.id)
            }
            var resolved: [ResolvedBreak] = []
            resolved.reserveCapacity(schedule.breaks.count)
            var adRangeIndex = 0
            for (index, adBreak) in schedule.breaks.enumerated() {
                var at: MediaTime?
                if case .midroll(let position) = adBreak.placement {
                    at = try grid.place(position, item: adBreak.id, field: "position", diagnostics: &diagnostics)
                }
                let offset = try grid.place(adBreak.resumeOffset, item: adBreak.id, field: "resumeOffset", diagnostics: &diagnostics)
                resolved.append(ResolvedBreak(index: index, at: at, resumeOffset: offset, firstAdRange: adRangeIndex))
                for ad in adBreak.ads {
                    adRanges[adRangeIndex] = try place(adRanges[adRangeIndex], item: ad.id)
                    adRangeIndex += 1
                }
            }

            // At most a content segment per clip and per break (which splits one), and a segment
            // per ad: reserved, as grown by doubling a composition of many breaks kept half again.
            segments.reserveCapacity(clips.count + resolved.count + adRanges.count)
            breaks.reserveCapacity(resolved.count)
            // Replaced content so far, for errors: the break that replaced it and the range.
            var replacement: (breakID: String, range: MediaTimeRange)?
            var previousPosition: MediaTime?
            for (entry, position) in try orderedBreaks(resolved, schedule.breaks) {
                let adBreak = schedule.breaks[entry.index]
                if position < contentCursor, position != previousPosition, let replacement {
                    throw .breakInsideReplacedContent(
                        breakID: adBreak.id, at: position, replacedBy: replacement.breakID, replaced: replacement.range)
                }
                previousPosition = position
                let resume = try add(position, entry.resumeOffset, item: adBreak.id)
                guard resume <= contentDuration else {
                    throw .resumeOffsetPastContentEnd(breakID: adBreak.id, resumesAt: resume, contentDuration: contentDuration)
                }
                if !excluded.isEmpty, excluded.contains(adBreak.id) { continue }

                try emitContent(upTo: position)
                let breakStart = compositionCursor, firstSegment = segments.count
                for (index, ad) in adBreak.ads.enumerated() {
                    let range = adRanges[entry.firstAdRange + index]
                    let place = AdPosition(
                        adID: ad.id, breakID: adBreak.id, podPosition: index + 1, podSize: adBreak.ads.count)
                    try emit(.ad(place), source: ad.source, sourceRange: range,
                             contentRange: MediaTimeRange(start: position, end: position), item: ad.id)
                }
                if resume > contentCursor {
                    replacement = (adBreak.id, MediaTimeRange(start: position, end: resume))
                    contentCursor = resume
                }
                breaks.append(PlacedBreak(
                    id: adBreak.id, placement: adBreak.placement, position: position,
                    compositionRange: MediaTimeRange(start: breakStart, end: compositionCursor),
                    policy: adBreak.policy, restrictions: adBreak.restrictions,
                    resumeContentTime: MediaTime.max(resume, contentCursor),
                    adIDs: adBreak.ads.map(\.id), segmentIndices: firstSegment..<segments.count))
            }
            try emitContent(upTo: contentDuration)
        }

        /// `range` on the grid; a range that rounding empties is an error.
        private mutating func place(_ range: MediaTimeRange, item: String) throws(ScheduleError) -> MediaTimeRange {
            try Composition.place(range, on: grid, item: item, fields: ("start", "end"), diagnostics: &diagnostics)
        }

        /// Breaks with their content positions, in play order: by position, pre-rolls before
        /// mid-rolls before post-rolls at the same position, then in scheduling order.
        private func orderedBreaks(
            _ breaks: [ResolvedBreak], _ scheduled: [AdBreak]
        ) throws(ScheduleError) -> [(ResolvedBreak, MediaTime)] {
            var keyed: [(entry: ResolvedBreak, position: MediaTime, rank: Int, order: Int)] = []
            keyed.reserveCapacity(breaks.count)
            let zero = MediaTime(value: 0, timescale: grid.timescale)
            for (order, entry) in breaks.enumerated() {
                switch scheduled[entry.index].placement {
                case .preroll:
                    keyed.append((entry, zero, 0, order))
                case .midroll:
                    let at = entry.at ?? zero
                    guard at <= contentDuration else {
                        throw .midrollOutsideContent(breakID: scheduled[entry.index].id, at: at, contentDuration: contentDuration)
                    }
                    keyed.append((entry, at, 1, order))
                case .postroll:
                    keyed.append((entry, contentDuration, 2, order))
                }
            }
            keyed.sort { ($0.position, $0.rank, $0.order) < ($1.position, $1.rank, $1.order) }
            return keyed.map { ($0.entry, $0.position) }
        }

        /// Emits content from the content cursor up to `end`, one segment per clip it crosses.
        private mutating func emitContent(upTo end: MediaTime) throws(ScheduleError) {
            while contentCursor < end {
                while clipIndex + 1 < clips.count, clipContentStarts[clipIndex + 1] <= contentCursor { clipIndex += 1 }
                let (clip, range) = clips[clipIndex]
                let clipStart = clipContentStarts[clipIndex]
                let clipEnd = try add(clipStart, try Composition.duration(of: range, item: clip.id), item: clip.id)
                let pieceEnd = MediaTime.min(end, clipEnd)
                let sourceStart = try add(range.start, try subtract(contentCursor, clipStart, item: clip.id), item: clip.id)
                let sourceEnd = try add(range.start, try subtract(pieceEnd, clipStart, item: clip.id), item: clip.id)
                try emit(.content(clipID: clip.id), source: clip.source,
                         sourceRange: MediaTimeRange(start: sourceStart, end: sourceEnd),
                         contentRange: MediaTimeRange(start: contentCursor, end: pieceEnd), item: clip.id)
                contentCursor = pieceEnd
            }
        }

        private mutating func emit(
            _ role: Segment.Role, source: MediaLocation, sourceRange: MediaTimeRange, contentRange: MediaTimeRange, item: String
        ) throws(ScheduleError) {
            let end = try add(compositionCursor, try Composition.duration(of: sourceRange, item: item), item: item)
            segments.append(Segment(
                role: role, source: source, sourceRange: sourceRange,
                compositionRange: MediaTimeRange(start: compositionCursor, end: end), contentRange: contentRange))
            compositionCursor = end
        }

        /// `[start, end ?? natural)`, with an `end` past the natural duration clamped (and reported).
        private mutating func resolveRange(
            item: String, source: MediaLocation, start: MediaTime, end: MediaTime?
        ) throws(ScheduleError) -> MediaTimeRange {
            let natural = naturalDurations[source]
            if let natural, start >= natural {
                throw .startPastNaturalDuration(item: item, start: start, naturalDuration: natural)
            }
            guard let end else {
                guard let natural else { throw .unknownDuration(item: item, source: source) }
                return MediaTimeRange(start: start, end: natural)
            }
            if let natural, end > natural {
                diagnostics.append(.endClamped(item: item, requested: end, naturalDuration: natural))
                return MediaTimeRange(start: start, end: natural)
            }
            return MediaTimeRange(start: start, end: end)
        }

        private func add(_ a: MediaTime, _ b: MediaTime, item: String) throws(ScheduleError) -> MediaTime {
            try Composition.add(a, b, item: item)
        }

        private func subtract(_ a: MediaTime, _ b: MediaTime, item: String) throws(ScheduleError) -> MediaTime {
            try Composition.subtract(a, b, item: item)
        }
    }
}
