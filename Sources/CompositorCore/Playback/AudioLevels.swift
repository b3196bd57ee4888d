/// The volume of a composition's one audio track over time, so that each source plays at the
/// level it asks for on its own (an MP4 track header's volume, `AVAssetTrack.preferredVolume`).
///
/// A composition track plays everything it holds at its own level, one for the whole track, so a
/// source asking for less (a quiet ad, a muted bumper) needs its level set where its segment starts.
/// Levels are clamped to `0...1`, the range an audio mix takes.
///
/// ```
/// segments  |content 1.0 |ad 0.5 |ad 0.5 |content 1.0 |bumper (no audio)|content 1.0
/// changes                 0.5 at the first ad  1.0 at content   (no audio: nothing to set)
/// ```
package enum AudioLevels {
    /// From `start` on, the track plays at `volume`.
    package struct Change: Equatable, Sendable {
        package var start: MediaTime
        package var volume: Float
    }

    /// The changes of volume along `composition` (before the first, 1), or `nil` when every
    /// source with audio plays at 1 and nothing needs setting. `level` gives a source's level, or
    /// `nil` when it has no audio.
    package static func plan(for composition: Composition, level: (MediaLocation) -> Float?) -> [Change]? {
        var changes: [Change] = []
        var current: Float = 1
        for segment in composition.segments {
            guard let asked = level(segment.source) else { continue }
            let volume = asked.isNaN ? 1 : min(max(asked, 0), 1)
            guard volume != current else { continue }
            changes.append(Change(start: segment.compositionRange.start, volume: volume))
            current = volume
        }
        return changes.isEmpty ? nil : changes
    }
}
