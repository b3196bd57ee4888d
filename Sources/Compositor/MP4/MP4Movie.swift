/// An MP4 (ISO base media) file as read from its `moov`: the movie timescale and the tracks.
/// Sample data stays in the file; `MP4SampleTable` says where.
public struct MP4Movie: Sendable {
    /// The path the movie was read from.
    public let path: String
    public let fileSize: UInt64
    /// Ticks per second of the movie timeline (`mvhd`), in which edit list durations count.
    public let timescale: Int32
    /// The movie header's duration.
    public let duration: MediaTime
    public let tracks: [MP4Track]
    /// Gapless info from an `iTunSMPB` item, if the file has one.
    public let gaplessInfo: ITunesGaplessInfo?

    /// The first enabled video track.
    public var videoTrack: MP4Track? { tracks.first { $0.kind == .video } }
    /// The first enabled audio track.
    public var audioTrack: MP4Track? { tracks.first { $0.kind == .audio } }

    /// Natural duration, as `AVAsset.duration` reports it: the longest track's presentation.
    public var naturalDuration: MediaTime {
        tracks.map(\.presentationDuration).max() ?? .zero
    }
}

/// What a track carries, from its handler.
public enum MP4TrackKind: Sendable, Hashable, CustomStringConvertible {
    case video
    case audio
    case other(FourCC)

    init(handler: FourCC) {
        switch handler {
        case "vide": self = .video
        case "soun": self = .audio
        default: self = .other(handler)
        }
    }

    public var description: String {
        switch self {
        case .video: return "video"
        case .audio: return "audio"
        case .other(let handler): return "'\(handler)'"
        }
    }
}

/// One track: its timing, sample descriptions, samples and edit list.
public struct MP4Track: Sendable {
    public let trackID: UInt32
    public let kind: MP4TrackKind
    /// Media ticks per second.
    public let timescale: Int32
    /// The media's length (sum of sample durations) in ticks, as `mdhd` states it.
    public let mediaDuration: Int64
    /// The movie timescale, in which `editList` durations count.
    public let movieTimescale: Int32
    /// `nil` when the track has no edit list (its media plays from 0 as it is).
    public let editList: [MP4EditListEntry]?
    public let sampleDescriptions: [MP4SampleDescription]
    public let samples: MP4SampleTable
    /// Where the track is in the file (`moov/trak[1]`) and the byte offset of its `trak` box,
    /// for messages.
    public let boxPath: String
    public let boxOffset: UInt64
    /// The byte offset of the track's `elst` box, when it has one.
    public let editListOffset: UInt64?
    /// AAC priming from `iTunSMPB`, used when the track has no edit list.
    public let gaplessInfo: ITunesGaplessInfo?

    /// How long the track presents: its edit list's total, or without one its media's length
    /// (less priming and padding when `iTunSMPB` says so).
    public var presentationDuration: MediaTime {
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
    public var priming: Int64 {
        if let editList { return editList.first { !$0.isEmpty }?.mediaTime ?? 0 }
        return kind == .audio ? gaplessInfo?.priming ?? 0 : 0
    }
}
