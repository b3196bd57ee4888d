import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// HLS sources as a render reads them: a media playlist of local MPEG-TS segments or of fragmented
/// MP4 segments with their init sections (`EXT-X-MAP`), and for a variant whose audio is in a
/// rendition of its own (`EXT-X-MEDIA TYPE=AUDIO` with a `URI`), that rendition's playlist too.
///
/// A multivariant playlist plays the variant its location names, or else its variant of the highest
/// `BANDWIDTH` (the first of equals): the best picture the source offers, as a player with
/// unlimited bandwidth would choose.
struct HLSRenderSources {
    /// What the samples are read for, as refusals say it.
    enum Purpose {
        /// `render`: one MP4 file.
        case render
        /// `hls --package-every-piece`: segments on the composition's clock.
        case packaging

        /// "rendered", "packaged".
        var done: String { self == .render ? "rendered" : "packaged" }
        /// "a render", "packaging".
        var doing: String { self == .render ? "a render" : "packaging" }
        /// "render", "package".
        var verb: String { self == .render ? "render" : "package" }
    }

    private var playlists: HLSSourcePlaylists
    private let purpose: Purpose
    private let remote: RemoteReads

    /// Reads playlists through `playlists` (and its cache of those already read), for `purpose`,
    /// remote segments through `remote`.
    init(playlists: HLSSourcePlaylists = HLSSourcePlaylists(loader: .fileSystem), for purpose: Purpose = .render,
         remote: RemoteReads = RemoteReads(nil)) {
        self.playlists = playlists
        self.purpose = purpose
        self.remote = remote
    }

    /// Reads local playlists and segments, and remote ones through `remote`.
    init(remote: RemoteReads, for purpose: Purpose = .render) {
        self.playlists = HLSSourcePlaylists(loader: remote.playlistLoader)
        self.purpose = purpose
        self.remote = remote
    }

    /// The segments `location` plays: its media playlist's, or its variant's and, when the
    /// variant's audio is in playlists of its own, those of the rendition a player picks (or of
    /// `audio`, one of the variant's other renditions).
    mutating func source(_ location: MediaLocation, audio: HLSRendition? = nil) throws(HLSExportError) -> MP4StitchPiece.Source {
        guard let playlistPath = remote.readPath(of: location) else {
            throw HLSExportError(.unsupported(url: location.url, reason: "a remote playlist is \(purpose.done) from a SourceCatalog that loaded it"))
        }
        let url = hlsURL(location)
        switch try playlists.playlist(at: url, variant: location.variant) {
        case .multivariant(let multivariant):
            // A named variant is the only one left.
            guard let variant = multivariant.variant(playing: nil) else {
                throw HLSExportError(.unsupported(url: url, reason: "a multivariant playlist without variants to play"))
            }
            let video = try segments(of: variant.resolvedURI, named: playlistPath)
            guard let rendition = audio ?? Self.audioRendition(playedBy: variant, in: multivariant), let audioURL = rendition.resolvedURI else {
                return .hls(video)
            }
            let name = "the audio rendition \(quoted(rendition.name)) (EXT-X-MEDIA URI)"
            let audioPath = try localFile(audioURL, byteRange: nil, name: name, in: url).path
            return .hls(video, audioRendition: try segments(of: audioURL, named: audioPath))
        case .media:
            return .hls(try segments(of: url, named: playlistPath))
        }
    }

    /// The audio rendition a player picks for `variant`: its group's `DEFAULT=YES` one, else the
    /// group's first; `nil` when the variant names no group. One without a `URI` means the audio
    /// is in the variant's own segments.
    static func audioRendition(playedBy variant: HLSVariantStream, in multivariant: HLSMultivariantPlaylist) -> HLSRendition? {
        guard let group = variant.audioGroup else { return nil }
        let renditions = multivariant.renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
        return renditions.first(where: \.isDefault) ?? renditions.first
    }

    /// The segments of the media playlist at `mediaURL`, named `playlist` in messages.
    private mutating func segments(of mediaURL: String, named playlist: FilePath) throws(HLSExportError) -> HLSSegmentSource {
        let media = try playlists.mediaPlaylist(at: mediaURL)
        guard media.isFinite else {
            throw HLSExportError(.unsupported(url: mediaURL, reason: "a live playlist (no EXT-X-ENDLIST, not VOD) has no end to \(purpose.verb)"))
        }
        var segments: [HLSSegmentSource.Segment] = []
        var firstInitSection: HLSSegmentSource.FileBytes?
        var currentMap: HLSMap?
        for (index, segment) in media.segments.enumerated() {
            let name = "segment \(index + 1) (\(segment.uri))"
            if let key = segment.keys.first(where: { $0.method != "NONE" }) {
                throw HLSExportError(.unsupported(url: mediaURL, reason: "\(name) is encrypted (EXT-X-KEY METHOD=\(key.method)); "
                                   + "\(purpose.doing) copies samples and cannot decrypt them: give it the clear segments"))
            }
            guard !segment.isGap else { throw HLSExportError(.unsupported(url: mediaURL, reason: "\(name) is a gap (EXT-X-GAP): there are no samples to \(purpose.verb)")) }
            guard index == 0 || (segment.map == nil) == (currentMap == nil) else {
                throw HLSExportError(.unsupported(url: mediaURL, reason: "\(name) mixes MPEG-TS and fragmented MP4 segments (EXT-X-MAP) in one playlist"))
            }
            var newInitSection: HLSSegmentSource.FileBytes?
            if let map = segment.map, map != currentMap {
                let file = try localFile(map.resolvedURI, byteRange: map.byteRange, name: "the init section (EXT-X-MAP) of \(name)", in: mediaURL)
                if index == 0 { firstInitSection = file } else { newInitSection = file }
                currentMap = map
            }
            let file = try localFile(segment.resolvedURI, byteRange: segment.byteRange, name: name, in: mediaURL)
            segments.append(.init(path: file.path, byteRange: file.byteRange, duration: segment.duration,
                                  discontinuity: segment.isDiscontinuity && index > 0, newInitSection: newInitSection))
        }
        guard !segments.isEmpty else { throw HLSExportError(.unsupported(url: mediaURL, reason: "a playlist without segments")) }
        return HLSSegmentSource(playlist: playlist, container: firstInitSection.map { .fragmentedMP4(initSection: $0) } ?? .transportStream,
                                segments: segments)
    }

    /// The local file (and bytes of it) a playlist's `uri` names; `name` says what it is.
    private func localFile(_ uri: String, byteRange: HLSByteRange?, name: String, in playlist: String) throws(HLSExportError) -> HLSSegmentSource.FileBytes {
        let location: MediaLocation
        do { location = try MediaLocation(resolvedURI: uri) } catch {
            throw HLSExportError(.malformed(url: playlist, reason: "\(name): \(error)"))
        }
        let path: FilePath
        if let local = location.filePath {
            path = local
        } else if remote.catalog == nil {
            throw HLSExportError(.unsupported(url: playlist, reason: "\(name) is remote; remote segments are \(purpose.done) "
                               + "from a SourceCatalog that loaded the schedule's sources"))
        } else {
            do { path = try remote.spoolPath(uri) } catch {
                throw HLSExportError(.unsupported(url: playlist, reason: "\(name): \(error)"))
            }
        }
        guard let range = byteRange else { return HLSSegmentSource.FileBytes(path: path) }
        let (end, overflow) = range.offset.addingReportingOverflow(range.length)
        guard !overflow else { throw HLSExportError(.malformed(url: playlist, reason: "\(name): its byte range ends past 2^64")) }
        return HLSSegmentSource.FileBytes(path: path, byteRange: range.offset..<end)
    }
}
