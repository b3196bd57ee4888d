/// Why a schedule is invalid. Every case names the item (by ID) and the offending value.
public enum ScheduleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The schedule has no content clip.
    case noContent
    /// An ID is empty.
    case emptyID(kind: String)
    /// Two items (clips, breaks or ads share one namespace) have the same ID.
    case duplicateID(String)
    /// An operation names an item that is not in the schedule.
    case unknownID(String)
    /// A time that must not be negative is.
    case negativeTime(item: String, field: String, value: MediaTime)
    /// `end <= start`.
    case emptyRange(item: String, start: MediaTime, end: MediaTime)
    /// A break with no ads.
    case emptyPod(breakID: String)
    /// A mid-roll placed past the end of the content.
    case midrollOutsideContent(breakID: String, at: MediaTime, contentDuration: MediaTime)
    /// A clip without `end` whose source's natural duration is not known.
    case unknownDuration(item: String, source: MediaLocation)
    /// A clip that starts at or after its source's end.
    case startPastNaturalDuration(item: String, start: MediaTime, naturalDuration: MediaTime)
    /// A break placed inside content that an earlier break's `resumeOffset` replaces.
    case breakInsideReplacedContent(breakID: String, at: MediaTime, replacedBy: String, replaced: MediaTimeRange)
    /// A `resumeOffset` that reaches past the end of the content.
    case resumeOffsetPastContentEnd(breakID: String, resumesAt: MediaTime, contentDuration: MediaTime)
    /// Times that cannot be added up exactly in 64 bits.
    case timeOverflow(item: String, MediaTimeError)
    /// A range that rounding to the composition's timescale would empty: it is shorter than one tick
    /// (`1/timescale` s), and its times share no finer timescale with the rest of the schedule
    /// within `Int32` (see `Composition.timescale`).
    case rangeBelowTimescale(item: String, start: MediaTime, end: MediaTime, timescale: Int32)
    /// `Composition.replacingSourceRanges(_:)` needs one range per segment.
    case sourceRangeCount(given: Int, segments: Int)
    /// Pieces of a clip that would overlap once their cuts are moved to where the source allows
    /// (`Composition.replacingSourceRanges(_:)`): one ends at `end`, the next starts at `nextStart`.
    case overlappingPieces(item: String, end: MediaTime, nextStart: MediaTime)

    public var description: String {
        switch self {
        case .noContent:
            return "the schedule has no content clip"
        case .emptyID(let kind):
            return "a \(kind) has an empty ID"
        case .duplicateID(let id):
            return "ID \(quoted(id)) is used twice (clips, breaks and ads share one namespace)"
        case .unknownID(let id):
            return "no clip, break or ad has ID \(quoted(id))"
        case .negativeTime(let item, let field, let value):
            return "\(quoted(item)): \(field) \(value) s is negative"
        case .emptyRange(let item, let start, let end):
            return "\(quoted(item)): empty range, end \(end) s is not after start \(start) s"
        case .emptyPod(let breakID):
            return "break \(quoted(breakID)) has no ads"
        case .midrollOutsideContent(let breakID, let at, let contentDuration):
            return "break \(quoted(breakID)) at \(at) s is outside the content (0...\(contentDuration) s)"
        case .unknownDuration(let item, let source):
            return "\(quoted(item)): no end given and the natural duration of \(source) is not known"
        case .startPastNaturalDuration(let item, let start, let natural):
            return "\(quoted(item)): start \(start) s is not before the end of its source (\(natural) s)"
        case .breakInsideReplacedContent(let breakID, let at, let replacedBy, let replaced):
            return "break \(quoted(breakID)) at \(at) s lies in content \(replaced) replaced by break \(quoted(replacedBy))"
        case .resumeOffsetPastContentEnd(let breakID, let resumesAt, let contentDuration):
            return "break \(quoted(breakID)): content would resume at \(resumesAt) s, past the content's end (\(contentDuration) s)"
        case .timeOverflow(let item, let error):
            return "\(quoted(item)): \(error)"
        case .rangeBelowTimescale(let item, let start, let end, let timescale):
            return "\(quoted(item)): range [\(start), \(end)) s is shorter than one tick (1/\(timescale) s) of the timescale "
                + "the schedule's times were rounded to (they share no finer timescale within 32 bits)"
        case .overlappingPieces(let item, let end, let nextStart):
            return "\(quoted(item)): one piece would end at \(end) s and the next start at \(nextStart) s, playing content twice: "
                + "its source has no keyframe (or segment boundary) near the cut between them. Cut nearer one, or use sample-accurate cuts"
        case .sourceRangeCount(let given, let segments):
            return "\(given) source ranges for a composition of \(segments) segments; give one per segment, in order"
        }
    }
}
