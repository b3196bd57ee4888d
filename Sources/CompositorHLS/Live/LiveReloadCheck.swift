import CompositorCore

/// What RFC 8216bis (6.2.1, 6.2.2) lets a server change between two loads of a live media playlist,
/// checked as Eyevinn's hls-monitor checks a live stream at every reload: the checker a stitched live
/// playlist is held to, reload after reload.
///
/// Between `previous` and `next` a server may only remove segments from the head, in order, append
/// segments, raise `EXT-X-MEDIA-SEQUENCE` by exactly the segments removed and
/// `EXT-X-DISCONTINUITY-SEQUENCE` by exactly the discontinuity tags that left, and add
/// `EXT-X-ENDLIST`. A segment both hold keeps its URI, duration, discontinuity and program date
/// time; the target duration never changes; a date range stays while any of its dates is in the
/// window, with the same attributes; a live window never shrinks below three target durations.
///
/// ```swift
/// for violation in LiveReloadCheck.violations(from: lastLoad, to: thisLoad) { print(violation) }
/// ```
package enum LiveReloadCheck {
    /// A rule a reload broke, with where (media sequence numbers, IDs) and the values.
    package struct Violation: Hashable, Sendable, CustomStringConvertible {
        package enum Rule: String, Hashable, Sendable {
            case targetDurationChanged
            case mediaSequenceDecreased
            /// The window moved past every segment of the previous load (segments never seen).
            case windowSkippedSegments
            /// Segments of the previous load's tail are missing (only the head may be removed).
            case segmentsRemovedFromTail
            /// A segment both loads hold differs (URI, duration, discontinuity, program date time).
            case segmentChanged
            case discontinuitySequenceMismatch
            case changedAfterEndList
            case dateRangeRemovedEarly
            case dateRangeChanged
            case windowTooShort
        }

        package let rule: Rule
        package let detail: String

        package var description: String { "\(rule.rawValue): \(detail)" }
    }

    /// Every rule `next` breaks as a reload of `previous`, in the order above (empty when none).
    ///
    /// - Parameters:
    ///   - previous: The playlist as loaded before.
    ///   - next: The playlist as loaded now.
    /// - Returns: The violations.
    package static func violations(from previous: HLSMediaPlaylist, to next: HLSMediaPlaylist) -> [Violation] {
        var found: [Violation] = []
        func fail(_ rule: Violation.Rule, _ detail: String) { found.append(Violation(rule: rule, detail: detail)) }
        if previous.hasEndList, previous != next {
            fail(.changedAfterEndList, "the playlist had EXT-X-ENDLIST and changed")
        }
        if previous.targetDuration != next.targetDuration {
            fail(.targetDurationChanged, "EXT-X-TARGETDURATION \(previous.targetDuration) became \(next.targetDuration)")
        }
        let before = previous.mediaSequence ?? 0, after = next.mediaSequence ?? 0
        guard after >= before else {
            fail(.mediaSequenceDecreased, "EXT-X-MEDIA-SEQUENCE \(before) became \(after)")
            return found
        }
        let removedCount = after - before
        guard removedCount <= UInt64(previous.segments.count) else {
            fail(.windowSkippedSegments, "EXT-X-MEDIA-SEQUENCE moved from \(before) to \(after), past the \(previous.segments.count) segments of the last load")
            return found
        }
        let removed = Int(removedCount)
        let kept = previous.segments[removed...]
        if next.segments.count < kept.count {
            fail(.segmentsRemovedFromTail, "segments \(before + UInt64(removed + next.segments.count))... of the last load are gone")
        }
        for (offset, (old, new)) in zip(kept, next.segments).enumerated() {
            let number = after + UInt64(offset)
            if old.resolvedURI != new.resolvedURI { fail(.segmentChanged, "segment \(number): URI \(old.uri) became \(new.uri)") }
            if old.duration != new.duration { fail(.segmentChanged, "segment \(number): duration \(old.duration) became \(new.duration)") }
            if old.isDiscontinuity != new.isDiscontinuity {
                fail(.segmentChanged, "segment \(number): EXT-X-DISCONTINUITY \(old.isDiscontinuity ? "removed" : "added")")
            }
            if let oldDate = old.programDateTime, let newDate = new.programDateTime, oldDate.secondsSinceEpoch != newDate.secondsSinceEpoch {
                fail(.segmentChanged, "segment \(number): EXT-X-PROGRAM-DATE-TIME \(oldDate) became \(newDate)")
            }
        }
        let leftTags = UInt64(previous.segments[..<removed].filter(\.isDiscontinuity).count)
        let expected = (previous.discontinuitySequence ?? 0) + leftTags
        if (next.discontinuitySequence ?? 0) != expected {
            fail(.discontinuitySequenceMismatch,
                 "EXT-X-DISCONTINUITY-SEQUENCE \(next.discontinuitySequence ?? 0), expected \(expected) (\(previous.discontinuitySequence ?? 0) + \(leftTags) tag(s) that left)")
        }
        found += dateRangeViolations(from: previous, to: next)
        if !next.hasEndList, removed > 0, let total = try? next.totalDuration, total < MediaTime(seconds: 3 * next.targetDuration) {
            fail(.windowTooShort, "\(total) s after removing segments, less than 3 x \(next.targetDuration) s")
        }
        return found
    }

    /// A date range of the last load must stay while any of its dates is at or after the first
    /// program date time of the new window, and keep every attribute it had.
    private static func dateRangeViolations(from previous: HLSMediaPlaylist, to next: HLSMediaPlaylist) -> [Violation] {
        var found: [Violation] = []
        let now = Dictionary(next.segments.flatMap(\.dateRanges).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let windowStart = next.segments.lazy.compactMap(\.programDateTime).first?.secondsSinceEpoch
        for range in previous.segments.flatMap(\.dateRanges) {
            if let current = now[range.id] {
                for name in range.attributes.names where current.attributes[name] != nil && current.attributes[name] != range.attributes[name] {
                    found.append(Violation(rule: .dateRangeChanged, detail: "date range \(range.id): \(name) changed"))
                }
                continue
            }
            guard let windowStart else { continue }
            let dates = [range.startDate?.secondsSinceEpoch, range.endDate?.secondsSinceEpoch,
                         range.startDate.flatMap { start in range.duration.flatMap { try? start.secondsSinceEpoch.adding($0) } }].compactMap { $0 }
            if dates.contains(where: { $0 >= windowStart }) {
                found.append(Violation(rule: .dateRangeRemovedEarly, detail: "date range \(range.id) left while one of its dates is still in the window"))
            }
        }
        return found
    }
}
