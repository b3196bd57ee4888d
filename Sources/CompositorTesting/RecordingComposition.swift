import Compositor

/// Records mutable-composition calls and models what `AVMutableCompositionTrack` does with them:
/// its segments stay contiguous from 0; an insertion at a time pushes what was there later;
/// a removal cuts the range out and pulls what follows earlier. Calls Apple documents as impossible
/// (an empty range at a track's end) or leaves undefined (media past a track's end) are recorded in
/// `ruleBreaks`; the first changes nothing, the second leaves an empty gap.
package final class RecordingComposition: MutableCompositionPort {
    package init() {}

    package struct TrackSegment: Hashable {
        package init(source: MediaLocation?, sourceStart: MediaTime, target: MediaTimeRange) {
            self.source = source
            self.sourceStart = sourceStart
            self.target = target
        }

        /// `nil` for an empty segment.
        package var source: MediaLocation?
        package var sourceStart: MediaTime
        package var target: MediaTimeRange
    }

    package final class Track: MutableCompositionTrackPort {
        package let kind: TrackKind
        package private(set) var segments: [TrackSegment] = []
        package var calls: [String] = []
        package private(set) var ruleBreaks: [String] = []

        package init(kind: TrackKind) { self.kind = kind }

        package var duration: MediaTime { segments.last?.target.end ?? .zero }

        package func insertTimeRange(_ range: MediaTimeRange, of source: MediaLocation, at startTime: MediaTime) throws {
            calls.append("insert \(source) \(range) at \(startTime)")
            insert(TrackSegment(source: source, sourceStart: range.start,
                                target: MediaTimeRange(start: startTime, duration: range.duration)))
        }

        package func insertEmptyTimeRange(_ range: MediaTimeRange) {
            calls.append("empty \(range)")
            guard range.start < duration else {
                ruleBreaks.append("empty \(range) at the \(kind) track's end \(duration)")
                return
            }
            insert(TrackSegment(source: nil, sourceStart: .zero, target: range))
        }

        private func insert(_ new: TrackSegment) {
            let at = new.target.start
            if at > duration {
                ruleBreaks.append("insert at \(at), past the \(kind) track's end \(duration)")
                segments.append(TrackSegment(source: nil, sourceStart: .zero, target: MediaTimeRange(start: duration, end: at)))
            }
            split(at: at)
            let shift = new.target.duration
            let index = segments.firstIndex { $0.target.start >= at } ?? segments.count
            for i in index..<segments.count { segments[i].target = segments[i].target.shifted(by: shift) }
            segments.insert(new, at: index)
        }

        package func remove(_ range: MediaTimeRange) {
            split(at: range.start)
            split(at: range.end)
            segments.removeAll { range.start <= $0.target.start && $0.target.end <= range.end }
            for i in segments.indices where segments[i].target.start >= range.end {
                segments[i].target = segments[i].target.shifted(by: -range.duration)
            }
        }

        private func split(at time: MediaTime) {
            guard let i = segments.firstIndex(where: { $0.target.start < time && time < $0.target.end }) else { return }
            let segment = segments[i], cut = time - segment.target.start
            segments[i].target = MediaTimeRange(start: segment.target.start, end: time)
            segments.insert(TrackSegment(source: segment.source, sourceStart: segment.sourceStart + cut,
                                         target: MediaTimeRange(start: time, end: segment.target.end)), at: i + 1)
        }

        /// Segments with adjacent pieces of one source that continue each other merged.
        package var merged: [TrackSegment] {
            var result: [TrackSegment] = []
            for segment in segments {
                if let last = result.last, last.source == segment.source, last.target.end == segment.target.start,
                   last.source == nil || last.sourceStart + last.target.duration == segment.sourceStart {
                    result[result.count - 1].target = MediaTimeRange(start: last.target.start, end: segment.target.end)
                } else {
                    result.append(segment)
                }
            }
            return result
        }
    }

    package private(set) var tracks: [Track] = []

    package func addMutableTrack(kind: TrackKind) throws -> Track {
        let track = Track(kind: kind)
        tracks.append(track)
        return track
    }

    package func removeTimeRange(_ range: MediaTimeRange) {
        for track in tracks { track.remove(range) }
    }

    package func track(_ kind: TrackKind) -> Track? { tracks.first { $0.kind == kind } }
}
