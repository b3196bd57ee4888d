import CompositorCore

/// Where a source's time 0 is on its samples' timestamps: what lines up an HLS variant and its
/// renditions, whose segments share one clock but are read as separate movies, and a WebVTT
/// rendition's `X-TIMESTAMP-MAP` against its variant.
package enum TimestampOrigin {
    /// A 90 kHz presentation timestamp (unwrapped from the first segment's, so it may pass 2^33).
    case transportStream(Int64)
    /// A time on the `tfdt` timeline.
    case fragmented(MediaTime)

    /// How far after this origin `other` is. Two transport streams are compared modulo the 33-bit
    /// wrap (the nearer way round), as each was unwrapped from its own first timestamp.
    package func distance(to other: TimestampOrigin) throws(MediaTimeError) -> MediaTime {
        let clock = Int32(TransportStreamReader.clock)
        if case .transportStream(let start) = self, case .transportStream(let end) = other {
            let wrap: Int64 = 1 << 33
            var ticks = (end - start) % wrap
            if ticks > wrap / 2 { ticks -= wrap } else if ticks < -wrap / 2 { ticks += wrap }
            return MediaTime(value: ticks, timescale: clock)
        }
        return try other.time.subtracting(time)
    }

    private var time: MediaTime {
        switch self {
        case .transportStream(let ticks): return MediaTime(value: ticks, timescale: Int32(TransportStreamReader.clock))
        case .fragmented(let time): return time
        }
    }
}

extension MP4Movie {
    /// This movie (an HLS variant's video) with its audio from `rendition` instead, whose time 0
    /// is `offset` after this movie's (earlier when negative): the audio's edits gain an empty
    /// edit in front, or lose their first `-offset`. The rendition's samples follow this movie's
    /// in the store (`MP4SampleStore.demuxed`).
    ///
    /// ```
    /// video      |0 ........................ 10|        time 0: the video's first frame
    /// rendition  |0 ......................... 10|       offset -0.021: priming before the video
    /// result     audio edit: media from 0.021 s, 10 s long
    /// ```
    func replacingAudio(with rendition: MP4Movie, startingAt offset: MediaTime) throws(MP4Error) -> MP4Movie {
        let renditionFile = rendition.path.description
        func refused(_ reason: String) -> MP4Error { .rendition(file: renditionFile, variant: path.description, reason: reason) }
        guard let audio = rendition.audioTrack else { throw refused("it holds no audio") }
        var end: UInt64 = 0
        for track in tracks {
            for (offset, size) in zip(track.samples.offsets, track.samples.sizes) { end = Swift.max(end, offset + UInt64(size)) }
        }
        let edits: [MP4EditListEntry]
        do {
            edits = try audio.edits(delayedBy: try offset.converted(to: audio.movieTimescale, rounding: .toNearestOrAwayFromZero).value)
        } catch {
            throw .timeOverflow(file: renditionFile, reason: "placing it on its variant's timeline: \(error)")
        }
        guard edits.contains(where: { !$0.isEmpty }) else { throw refused("it ends before the video starts") }
        let placed = MP4Track(
            trackID: (tracks.map(\.trackID).max() ?? 0) + 1, kind: audio.kind, handler: audio.handler, isEnabled: audio.isEnabled,
            displayMatrix: audio.displayMatrix, timescale: audio.timescale, mediaDuration: audio.mediaDuration,
            movieTimescale: audio.movieTimescale, editList: edits, sampleDescriptions: audio.sampleDescriptions,
            samples: audio.samples.movingOffsets(by: end), boxPath: audio.boxPath, boxOffset: audio.boxOffset,
            editListOffset: nil, gaplessInfo: audio.gaplessInfo)
        let combined = tracks.filter { $0.kind != .audio } + [placed]
        return MP4Movie(path: path, store: .demuxed(video: store, audio: rendition.store, audioStart: end), timescale: timescale,
                        duration: combined.map(\.presentationDuration).max() ?? .zero, tracks: combined, gaplessInfo: nil)
    }
}

extension MP4Track {
    /// The edit list of this track played `delay` movie ticks later (earlier when negative).
    fileprivate func edits(delayedBy delay: Int64) throws(MediaTimeError) -> [MP4EditListEntry] {
        var edits: [MP4EditListEntry]
        if let editList {
            edits = editList
        } else {
            let length = try MediaTime.divide(mediaDuration, times: Int64(movieTimescale), by: Int64(timescale), rounding: .toNearestOrAwayFromZero)
            edits = [MP4EditListEntry(segmentDuration: UInt64(length), mediaTime: 0)]
        }
        if delay >= 0 {
            if delay > 0 { edits.insert(MP4EditListEntry(segmentDuration: UInt64(delay), mediaTime: nil), at: 0) }
            return edits
        }
        var cut = delay.magnitude
        var result: [MP4EditListEntry] = []
        for var edit in edits {
            let trimmed = Swift.min(cut, edit.segmentDuration)
            cut -= trimmed
            edit.segmentDuration -= trimmed
            if let start = edit.mediaTime {
                let skipped = try MediaTime.divide(Int64(trimmed), times: Int64(timescale), by: Int64(movieTimescale),
                                                   rounding: .toNearestOrAwayFromZero)
                let (moved, overflow) = start.addingReportingOverflow(skipped)
                guard !overflow else { throw MediaTimeError.overflow("\(start) + \(skipped)") }
                edit.mediaTime = moved
            }
            if edit.segmentDuration > 0 { result.append(edit) }
        }
        return result
    }
}
