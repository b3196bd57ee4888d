import CompositorCore
import CompositorHLS

/// What one reload of live content found and did: the one-line status the demo prints.
///
/// ```
/// reload 14: content 340-345 (6), stitched seq 338 ds 4 (8 segments), wrote; break ssai-343 open (3 of 5 ad segments)
/// ```
package struct LiveReloadStatus: Sendable, CustomStringConvertible {
    package enum Change: Sendable, Equatable {
        case changed
        /// The content was as last loaded.
        case unchanged
        /// The load failed; the last stitched playlist stays.
        case failed(String)
    }

    package let reload: Int
    package var change = Change.changed
    /// The content's window: its first and last media sequence numbers.
    package var content: ClosedRange<UInt64>?
    package var stitchedSequence: UInt64?
    package var stitchedDiscontinuitySequence: UInt64?
    package var stitchedSegments = 0
    /// Whether the stitched playlist was rewritten.
    package var wrote = false
    /// The break taking content segments now, and how many of its ad segments are out.
    package var openBreak: (id: String, published: Int, total: Int)?
    /// The breaks decided so far.
    package var breaks = 0
    /// Rules of RFC 8216bis the content itself broke on this reload (the origin's, not ours).
    package var contentViolations: [String] = []
    /// Decisions worth a word (a break under way at the first load left as content).
    package var notes: [String] = []
    package var ended = false

    package init(reload: Int) { self.reload = reload }

    mutating func record(content: HLSMediaPlaylist, stitched: HLSMediaPlaylist, decisions: LiveDecisions) {
        let first = content.mediaSequence ?? 0
        self.content = content.segments.isEmpty ? nil : first...(first + UInt64(content.segments.count) - 1)
        stitchedSequence = stitched.mediaSequence
        stitchedDiscontinuitySequence = stitched.discontinuitySequence
        stitchedSegments = stitched.segments.count
        breaks = decisions.breaks.count
        if let open = decisions.breaks.last, open.isOpen { openBreak = (open.id, open.publishedCount, open.adSegments.count) }
        ended = content.hasEndList
    }

    package var description: String {
        var text = "reload \(reload): "
        switch change {
        case .unchanged: return text + "content unchanged"
        case .failed(let reason): return text + "load failed (\(reason)); the stitched playlist stays as it was"
        case .changed: break
        }
        if let content { text += "content \(content.lowerBound)-\(content.upperBound) (\(content.count))" } else { text += "content empty" }
        text += ", stitched seq \(stitchedSequence ?? 0) ds \(stitchedDiscontinuitySequence ?? 0) (\(stitchedSegments) segments)"
        text += wrote ? ", wrote" : ", same"
        if let open = openBreak { text += "; break \(open.id) open (\(open.published) of \(open.total) ad segments)" }
        text += "; \(breaks) break\(breaks == 1 ? "" : "s") so far"
        if ended { text += "; the content ended" }
        for violation in contentViolations { text += "; origin broke \(violation)" }
        for note in notes { text += "; \(note)" }
        return text
    }
}
