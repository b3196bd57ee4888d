/// The kind of a media track: what a composition and a stitched file carry one of each of.
public enum TrackKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case video
    case audio

    public var description: String { rawValue }
}
