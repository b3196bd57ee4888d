import CompositorCore

/// What a schedule needs to know about an MP4 source without touching its samples: how long it
/// naturally runs and which tracks it has.
package struct MP4MovieSummary: Sendable, Equatable {
    /// One track's outline.
    package struct Track: Sendable, Equatable {
        package let kind: TrackKind?
        /// The sample format of the first description (`avc1`, `mp4a`, ...).
        package let codec: FourCC
        /// How long the track presents (edit list honoured).
        package let duration: MediaTime
        /// Video: pixels.
        package let width: Int?
        package let height: Int?
        /// Audio: Hz and channels (for AAC, from the AudioSpecificConfig).
        package let sampleRate: Int?
        package let channelCount: Int?
    }

    package let path: FilePath
    /// The longest track's presentation, as `AVAsset.duration` reports it: what an omitted `end`
    /// means.
    package let naturalDuration: MediaTime
    /// Every track, in file order.
    package let tracks: [Track]

    package var video: Track? { tracks.first { $0.kind == .video } }
    package var audio: Track? { tracks.first { $0.kind == .audio } }
    package var hasVideo: Bool { video != nil }
    package var hasAudio: Bool { audio != nil }
}

extension MP4Movie {
    /// What a schedule needs to know about the movie without touching its samples.
    package var summary: MP4MovieSummary {
        let tracks = tracks.map { track -> MP4MovieSummary.Track in
            let description = track.sampleDescriptions.first
            var sampleRate = description?.sampleRate
            var channels = description?.channelCount
            if case .aac(let config)? = description?.codec {
                sampleRate = config.sampleRate
                if config.channelConfiguration > 0 { channels = config.channelConfiguration }
            }
            return MP4MovieSummary.Track(
                kind: track.kind, codec: description?.format ?? FourCC(rawValue: 0),
                duration: track.presentationDuration, width: description?.width, height: description?.height,
                sampleRate: sampleRate, channelCount: channels)
        }
        return MP4MovieSummary(path: path, naturalDuration: naturalDuration, tracks: tracks)
    }
}
