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
public struct Composition: Hashable, Sendable {
    /// The segments in play order; contiguous from 0.
    public let segments: [Segment]
    /// The breaks in play order.
    public let breaks: [PlacedBreak]
    /// The length of the content timeline: the clips' durations added up (ads take none).
    public let contentDuration: MediaTime
    /// The length of the whole composition, ads included.
    public let duration: MediaTime
    /// What was changed from the schedule's request (clamped ends).
    public let diagnostics: [Diagnostic]

    // Lookup tables for O(log n) mapping: sorted keys to search, then one packed entry per answer
    // (a single cache miss at the end of a search, and no strings touched).
    let segmentStartIndex: SortedTimes
    let segmentLookup: [SegmentLookup]
    /// Content segments only, in order.
    let contentSegmentEndIndex: SortedTimes
    let contentSegmentLookup: [SegmentLookup]
    let breakStartIndex: SortedTimes
    let breakPositionIndex: SortedTimes

    struct SegmentLookup: Sendable {
        let compositionStart: MediaTime
        let contentStart: MediaTime
        let isAd: Bool
    }

    /// Compiles `schedule`.
    ///
    /// - Parameters:
    ///   - naturalDurations: the natural duration of each source, needed for clips without `end`
    ///     and used to clamp an `end` past it (reported in `diagnostics`).
    ///   - excludedBreakIDs: breaks to leave out, such as `once` breaks that have played. They are
    ///     still checked.
    public init(
        schedule: Schedule,
        naturalDurations: [MediaLocation: MediaTime] = [:],
        excludingBreaks excludedBreakIDs: Set<String> = []
    ) throws(ScheduleError) {
        var builder = Builder(naturalDurations: naturalDurations)
        try builder.build(schedule: schedule, excluding: excludedBreakIDs)
        self.init(
            segments: builder.segments, breaks: builder.breaks, contentDuration: builder.contentDuration,
            duration: builder.compositionCursor, diagnostics: builder.diagnostics)
    }

    /// A composition from parts already laid out and checked, with its lookup tables.
    init(
        segments: [Segment], breaks: [PlacedBreak], contentDuration: MediaTime, duration: MediaTime,
        diagnostics: [Diagnostic]
    ) {
        let contentSegments = segments.filter { !$0.isAd }
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
        self.contentSegmentEndIndex = SortedTimes(contentSegments.map(\.contentRange.end))
        self.contentSegmentLookup = contentSegments.map(lookup)
        self.breakStartIndex = SortedTimes(breaks.map(\.compositionRange.start))
        self.breakPositionIndex = SortedTimes(breaks.map(\.position))
    }

    /// `a + b`, with overflow reported against `item`.
    static func add(_ a: MediaTime, _ b: MediaTime, item: String) throws(ScheduleError) -> MediaTime {
        do { return try a.adding(b) } catch { throw .timeOverflow(item: item, error) }
    }

    /// `a - b`, with overflow reported against `item`.
    static func subtract(_ a: MediaTime, _ b: MediaTime, item: String) throws(ScheduleError) -> MediaTime {
        do { return try a.subtracting(b) } catch { throw .timeOverflow(item: item, error) }
    }

    /// `range.end - range.start`, with overflow reported against `item`: the two ends may have
    /// timescales with no common multiple in 32 bits (`MediaTimeRange.duration` would trap).
    static func duration(of range: MediaTimeRange, item: String) throws(ScheduleError) -> MediaTime {
        try subtract(range.end, range.start, item: item)
    }

    /// The composition's break with this ID.
    public func placedBreak(id: String) -> PlacedBreak? { breaks.first { $0.id == id } }

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
    /// Walks the content timeline once, emitting content up to each break and then the break's ads.
    private struct Builder {
        let naturalDurations: [MediaLocation: MediaTime]
        var segments: [Segment] = []
        var breaks: [PlacedBreak] = []
        var diagnostics: [Diagnostic] = []
        var contentDuration = MediaTime.zero
        var compositionCursor = MediaTime.zero

        // Content clips resolved to source ranges and laid end to end on the content timeline.
        private var clips: [(clip: ContentClip, range: MediaTimeRange)] = []
        private var clipContentStarts: [MediaTime] = []
        private var contentCursor = MediaTime.zero
        private var clipIndex = 0

        init(naturalDurations: [MediaLocation: MediaTime]) { self.naturalDurations = naturalDurations }

        mutating func build(schedule: Schedule, excluding excluded: Set<String>) throws(ScheduleError) {
            guard !schedule.content.isEmpty else { throw .noContent }
            for id in excluded where schedule.adBreak(id: id) == nil { throw .unknownID(id) }
            for clip in schedule.content {
                let range = try resolveRange(item: clip.id, source: clip.source, start: clip.start, end: clip.end)
                clips.append((clip, range))
                clipContentStarts.append(contentDuration)
                contentDuration = try add(contentDuration, try Composition.duration(of: range, item: clip.id), item: clip.id)
            }

            // Replaced content so far, for errors: the break that replaced it and the range.
            var replacement: (breakID: String, range: MediaTimeRange)?
            var previousPosition: MediaTime?
            for (adBreak, position) in try orderedBreaks(schedule.breaks) {
                if position < contentCursor, position != previousPosition, let replacement {
                    throw .breakInsideReplacedContent(
                        breakID: adBreak.id, at: position, replacedBy: replacement.breakID, replaced: replacement.range)
                }
                previousPosition = position
                let resume = try add(position, adBreak.resumeOffset, item: adBreak.id)
                guard resume <= contentDuration else {
                    throw .resumeOffsetPastContentEnd(breakID: adBreak.id, resumesAt: resume, contentDuration: contentDuration)
                }
                // Resolved even when excluded, so an excluded break's errors still surface.
                let adRanges = try adBreak.ads.map { (ad) throws(ScheduleError) in
                    try resolveRange(item: ad.id, source: ad.source, start: ad.start, end: ad.end)
                }
                if excluded.contains(adBreak.id) { continue }

                try emitContent(upTo: position)
                let breakStart = compositionCursor, firstSegment = segments.count
                for (index, (ad, range)) in zip(adBreak.ads, adRanges).enumerated() {
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

        /// Breaks with their content positions, in play order: by position, pre-rolls before
        /// mid-rolls before post-rolls at the same position, then in scheduling order.
        private func orderedBreaks(_ breaks: [AdBreak]) throws(ScheduleError) -> [(AdBreak, MediaTime)] {
            var keyed: [(adBreak: AdBreak, position: MediaTime, rank: Int, order: Int)] = []
            keyed.reserveCapacity(breaks.count)
            for (order, adBreak) in breaks.enumerated() {
                switch adBreak.placement {
                case .preroll:
                    keyed.append((adBreak, .zero, 0, order))
                case .midroll(let at):
                    guard at <= contentDuration else {
                        throw .midrollOutsideContent(breakID: adBreak.id, at: at, contentDuration: contentDuration)
                    }
                    keyed.append((adBreak, at, 1, order))
                case .postroll:
                    keyed.append((adBreak, contentDuration, 2, order))
                }
            }
            keyed.sort { ($0.position, $0.rank, $0.order) < ($1.position, $1.rank, $1.order) }
            return keyed.map { ($0.adBreak, $0.position) }
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
