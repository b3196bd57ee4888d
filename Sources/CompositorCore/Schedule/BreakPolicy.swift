/// Whether a break stays on the timeline after it has played.
public enum BreakPolicy: String, Hashable, Sendable {
    /// Plays whenever playback crosses it, also after a rewind.
    case sticky
    /// Leaves the timeline once it has played through or been skipped.
    case once
}
