import CompositorCore

/// One ad a live break can play: a finished media playlist (an MP4 packaged into the content's
/// segment format, or an HLS ad), its segment URIs resolved where the stitched playlist finds them.
package struct LiveAd: Hashable, Sendable {
    /// The schedule's name for it, for reports.
    package var id: String
    package var playlist: HLSMediaPlaylist

    package init(id: String, playlist: HLSMediaPlaylist) {
        self.id = id
        self.playlist = playlist
    }
}

/// A break to open at a content segment: what a marker, a date in the schedule or "insert now"
/// asks of the live stitcher.
package struct LiveBreakRequest: Hashable, Sendable {
    /// The break's ID in the stitched playlist (its `EXT-X-DATERANGE`): unique for the stream's
    /// life, so derived from where it starts (`ssai-1042`).
    package var id: String
    /// The media sequence number of the first content segment it replaces.
    package var startSequence: UInt64
    /// How much content it replaces from there; `nil`: until the content's `EXT-X-CUE-IN`, or
    /// until the ads end, whichever is first.
    package var duration: MediaTime?
    /// The pod, in order.
    package var ads: [LiveAd]
    /// How far into the break the first replaced segment already is: zero, except for a break
    /// joined under way (a `EXT-X-CUE-OUT-CONT` with its `ElapsedTime`), whose ads play from there.
    package var elapsed: MediaTime
    /// Whether, asked for inside another break, it starts where that one gives the content back
    /// (a dated or inserted break) instead of being dropped (a marker inside a break is part of it).
    package var waitsForOpenBreak: Bool

    package init(id: String, startSequence: UInt64, duration: MediaTime?, ads: [LiveAd], elapsed: MediaTime = .zero, waitsForOpenBreak: Bool = false) {
        self.id = id
        self.startSequence = startSequence
        self.duration = duration
        self.ads = ads
        self.elapsed = elapsed
        self.waitsForOpenBreak = waitsForOpenBreak
    }
}

/// A break the live stitcher has opened, and what it has seen of the content it replaces: the
/// decision a stitched playlist is a function of.
///
/// Time inside a break runs from the start of its first replaced content segment. The ads'
/// segments are laid from there (after `leadingGap` when joined under way), and each is published
/// once the content passes its start (its end, when the span is open-ended and a content
/// `EXT-X-CUE-IN` may still cut it): the stitched live edge runs ahead of the content's by at most
/// one ad segment. The ads that play are those within the span (`duration`, else up to the content's
/// `EXT-X-CUE-IN`, else all of them): an ad that would cross the span's end is cut at its last
/// segment inside it; at an `EXT-X-CUE-IN` closing an open span, at that one or at the one
/// crossing it, whichever keeps the stream nearer the content's clock.
///
/// Content comes back at one of the two content boundaries around the ads' end: the one that
/// keeps the stitched stream nearest the content's clock, counting what earlier breaks left
/// (`debtBefore`). Back at the boundary before the ads' end, the stream runs late by the
/// difference; at the one after, early. Choosing each time keeps it near the content's clock,
/// break after break, so a player neither drifts from the live edge nor runs out of segments
/// (what an always-early stream does to it).
///
/// ```
/// content    | 100 | 101 | 102 | 103 | 104 |      CUE-OUT:DURATION=6 on 101 (2 s segments)
/// ads              [a0  a1 ][b0   ]               a 3 s ad, then a 2 s one: they end at 5
/// stitched   | 100 |a0|a1 |b0   | 103 | 104 |     back at 103 (1 s late) or 104 (1 s early):
///                                                 a tie goes to late, which costs no stall
/// ```
package struct LiveBreak: Hashable, Sendable {
    /// A content segment the break replaces, as the stitcher saw it.
    package struct Replaced: Hashable, Sendable {
        package var duration: MediaTime
        package var isDiscontinuity: Bool

        package init(duration: MediaTime, isDiscontinuity: Bool) {
            self.duration = duration
            self.isDiscontinuity = isDiscontinuity
        }
    }

    /// Where the content comes back.
    package struct Return: Hashable, Sendable {
        /// The media sequence number of the first content segment after the break.
        package var sequence: UInt64
        /// Whether that segment has `EXT-X-DISCONTINUITY` of its own (the stitched one has one anyway).
        package var isDiscontinuity: Bool

        package init(sequence: UInt64, isDiscontinuity: Bool) {
            self.sequence = sequence
            self.isDiscontinuity = isDiscontinuity
        }
    }

    package let id: String
    package let startSequence: UInt64
    /// The program date-time of the first replaced segment; `nil` when the content has none.
    package let startDate: HLSDateTime?
    /// The break time its ads may fill, when known: the span the request asked, or for an open
    /// span the time to its `EXT-X-CUE-IN` (or to the end of the ad segment crossing it, when that
    /// keeps the stream nearer the content's clock).
    package private(set) var duration: MediaTime?
    /// The span the request asked for, from the break's start (its date range's `PLANNED-DURATION`).
    package let plannedDuration: MediaTime?
    /// The ads' segments, in play order (a joined break's from the first that starts after its
    /// elapsed time), each ad's first with `EXT-X-DISCONTINUITY`, URIs where the output finds them.
    package let adSegments: [HLSMediaSegment]
    /// Break time before the first ad segment: nonzero only for a break joined under way.
    package let leadingGap: MediaTime
    /// The pod's ads, by ID, and how far into the break its first replaced segment was (the
    /// request's, kept so the break can be made again from them: `init(restoring:…)`).
    package let adIDs: [String]
    package let elapsed: MediaTime
    /// Where each ad segment ends, in break time.
    package let adEnds: [MediaTime]
    /// Which ad of the pod each ad segment is (an index into the request's `ads`).
    package let adOfSegment: [Int]
    /// How far behind the content's clock the stitched stream runs when the break starts (earlier
    /// breaks' ads less the content they replaced; negative: ahead).
    package let debtBefore: MediaTime
    /// The content segments it replaces, from `startSequence`, as far as seen.
    package private(set) var replaced: [Replaced] = []
    /// Where content comes back, once it has.
    package private(set) var contentReturn: Return?

    init(_ request: LiveBreakRequest, at sequence: UInt64, startDate: HLSDateTime?, debtBefore: MediaTime) {
        id = request.id
        startSequence = sequence
        self.startDate = startDate
        self.debtBefore = debtBefore
        var segments: [HLSMediaSegment] = [], ends: [MediaTime] = [], owners: [Int] = []
        var adTime = MediaTime.zero
        var gap: MediaTime?
        for (index, ad) in request.ads.enumerated() {
            var startsAd = true
            for var segment in ad.playlist.segments {
                defer { adTime += segment.duration }
                guard adTime >= request.elapsed else { continue }
                if gap == nil { gap = adTime - request.elapsed }
                segment.isDiscontinuity = startsAd || segments.isEmpty
                segment.programDateTime = nil
                segment.dateRanges = []
                segment.cueIn = nil
                segment.cueOut = nil
                segment.cueOutContinuation = nil
                startsAd = false
                segments.append(segment)
                ends.append(adTime + segment.duration - request.elapsed)
                owners.append(index)
            }
        }
        adSegments = segments
        adEnds = ends
        adOfSegment = owners
        leadingGap = gap ?? .zero
        duration = request.duration.map { $0 - request.elapsed }
        plannedDuration = duration
        adIDs = request.ads.map(\.id)
        elapsed = request.elapsed
    }

    /// A break as decided and seen before (written down by a stitcher that stopped), its request
    /// made again with the same ads.
    package init(
        restoring request: LiveBreakRequest, at sequence: UInt64, startDate: HLSDateTime?, debtBefore: MediaTime,
        duration: MediaTime?, replaced: [Replaced], contentReturn: Return?
    ) {
        self.init(request, at: sequence, startDate: startDate, debtBefore: debtBefore)
        self.duration = duration
        self.replaced = replaced
        self.contentReturn = contentReturn
    }

    /// The break time the replaced segments seen so far cover.
    package var replacedDuration: MediaTime { replaced.reduce(.zero) { $0 + $1.duration } }

    /// How many ad segments play: those within the span (all, while the span is open-ended).
    package var placedCount: Int { duration.map { limit in adEnds.prefix { $0 <= limit }.count } ?? adEnds.count }

    /// How many ad segments are published: those the content has passed while the break is open;
    /// once it is over, every one that plays.
    package var publishedCount: Int { isOpen ? published(within: replacedDuration) : placedCount }

    /// How many ad segments are out once the content has passed `passed` of break time. With the
    /// span asked from the start, each goes out once the content passes its start (so a player at
    /// the live edge never waits for an ad the content has reached); with an open-ended span, once
    /// the content passes its end (an `EXT-X-CUE-IN` may yet cut it).
    func published(within passed: MediaTime) -> Int {
        if let span = plannedDuration {
            let fits = adEnds.prefix { $0 <= span }.count
            var count = 0
            while count < fits, adEnds[count] - adSegments[count].duration < passed { count += 1 }
            return count
        }
        let limit = duration.map { MediaTime.min($0, passed) } ?? passed
        return adEnds.prefix { $0 <= limit }.count
    }

    /// The ad segments listed just before the content comes back: those ending after the last
    /// replaced segment (when content comes back before the ads' end).
    var adSegmentsAtReturn: Range<Int> {
        let first = published(within: replacedDuration)
        return first..<Swift.max(first, placedCount)
    }

    /// How far behind the content's clock the stream runs after the break (`debtBefore` while open).
    package var debtAfter: MediaTime {
        guard !isOpen, placedCount > 0 else { return debtBefore }
        return debtBefore + adEnds[placedCount - 1] - replacedDuration
    }

    /// Whether the break is still taking content segments.
    package var isOpen: Bool { contentReturn == nil }

    /// Takes the next content segment (number `startSequence + replaced.count`): replaces it, or
    /// gives the content back there. Returns whether the segment is replaced.
    mutating func take(_ segment: HLSMediaSegment, sequence: UInt64) -> Bool {
        let start = replacedDuration, end = start + segment.duration
        // An open span closes at its EXT-X-CUE-IN, and the content comes back there. Its ads end
        // at their last segment inside it (the stream early) or at the one crossing its end (late),
        // whichever leaves the stream nearer the content's clock: always cutting inside would
        // put the stream early by up to an ad segment at every such break, and they add up.
        let closesHere = segment.isCueIn && duration == nil
        if closesHere {
            duration = start
            if let inside = adEnds.last(where: { $0 <= start }), let crossing = adEnds.first(where: { $0 > start }),
               Self.magnitude(debtBefore + crossing - start) <= Self.magnitude(debtBefore + inside - start) {
                duration = crossing
            }
        }
        let placed = placedCount
        guard placed > 0 else {
            // No ad fits the span: nothing was published for the segments held back, so they
            // play as content after all, and the break changes nothing.
            replaced = []
            contentReturn = Return(sequence: startSequence, isDiscontinuity: false)
            return false
        }
        let adsEnd = adEnds[placed - 1]
        var backHere = adsEnd <= start || closesHere
        if !backHere, adsEnd <= end, start > .zero {
            // The ads end inside this segment: back here (late by adsEnd - start), or at the next
            // (early by end - adsEnd), whichever leaves the stream nearer the content's clock.
            let late = debtBefore + (adsEnd - start), early = debtBefore + (adsEnd - end)
            backHere = Self.magnitude(late) <= Self.magnitude(early)
        }
        if backHere {
            contentReturn = Return(sequence: sequence, isDiscontinuity: segment.isDiscontinuity)
            return false
        }
        replaced.append(Replaced(duration: segment.duration, isDiscontinuity: segment.isDiscontinuity))
        return true
    }

    private static func magnitude(_ time: MediaTime) -> MediaTime { time < .zero ? .zero - time : time }

    /// The ad segments published with replaced segment `index` (from 0): those whose end the
    /// content passes within it.
    func adSegments(publishedWith index: Int, replacedStart: MediaTime) -> Range<Int> {
        let first = published(within: replacedStart)
        return first..<Swift.max(first, published(within: replacedStart + replaced[index].duration))
    }

    /// The pod's ads from the first that plays (after `elapsed`), each with how long it plays in
    /// the break uncut: what the break's date range lists.
    package var podAsItPlays: [(id: String, duration: MediaTime)] {
        var pod: [(id: String, duration: MediaTime)] = []
        var previous: Int?
        for (segment, ad) in zip(adSegments, adOfSegment) {
            if ad != previous { pod.append((adIDs[ad], .zero)) }
            previous = ad
            pod[pod.count - 1].duration += segment.duration
        }
        return pod
    }

    /// Whether the stitched playlist marks the content's return (a break that placed no ad
    /// segment changes nothing).
    package var marksReturn: Bool { publishedCount > 0 }
}
