import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// HLS sources as a render reads them: one media playlist of local MPEG-TS segments each.
///
/// A multivariant playlist plays its variant of the highest `BANDWIDTH` (the first of equals):
/// the best picture the source offers, as a player with unlimited bandwidth would choose.
struct HLSRenderSources {
    private var playlists = HLSSourcePlaylists(loader: .fileSystem)
    private var resolved: [MediaLocation: TransportStreamSource] = [:]

    /// The segments `location` (schedule item `item`) plays.
    mutating func source(_ location: MediaLocation, item: String) throws(HLSCompositionStitchError) -> TransportStreamSource {
        if let source = resolved[location] { return source }
        guard let playlistPath = location.filePath else {
            throw .unsupported(url: location.url, reason: "only local playlists can be rendered; download it and its segments first")
        }
        let url = hlsURL(playlistPath)
        var mediaURL = url
        if case .multivariant(let multivariant) = try playlists.playlist(at: url) {
            // `max(by:)` keeps the last of equals; the first is wanted.
            guard let variant = multivariant.variants.reversed().max(by: { $0.bandwidth < $1.bandwidth }) else {
                throw .unsupported(url: url, reason: "a multivariant playlist without variants to play")
            }
            if let group = variant.audioGroup, multivariant.renditions.contains(where: { $0.groupID == group && $0.resolvedURI != nil }) {
                throw .unsupported(url: url, reason: "its variant \(variant.uri) plays audio from separate renditions (AUDIO=\"\(group)\"); "
                                   + "a render reads one playlist of muxed audio and video")
            }
            mediaURL = variant.resolvedURI
        }
        let media = try playlists.mediaPlaylist(at: mediaURL)
        guard media.isFinite else {
            throw .unsupported(url: mediaURL, reason: "a live playlist (no EXT-X-ENDLIST, not VOD) has no end to render")
        }
        var segments: [TransportStreamSource.Segment] = []
        for (index, segment) in media.segments.enumerated() {
            let name = "segment \(index + 1) (\(segment.uri))"
            if let key = segment.keys.first(where: { $0.method != "NONE" }) {
                throw .unsupported(url: mediaURL, reason: "\(name) is encrypted (EXT-X-KEY METHOD=\(key.method)); "
                                   + "a render copies samples and cannot decrypt them: give it the clear segments")
            }
            guard !segment.isGap else { throw .unsupported(url: mediaURL, reason: "\(name) is a gap (EXT-X-GAP): there are no samples to render") }
            if segment.map != nil {
                throw .unsupported(url: mediaURL, reason: "fragmented MP4 segments (EXT-X-MAP) are not rendered yet; "
                                   + "MPEG-TS segments are (ffmpeg -hls_segment_type mpegts)")
            }
            let segmentLocation: MediaLocation
            do { segmentLocation = try MediaLocation(parsing: segment.resolvedURI) } catch {
                throw .malformed(url: mediaURL, reason: "\(name): \(error)")
            }
            guard let path = segmentLocation.filePath else {
                throw .unsupported(url: mediaURL, reason: "\(name) is remote; only local segments can be rendered: download them first")
            }
            var bytes: Range<UInt64>?
            if let range = segment.byteRange {
                let (end, overflow) = range.offset.addingReportingOverflow(range.length)
                guard !overflow else { throw .malformed(url: mediaURL, reason: "\(name): its byte range ends past 2^64") }
                bytes = range.offset..<end
            }
            segments.append(.init(path: path, byteRange: bytes, duration: segment.duration,
                                  discontinuity: segment.isDiscontinuity && index > 0))
        }
        guard !segments.isEmpty else { throw .unsupported(url: mediaURL, reason: "a playlist without segments") }
        let source = TransportStreamSource(playlist: playlistPath, segments: segments)
        resolved[location] = source
        return source
    }
}
