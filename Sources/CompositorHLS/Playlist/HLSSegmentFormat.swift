import CompositorCore

/// The container of a media segment, as far as one playlist can tell: one stitched playlist can only
/// carry segments of one format (a client keeps its demuxer across discontinuities).
package enum HLSSegmentFormat: String, Hashable, Sendable, CustomStringConvertible {
    case mpegTS = "MPEG-TS"
    case fragmentedMP4 = "fragmented MP4"
    /// Packed audio: raw AAC, MP3, AC-3 or E-AC-3 with an ID3 timestamp.
    case packedAudio = "packed audio"
    case webVTT = "WebVTT"

    package var description: String { rawValue }

    /// The format of `segment`: an `EXT-X-MAP` means fragmented MP4 (unless the map itself is a
    /// transport stream); otherwise the URI's extension decides, and HLS's default is MPEG-TS.
    package init(segment: HLSMediaSegment) {
        if let map = segment.map {
            self = HLSSegmentFormat.pathExtension(of: map.resolvedURI) == "ts" ? .mpegTS : .fragmentedMP4
            return
        }
        switch HLSSegmentFormat.pathExtension(of: segment.resolvedURI) {
        case "aac", "mp3", "ac3", "ec3", "eac3": self = .packedAudio
        case "vtt", "webvtt": self = .webVTT
        case "mp4", "m4s", "m4v", "m4a", "cmfv", "cmfa", "cmft", "fmp4": self = .fragmentedMP4
        default: self = .mpegTS
        }
    }

    /// The lowercased extension of a URI's last path segment, ignoring query and fragment.
    static func pathExtension(of uri: String) -> String {
        let path = URIReference(parsing: uri).path
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
