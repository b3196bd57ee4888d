extension Composition {
    /// Something the composition changed from what the schedule asked, so the caller can tell the user
    /// instead of the timeline silently differing.
    public enum Diagnostic: Hashable, Sendable, CustomStringConvertible {
        /// A clip's `end` was past its source's natural duration and was clamped to it.
        case endClamped(item: String, requested: MediaTime, naturalDuration: MediaTime)
        /// A time of the schedule is not a whole number of ticks of the composition's timescale,
        /// which happens only when the schedule's timescales have no common multiple within `Int32`
        /// (see `Composition.timescale`): it was rounded to the nearest tick, halfway away from zero.
        /// `field` is `"start"`, `"end"`, `"position"` or `"resumeOffset"` (`"actual start"` and
        /// `"actual end"` for `replacingSourceRanges(_:)`).
        case timeRounded(item: String, field: String, requested: MediaTime, rounded: MediaTime)

        public var description: String {
            switch self {
            case .endClamped(let item, let requested, let natural):
                return "\(quoted(item)): end \(requested) s is past the source's natural duration; clamped to \(natural) s"
            case .timeRounded(let item, let field, let requested, let rounded):
                return "\(quoted(item)): \(field) \(requested) s shares no timescale within 32 bits with the schedule's other times; "
                    + "rounded to the nearest 1/\(rounded.timescale) s: \(rounded) s"
            }
        }
    }
}
