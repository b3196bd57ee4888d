/// Where a break sits on the content timeline.
///
/// Breaks at the same place play in the order they were scheduled. A mid-roll at 0 plays after the
/// pre-rolls; a mid-roll at the content's end plays before the post-rolls.
public enum Placement: Hashable, Sendable {
    /// Before any content.
    case preroll
    /// When content reaches this content time (`0 <= time <= content duration`).
    case midroll(at: MediaTime)
    /// After all content.
    case postroll
}

extension Placement: CustomStringConvertible {
    public var description: String {
        switch self {
        case .preroll: return "preroll"
        case .midroll(let time): return "midroll at \(time)"
        case .postroll: return "postroll"
        }
    }
}
