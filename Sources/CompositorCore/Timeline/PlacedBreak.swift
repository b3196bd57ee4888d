/// A break as it sits in a composition.
public struct PlacedBreak: Hashable, Sendable {
    public let id: String
    public let placement: Placement
    /// The content time where the break plays (0 for pre-rolls, the content duration for post-rolls).
    public let position: MediaTime
    /// Where the break's ads sit in the composition.
    public let compositionRange: MediaTimeRange
    public let policy: BreakPolicy
    public let restrictions: BreakRestrictions
    /// The content time where content resumes after this break: `position + resumeOffset`, or
    /// further when an earlier break at the same position replaced more.
    public let resumeContentTime: MediaTime
    public let adIDs: [String]
    /// The indices of the break's ad segments in `Composition.segments`.
    public let segmentIndices: Range<Int>
}
