/// Which tracks a source has and how long each presents (from 0), as probing reports them.
package struct SourceTrackLayout: Hashable, Sendable {
    package var durations: [TrackKind: MediaTime]

    package init(durations: [TrackKind: MediaTime]) { self.durations = durations }
}

/// The calls a mutable composition needs, shaped like `AVMutableComposition` and
/// `AVMutableCompositionTrack`; the AVFoundation adapter forwards them, tests record them.
package protocol MutableCompositionTrackPort: AnyObject {
    /// `insertTimeRange(_:of:at:)`: `range` of `source`'s track of this kind, at `startTime`.
    func insertTimeRange(_ range: MediaTimeRange, of source: MediaLocation, at startTime: MediaTime) throws
    /// `insertEmptyTimeRange(_:)`: nothing (silence, for audio) for `range`.
    func insertEmptyTimeRange(_ range: MediaTimeRange)
}

package protocol MutableCompositionPort: AnyObject {
    associatedtype Track: MutableCompositionTrackPort
    /// `addMutableTrack(withMediaType:preferredTrackID:)`; throws where that returns `nil`.
    func addMutableTrack(kind: TrackKind) throws -> Track
    /// `removeTimeRange(_:)`: removes `range` from every track; what follows moves up.
    func removeTimeRange(_ range: MediaTimeRange)
}

/// One call of a composition edit.
package enum CompositionEdit: Hashable, Sendable {
    case insert(track: TrackKind, source: MediaLocation, sourceRange: MediaTimeRange, at: MediaTime)
    case insertEmpty(track: TrackKind, range: MediaTimeRange)
    case removeTimeRange(MediaTimeRange)
}

/// Why a composition cannot be turned into edits.
package enum CompositionEditError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The caller gave no track layout for a source the composition uses.
    case unknownTracks(MediaLocation)
    /// No source of the composition has any track.
    case noTracks

    package var description: String {
        switch self {
        case .unknownTracks(let source): return "no track layout for \(source) (probe it first)"
        case .noTracks: return "no source of the composition has a video or audio track"
        }
    }
}

/// Turns compositions into mutable-composition calls. Everything that decides lives here; the
/// adapter for `AVMutableComposition` only forwards.
///
/// Apple's rule shapes the order: "you cannot add empty time ranges to the end of a composition
/// track" (AVCompositionTrack.h), and inserting past a track's end is undocumented. So each track
/// gets its media first, back to back from 0, then the empty ranges between media, earliest first:
/// each lands inside the track and pushes the media after it into place. A track whose sources end
/// before the composition does simply ends there (the player presents nothing, silence for audio).
///
/// ```
/// composition  0        10      15        25      30
///              |C 0-10  |  ad   |C 10-20  | ad2   |      (neither ad has audio)
/// video        insert C[0,10)@0, insert ad[0,5)@10, insert C[10,20)@15, insert ad2[0,5)@25
/// audio        insert C[0,10)@0, insert C[10,20)@10, then empty [10,15): C[10,20) moves to 15;
///              no empty [25,30): the audio track ends at 25
/// ```
package enum CompositionEditPlanner {
    /// The calls that build `composition` from empty, track by track: each segment's source range
    /// where the source's track covers it, empty where it does not (a missing track, or one that
    /// ends early), in the order described above, so every piece of media lands at its
    /// composition time and no call adds emptiness at a track's end or media past it.
    package static func edits(
        for composition: Composition, tracks: (MediaLocation) -> SourceTrackLayout?
    ) throws(CompositionEditError) -> [CompositionEdit] {
        var layouts: [MediaLocation: SourceTrackLayout] = [:]
        for segment in composition.segments where layouts[segment.source] == nil {
            guard let layout = tracks(segment.source) else { throw .unknownTracks(segment.source) }
            layouts[segment.source] = layout
        }
        let kinds = TrackKind.allCases.filter { kind in layouts.values.contains { $0.durations[kind] != nil } }
        guard !kinds.isEmpty else { throw .noTracks }

        var edits: [CompositionEdit] = []
        for kind in kinds {
            // The track as it must end up: media pieces, and the empty stretches between them.
            var media: [(source: MediaLocation, range: MediaTimeRange)] = []
            var gaps: [MediaTimeRange] = []
            var openGap: MediaTimeRange?
            for segment in composition.segments {
                let target = segment.compositionRange
                let available = layouts[segment.source]?.durations[kind] ?? .zero
                let coveredEnd = MediaTime.min(segment.sourceRange.end, available)
                var filledTo = target.start
                if coveredEnd > segment.sourceRange.start {
                    if let gap = openGap { gaps.append(gap); openGap = nil }
                    let range = MediaTimeRange(start: segment.sourceRange.start, end: coveredEnd)
                    media.append((segment.source, range))
                    filledTo = target.start + range.duration
                }
                if filledTo < target.end {
                    openGap = MediaTimeRange(start: openGap?.start ?? filledTo, end: target.end)
                }
            }
            // `openGap` is what is left at the end: no call can add it.
            var end = MediaTime.zero
            for piece in media {
                edits.append(.insert(track: kind, source: piece.source, sourceRange: piece.range, at: end))
                end = end + piece.range.duration
            }
            edits += gaps.map { .insertEmpty(track: kind, range: $0) }
        }
        return edits
    }

    /// The removals that turn `old` into `new` when `new` is `old` less some breaks (a `once` break
    /// that played), latest first so each range is still where `old` had it; `nil` when the change
    /// is anything else, which needs a new composition.
    package static func removals(from old: Composition, to new: Composition) -> [CompositionEdit]? {
        let kept = Set(new.breaks.map(\.id))
        let removed = old.breaks.filter { !kept.contains($0.id) }
        guard !removed.isEmpty else { return old == new ? [] : nil }
        var remaining = old.segments
        for placed in removed.reversed() { remaining.removeSubrange(placed.segmentIndices) }
        guard pieces(of: remaining) == pieces(of: new.segments) else { return nil }
        return removed.reversed().map { .removeTimeRange($0.compositionRange) }
    }

    /// Replays `edits` on `composition`, adding the tracks the edits use.
    package static func apply<Port: MutableCompositionPort>(_ edits: [CompositionEdit], to composition: Port) throws {
        var tracks: [TrackKind: Port.Track] = [:]
        func track(_ kind: TrackKind) throws -> Port.Track {
            if let existing = tracks[kind] { return existing }
            let made = try composition.addMutableTrack(kind: kind)
            tracks[kind] = made
            return made
        }
        for edit in edits {
            switch edit {
            case .insert(let kind, let source, let range, let at): try track(kind).insertTimeRange(range, of: source, at: at)
            case .insertEmpty(let kind, let range): try track(kind).insertEmptyTimeRange(range)
            case .removeTimeRange(let range): composition.removeTimeRange(range)
            }
        }
    }

    /// What plays, with adjacent segments that continue the same clip merged (a removed break no
    /// longer splits its clip in two).
    private static func pieces(of segments: [Segment]) -> [Piece] {
        var merged: [Piece] = []
        for segment in segments {
            if let last = merged.last, last.role == segment.role, last.source == segment.source,
               last.range.end == segment.sourceRange.start {
                merged[merged.count - 1].range = MediaTimeRange(start: last.range.start, end: segment.sourceRange.end)
            } else {
                merged.append(Piece(role: segment.role, source: segment.source, range: segment.sourceRange))
            }
        }
        return merged
    }

    private struct Piece: Equatable {
        let role: Segment.Role
        let source: MediaLocation
        var range: MediaTimeRange
    }
}
