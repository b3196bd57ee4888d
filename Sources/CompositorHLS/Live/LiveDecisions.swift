import CompositorCore

/// Everything the live stitcher has decided: the breaks it opened and the content segments each
/// replaced, and how far into the content it has looked. With the content playlist as last
/// loaded, the whole input of `LiveStitcher.playlist`: media and discontinuity sequence numbers
/// are derived from it, never counted, so every process holding the same decisions writes the
/// same playlist for the same content.
///
/// Advance it with each load of the content, in order:
///
/// ```swift
/// decisions = try decisions.advanced(by: load, requests: requests(for: load))
/// let stitched = try LiveStitcher.playlist(content: load, decisions: decisions, url: outputURL)
/// ```
///
/// Decisions depend on which segments the content published, not on when it was loaded: two
/// stitchers that reload at different times, each seeing every segment, decide alike.
package struct LiveDecisions: Hashable, Sendable {
    /// The breaks, in content order.
    package private(set) var breaks: [LiveBreak] = []
    /// The media sequence number of the last content segment taken; `nil` before the first load.
    package private(set) var lastSequence: UInt64?
    /// The stitched playlists' `EXT-X-TARGETDURATION`: the content's at the first load, kept
    /// whatever the content says later (RFC 8216bis 6.2.1: it must not change); `nil` before the
    /// first load.
    package private(set) var targetDuration: Int64?

    /// The target duration a stitched playlist of `content` declares: the kept one, or the
    /// content's before any load was taken.
    package func stitchedTargetDuration(of content: HLSMediaPlaylist) -> Int64 { targetDuration ?? content.targetDuration }

    package init() {}

    /// Decisions written down before (`LiveDecisions.breaks`, `lastSequence` and `targetDuration`
    /// of a stitcher that stopped), to carry on its stream.
    package init(restoring breaks: [LiveBreak], lastSequence: UInt64?, targetDuration: Int64? = nil) {
        self.breaks = breaks
        self.lastSequence = lastSequence
        self.targetDuration = targetDuration
    }

    /// The decisions after the stitcher takes `content`'s new segments (those after `lastSequence`),
    /// opening a break at each new segment a request starts at (the first request there wins; a
    /// request whose ID a break already has is done). Inside an open break a request is dropped (a
    /// marker inside a break is part of it) unless it `waitsForOpenBreak`: then it starts where
    /// the content comes back.
    ///
    /// On the first load every segment is new, so a break joined under way is a request at the
    /// window's first segment with its `elapsed` time.
    ///
    /// - Throws: `LiveStitchError.missedSegments` when the window moved past segments never seen,
    ///   `.contentWentBack` when its media sequence decreased.
    package func advanced(by content: HLSMediaPlaylist, requests: [LiveBreakRequest]) throws(LiveStitchError) -> LiveDecisions {
        let first = content.mediaSequence ?? 0
        var next = self
        if next.targetDuration == nil { next.targetDuration = content.targetDuration }
        var number = first
        if let last = lastSequence {
            guard first <= last &+ 1 else { throw .missedSegments(url: content.url, lastSeen: last, firstNow: first) }
        }
        let dates = try LiveStitcher.programDates(of: content)
        var byStart: [UInt64: LiveBreakRequest] = [:]
        let decided = Set(breaks.map(\.id))
        for request in requests where byStart[request.startSequence] == nil && !decided.contains(request.id) {
            byStart[request.startSequence] = request
        }
        var waiting: LiveBreakRequest?
        // How far behind the content's clock the stream runs after the breaks over so far.
        var debt = next.breaks.last { !$0.isOpen }?.debtAfter ?? .zero
        for (index, segment) in content.segments.enumerated() {
            defer { number &+= 1 }
            if let last = lastSequence, number <= last { continue }
            var replaced = false
            if let open = next.breaks.indices.last, next.breaks[open].isOpen {
                replaced = next.breaks[open].take(segment, sequence: number)
                if !next.breaks[open].isOpen { debt = next.breaks[open].debtAfter }
            }
            if !replaced, let request = byStart[number] ?? waiting {
                if request.id == waiting?.id { waiting = nil }
                var opened = LiveBreak(request, at: number, startDate: dates[index], debtBefore: debt)
                _ = opened.take(segment, sequence: number)
                if !opened.isOpen { debt = opened.debtAfter }
                next.breaks.append(opened)
            } else if replaced, waiting == nil, let request = byStart[number], request.waitsForOpenBreak {
                waiting = request
            }
        }
        guard !content.segments.isEmpty else { return next }
        let end = number &- 1
        if let last = lastSequence, end < last { throw .contentWentBack(url: content.url, lastSeen: last, lastNow: end) }
        next.lastSequence = end
        return next
    }
}
