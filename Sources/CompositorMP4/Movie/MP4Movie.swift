import CompositorCore
import CompositorIO

/// An MP4 (ISO base media) file as read from its `moov` (and its movie fragments): the movie
/// timescale and the tracks. Sample data stays in the file; `MP4SampleTable` says where. An HLS
/// playlist's segments (transport stream, or fragmented MP4) are read into the same model, their
/// samples where `store` says.
package struct MP4Movie: Sendable {
    /// The path the movie was read from (for a transport stream source, its playlist).
    package let path: FilePath
    /// Where the samples' bytes are, as read: a stitch plan made from this movie holds only for
    /// these versions of the files.
    package let store: MP4SampleStore
    /// Ticks per second of the movie timeline (`mvhd`), in which edit list durations count.
    package let timescale: Int32
    /// The movie header's duration.
    package let duration: MediaTime
    package let tracks: [MP4Track]
    /// Gapless info from an `iTunSMPB` item, if the file has one.
    package let gaplessInfo: ITunesGaplessInfo?

    /// The first enabled video track with samples (a disabled one, such as an alternate angle,
    /// is not shown; an empty one, as some muxers leave, shows nothing).
    package var videoTrack: MP4Track? { tracks.first { $0.kind == .video && $0.isEnabled && $0.samples.count > 0 } }
    /// The first enabled audio track with samples.
    package var audioTrack: MP4Track? { tracks.first { $0.kind == .audio && $0.isEnabled && $0.samples.count > 0 } }

    /// Natural duration, as `AVAsset.duration` reports it: the longest presentation of a track
    /// with samples (an empty track's edit list presents nothing).
    package var naturalDuration: MediaTime {
        tracks.lazy.filter { $0.samples.count > 0 }.map(\.presentationDuration).max() ?? .zero
    }
}

extension TrackKind {
    /// The kind a track's handler (`hdlr`) says it carries; `nil` for anything but video and sound.
    package init?(handler: FourCC) {
        switch handler {
        case "vide": self = .video
        case "soun": self = .audio
        default: return nil
        }
    }
}

/// Where a source's sample bytes are: what `MP4SampleTable.offsets` count in.
package enum MP4SampleStore: Sendable {
    /// Byte offsets in this file, as read.
    case file(FilePath, FileVersion)
    /// Positions in the samples demuxed from transport stream segments, laid back to back.
    case transportStream(TransportStreamSamples)
    /// Positions in fragmented MP4 segments, laid back to back.
    case fragmentedSegments(FragmentedSegmentFiles)
    /// An HLS variant's video and its audio rendition, from two playlists: positions below
    /// `audioStart` are the video's store, the rest the audio's (`audioStart` on).
    indirect case demuxed(video: MP4SampleStore, audio: MP4SampleStore, audioStart: UInt64)

    /// Every file the samples are read from, with its identity: what an output must not replace.
    var files: [(FilePath, FileIdentity)] {
        switch self {
        case .file(let path, let version): return [(path, version.identity)]
        case .transportStream(let samples): return samples.segmentFiles.map { ($0.path, $0.version.identity) }
        case .fragmentedSegments(let files): return files.segments.map { ($0.path, $0.version.identity) }
        case .demuxed(let video, let audio, _): return video.files + audio.files
        }
    }
}

/// One track: its timing, sample descriptions, samples and edit list.
package struct MP4Track: Sendable {
    package let trackID: UInt32
    /// Video or audio; `nil` for other handlers (timecode, subtitles, hints).
    package let kind: TrackKind?
    /// The handler type (`vide`, `soun`, `tmcd`, ...).
    package let handler: FourCC
    /// The `tkhd` enabled flag (bit 0): a disabled track is not presented.
    package let isEnabled: Bool
    /// How the `tkhd` says pictures are shown (turned, for a portrait phone clip).
    package let displayMatrix: DisplayMatrix
    /// Media ticks per second.
    package let timescale: Int32
    /// The media's length (sum of sample durations) in ticks, as `mdhd` states it.
    package let mediaDuration: Int64
    /// The movie timescale, in which `editList` durations count.
    package let movieTimescale: Int32
    /// `nil` when the track has no edit list (its media plays from 0 as it is).
    package let editList: [MP4EditListEntry]?
    package let sampleDescriptions: [MP4SampleDescription]
    package let samples: MP4SampleTable
    /// Where the track is in the file (`moov/trak[1]`) and the byte offset of its `trak` box,
    /// for messages.
    package let boxPath: String
    package let boxOffset: UInt64
    /// The byte offset of the track's `elst` box, when it has one.
    package let editListOffset: UInt64?
    /// AAC priming from `iTunSMPB`, used when the track has no edit list.
    package let gaplessInfo: ITunesGaplessInfo?

    /// How long the track presents: its edit list's total, or without one its media's length
    /// (less priming and padding when `iTunSMPB` says so).
    package var presentationDuration: MediaTime {
        if let editList {
            // The reader checked that the total fits Int64.
            let total = editList.reduce(UInt64(0)) { $0 + $1.segmentDuration }
            return MediaTime(value: Int64(total), timescale: movieTimescale)
        }
        if let gaplessInfo, kind == .audio {
            return MediaTime(value: gaplessInfo.sampleCount, timescale: timescale)
        }
        return MediaTime(value: samples.decodeEnd, timescale: timescale)
    }

    /// Encoder priming in media ticks: the first edit's media time (for audio, the samples the
    /// encoder added before the signal), or `iTunSMPB`'s value when there is no edit list.
    package var priming: Int64 {
        if let editList { return editList.first { !$0.isEmpty && !$0.isDwell }?.mediaTime ?? 0 }
        return kind == .audio ? gaplessInfo?.priming ?? 0 : 0
    }
}
