/// A break: a pod of one or more ads played in order at one place on the content timeline.
public struct AdBreak: Hashable, Sendable {
    public let id: String
    public var placement: Placement
    /// The pod, in play order; never empty.
    public internal(set) var ads: [Ad]
    public var policy: BreakPolicy
    /// Content time skipped when content resumes: the break *replaces* `[position, position + resumeOffset)`
    /// instead of being inserted. Zero (the default) inserts. Breaks at the same position share the
    /// replaced range; the longest offset among them wins.
    public var resumeOffset: MediaTime
    public var restrictions: BreakRestrictions

    /// Creates a break; the schedule checks it when it is added.
    ///
    /// - Parameters:
    ///   - id: Its ID, unique in the schedule.
    ///   - placement: Where it plays: before, inside or after the content.
    ///   - ads: The pod, in play order; not empty.
    ///   - policy: Whether it stays on the timeline once played (`.sticky` by default).
    ///   - resumeOffset: The content it replaces after its position (zero by default: inserted).
    ///   - restrictions: Skipping and seeking within its ads (none by default).
    public init(
        id: String, placement: Placement, ads: [Ad], policy: BreakPolicy = .sticky,
        resumeOffset: MediaTime = .zero, restrictions: BreakRestrictions = .none
    ) {
        self.id = id
        self.placement = placement
        self.ads = ads
        self.policy = policy
        self.resumeOffset = resumeOffset
        self.restrictions = restrictions
    }
}
