import CompositorCore

/// How one media segment of a source track maps onto its presentation timeline: the segment
/// starts presenting at `presentationStart` (after the edits before it), shows the media from
/// `mediaStart` at rate 1 for `presentationDuration`, or, a dwell (an edit at media rate 0), holds
/// the frame at `mediaStart` that long. A track without an edit list, or with one media edit after
/// empty ones (it starts late), has one; a stitched file has one per piece.
package struct SourceTrackTimeline: Sendable {
    /// The track, shared by every timeline of it (a track is a large value: a source that is
    /// itself a stitch has a timeline per piece).
    private final class SharedTrack: Sendable {
        let track: MP4Track
        init(_ track: MP4Track) { self.track = track }
    }
    /// A timeline is found once per source and shared by every piece cut from it: a render of
    /// 10,000 breaks holds 20,000 pieces of one source.
    private final class Storage: Sendable {
        let shared: SharedTrack
        let presentationStart: MediaTime
        let mediaStart: Int64
        let presentationDuration: MediaTime
        let isDwell: Bool
        let presentationEnd: MediaTime

        init(shared: SharedTrack, presentationStart: MediaTime, mediaStart: Int64, presentationDuration: MediaTime,
             isDwell: Bool, presentationEnd: MediaTime) {
            self.shared = shared
            self.presentationStart = presentationStart
            self.mediaStart = mediaStart
            self.presentationDuration = presentationDuration
            self.isDwell = isDwell
            self.presentationEnd = presentationEnd
        }
    }
    private let storage: Storage
    var track: MP4Track { storage.shared.track }
    /// When the track's media starts presenting (the leading empty edits' total).
    package var presentationStart: MediaTime { storage.presentationStart }
    /// The media (composition) time, in ticks, shown at `presentationStart`.
    var mediaStart: Int64 { storage.mediaStart }
    /// How long the media presents.
    var presentationDuration: MediaTime { storage.presentationDuration }
    /// The frame at `mediaStart` is held for the whole segment (video only: a dwell in audio is
    /// silence, a gap between timelines).
    var isDwell: Bool { storage.isDwell }
    /// `presentationStart + presentationDuration`, checked once (the two may have different
    /// timescales, whose common one may not fit).
    package var presentationEnd: MediaTime { storage.presentationEnd }
    var timescale: Int32 { track.timescale }
    var samples: MP4SampleTable { track.samples }

    private init(track: SharedTrack, presentationStart: MediaTime, mediaStart: Int64, presentationDuration: MediaTime,
                 isDwell: Bool = false, file: String) throws(MP4Error) {
        let end: MediaTime
        do { end = try presentationStart.adding(presentationDuration) } catch {
            throw .timeOverflow(file: file, reason: "\(track.track.boxPath) presents until past the time range: \(error)")
        }
        storage = Storage(shared: track, presentationStart: presentationStart, mediaStart: mediaStart,
                          presentationDuration: presentationDuration, isDwell: isDwell, presentationEnd: end)
    }

    /// The track's timeline when its edit list has at most one media segment (after any empty
    /// ones), played at rate 1; otherwise "unsupported", naming the edit list.
    init(track: MP4Track, file: String) throws(MP4Error) {
        let timelines = try Self.timelines(of: track, file: file)
        let unsupported = timelines.count != 1 ? "an edit list with \(timelines.count) media segments (only one is supported here)"
            : timelines[0].isDwell ? "an edit list that only holds one frame (a dwell, media rate 0)" : nil
        if let unsupported {
            throw .unsupported(file: file, boxPath: track.boxPath + "/edts/elst", offset: track.editListOffset ?? track.boxOffset,
                               reason: unsupported)
        }
        self = timelines[0]
    }

    /// One timeline per media segment of the track's edit list, in presentation order, each
    /// starting where the edits before it (empty or not) end: a source that is itself a stitch
    /// (one edit per piece) has one per piece. Without an edit list, the media as it is (less AAC
    /// priming and padding when `iTunSMPB` says so). A media segment of duration 0 means "the rest
    /// of the media" when it is the last, and shows nothing elsewhere. A dwell is a video timeline
    /// of its own; in audio it holds no sound, so it is left out like an empty edit (silence).
    package static func timelines(of track: MP4Track, file: String) throws(MP4Error) -> [SourceTrackTimeline] {
        let shared = SharedTrack(track)
        guard let editList = track.editList, !editList.isEmpty else {
            let priming = track.kind == .audio ? track.gaplessInfo?.priming ?? 0 : 0
            let duration = if track.kind == .audio, let gapless = track.gaplessInfo {
                MediaTime(value: gapless.sampleCount, timescale: track.timescale)
            } else {
                MediaTime(value: max(0, track.samples.decodeEnd - priming), timescale: track.timescale)
            }
            return [try SourceTrackTimeline(track: shared, presentationStart: .zero, mediaStart: priming,
                                            presentationDuration: duration, file: file)]
        }
        let lastMedia = editList.lastIndex { !$0.isEmpty }
        var position: UInt64 = 0
        var timelines: [SourceTrackTimeline] = []
        for (index, edit) in editList.enumerated() {
            if edit.isDwell {
                if let mediaTime = edit.mediaTime, edit.segmentDuration > 0, track.kind == .video {
                    timelines.append(try SourceTrackTimeline(
                        track: shared, presentationStart: MediaTime(value: Int64(clamping: position), timescale: track.movieTimescale),
                        mediaStart: mediaTime, presentationDuration: MediaTime(value: Int64(clamping: edit.segmentDuration), timescale: track.movieTimescale),
                        isDwell: true, file: file))
                }
            } else if let mediaTime = edit.mediaTime, edit.segmentDuration > 0 || index == lastMedia {
                let start = MediaTime(value: Int64(clamping: position), timescale: track.movieTimescale)
                let duration = edit.segmentDuration == 0
                    ? MediaTime(value: max(0, track.samples.decodeEnd - mediaTime), timescale: track.timescale)
                    : MediaTime(value: Int64(clamping: edit.segmentDuration), timescale: track.movieTimescale)
                timelines.append(try SourceTrackTimeline(track: shared, presentationStart: start, mediaStart: mediaTime,
                                                         presentationDuration: duration, file: file))
            }
            let (end, overflow) = position.addingReportingOverflow(edit.segmentDuration)
            guard !overflow else {
                throw .timeOverflow(file: file, reason: "\(track.boxPath)'s edit list lasts more than 2^64 ticks")
            }
            position = end
        }
        return timelines
    }

    /// The media time (seconds on the media's composition timeline) shown at presentation time `t`
    /// (in a dwell, always the held one).
    func mediaTime(at t: MediaTime) throws(MediaTimeError) -> MediaTime {
        let start = MediaTime(value: mediaStart, timescale: timescale)
        return isDwell ? start : try start.adding(try t.subtracting(presentationStart))
    }

    /// The presentation time of media time `m`: the inverse of `mediaTime(at:)` (in a dwell, the
    /// held frame shows from the start).
    func presentationTime(ofMedia m: MediaTime) throws(MediaTimeError) -> MediaTime {
        isDwell ? presentationStart : try m.subtracting(MediaTime(value: mediaStart, timescale: timescale)).adding(presentationStart)
    }

    /// Composition time of sample `index` as a time.
    func compositionTime(_ index: Int) -> MediaTime {
        MediaTime(value: samples.compositionTime(index), timescale: timescale)
    }
}
