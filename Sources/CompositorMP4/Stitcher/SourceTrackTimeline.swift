import CompositorCore

/// How one source track's media maps onto its presentation timeline, in the shapes the stitcher
/// can cut: optional leading empty edits (the track starts late), then one media edit at rate 1
/// (or no edit list at all).
struct SourceTrackTimeline: Sendable {
    let track: MP4Track
    /// When the track's media starts presenting (the leading empty edits' total).
    let presentationStart: MediaTime
    /// The media (composition) time, in ticks, shown at `presentationStart`.
    let mediaStart: Int64
    /// How long the media presents.
    let presentationDuration: MediaTime
    /// `presentationStart + presentationDuration`, checked once (the two may have different
    /// timescales, whose common one may not fit).
    let presentationEnd: MediaTime
    var timescale: Int32 { track.timescale }
    var samples: MP4SampleTable { track.samples }

    init(track: MP4Track, file: String) throws(MP4Error) {
        self.track = track
        let movieTimescale = track.movieTimescale
        guard let editList = track.editList, !editList.isEmpty else {
            let priming = track.kind == .audio ? track.gaplessInfo?.priming ?? 0 : 0
            presentationStart = .zero
            mediaStart = priming
            if track.kind == .audio, let gapless = track.gaplessInfo {
                presentationDuration = MediaTime(value: gapless.sampleCount, timescale: track.timescale)
            } else {
                presentationDuration = MediaTime(value: max(0, track.samples.decodeEnd - priming), timescale: track.timescale)
            }
            presentationEnd = presentationDuration
            return
        }
        var leading: UInt64 = 0
        var index = 0
        while index < editList.count, editList[index].isEmpty {
            leading &+= editList[index].segmentDuration
            index += 1
        }
        let mediaEdits = editList[index...].filter { !$0.isEmpty }
        let trailingEmpty = editList[index...].dropFirst().allSatisfy(\.isEmpty)
        guard mediaEdits.count == 1, trailingEmpty, let edit = mediaEdits.first, let mediaTime = edit.mediaTime else {
            throw .unsupported(file: file, boxPath: track.boxPath + "/edts/elst", offset: track.editListOffset ?? track.boxOffset,
                               reason: "an edit list with \(mediaEdits.count) media segments (only one is supported)")
        }
        presentationStart = MediaTime(value: Int64(clamping: leading), timescale: movieTimescale)
        mediaStart = mediaTime
        if edit.segmentDuration == 0 {
            // Some writers leave the duration 0 to mean "the rest of the media".
            presentationDuration = MediaTime(value: max(0, track.samples.decodeEnd - mediaTime), timescale: track.timescale)
        } else {
            presentationDuration = MediaTime(value: Int64(clamping: edit.segmentDuration), timescale: movieTimescale)
        }
        do { presentationEnd = try presentationStart.adding(presentationDuration) } catch {
            throw .timeOverflow(file: file, reason: "\(track.boxPath) presents until past the time range: \(error)")
        }
    }

    /// The media time (seconds on the media's composition timeline) shown at presentation time `t`.
    func mediaTime(at t: MediaTime) throws(MediaTimeError) -> MediaTime {
        try MediaTime(value: mediaStart, timescale: timescale).adding(try t.subtracting(presentationStart))
    }

    /// The presentation time of media time `m`: the inverse of `mediaTime(at:)`.
    func presentationTime(ofMedia m: MediaTime) throws(MediaTimeError) -> MediaTime {
        try m.subtracting(MediaTime(value: mediaStart, timescale: timescale)).adding(presentationStart)
    }

    /// Composition time of sample `index` as a time.
    func compositionTime(_ index: Int) -> MediaTime {
        MediaTime(value: samples.compositionTime(index), timescale: timescale)
    }
}
