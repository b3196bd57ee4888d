extension Composition {
    /// Something the composition changed from what the schedule asked, so the caller can tell the user
    /// instead of the timeline silently differing.
    public enum Diagnostic: Hashable, Sendable, CustomStringConvertible {
        /// A clip's `end` was past its source's natural duration and was clamped to it.
        case endClamped(item: String, requested: MediaTime, naturalDuration: MediaTime)

        public var description: String {
            switch self {
            case .endClamped(let item, let requested, let natural):
                return "\(quoted(item)): end \(requested) s is past the source's natural duration; clamped to \(natural) s"
            }
        }
    }
}
