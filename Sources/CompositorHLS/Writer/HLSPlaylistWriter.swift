import CompositorCore

/// Writes playlists as canonical text: one order of tags, `\n` line ends, explicit byte-range
/// offsets, decimals in their shortest exact form (an `EXTINF` rounded to the nanosecond is written
/// as it was read). Parsing the text gives back an equal model.
///
/// Media playlist layout: `#EXTM3U`, the header's unknown lines, the playlist tags
/// (`EXT-X-TARGETDURATION` always), then per segment its unknown lines, `EXT-X-DISCONTINUITY`,
/// `EXT-X-KEY` and `EXT-X-MAP` (where they change, and again after every discontinuity),
/// `EXT-X-PROGRAM-DATE-TIME`, `EXT-X-DATERANGE`s, cue tags, `EXT-X-GAP`, `EXT-X-BYTERANGE`, `EXTINF`
/// and the URI; then the trailing lines and `EXT-X-ENDLIST`.
package enum HLSPlaylistWriter {
    package static func write(_ playlist: HLSMediaPlaylist) -> String {
        var out = ""
        out.reserveCapacity(256 + playlist.segments.count * (48 + (playlist.segments.first?.uri.utf8.count ?? 16)))
        out += "#EXTM3U\n"
        for line in playlist.headerLines { out += line; out += "\n" }
        if let version = playlist.version { out += "#EXT-X-VERSION:\(version)\n" }
        out += "#EXT-X-TARGETDURATION:\(playlist.targetDuration)\n"
        if let n = playlist.mediaSequence { out += "#EXT-X-MEDIA-SEQUENCE:\(n)\n" }
        if let n = playlist.discontinuitySequence { out += "#EXT-X-DISCONTINUITY-SEQUENCE:\(n)\n" }
        if let type = playlist.playlistType { out += "#EXT-X-PLAYLIST-TYPE:\(type.rawValue)\n" }
        if playlist.isIFramesOnly { out += "#EXT-X-I-FRAMES-ONLY\n" }
        if playlist.hasIndependentSegments { out += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        if let start = playlist.start { out += "#EXT-X-START:\(start.attributes)\n" }

        var previousMap: HLSMap?
        var previousKeys: [HLSKey] = []
        for segment in playlist.segments {
            for line in segment.unknownLines { out += line; out += "\n" }
            if segment.isDiscontinuity { out += "#EXT-X-DISCONTINUITY\n" }
            if segment.keys != previousKeys || (segment.isDiscontinuity && !segment.keys.isEmpty) {
                writeKeys(segment.keys, after: previousKeys, to: &out)
                previousKeys = segment.keys
            }
            // A segment without a map after one with a map cannot be written: HLS has no "no map" tag.
            if let map = segment.map, map != previousMap || segment.isDiscontinuity {
                out += "#EXT-X-MAP:\(map.attributes)\n"
            }
            previousMap = segment.map
            if let date = segment.programDateTime { out += "#EXT-X-PROGRAM-DATE-TIME:\(date)\n" }
            for range in segment.dateRanges { out += "#EXT-X-DATERANGE:\(range.attributes)\n" }
            // A segment that ends one span and starts the next: in first, then out.
            if let cue = segment.cueIn { out += "#EXT-X-CUE-IN"; writeCueValue(cue, to: &out) }
            if let cue = segment.cueOut { out += "#EXT-X-CUE-OUT"; writeCueValue(cue, to: &out) }
            if let cue = segment.cueOutContinuation { out += "#EXT-X-CUE-OUT-CONT"; writeCueValue(cue, to: &out) }
            if segment.isGap { out += "#EXT-X-GAP\n" }
            if let range = segment.byteRange { out += "#EXT-X-BYTERANGE:\(range.length)@\(range.offset)\n" }
            out += "#EXTINF:"
            out += segment.durationText ?? segment.duration.hlsDecimalString
            out += ","
            if let title = segment.title { out += title }
            out += "\n"
            out += segment.uri
            out += "\n"
        }
        for line in playlist.trailingLines { out += line; out += "\n" }
        if playlist.hasEndList { out += "#EXT-X-ENDLIST\n" }
        return out
    }

    package static func write(_ playlist: HLSMultivariantPlaylist) -> String {
        var out = "#EXTM3U\n"
        if let version = playlist.version { out += "#EXT-X-VERSION:\(version)\n" }
        if playlist.hasIndependentSegments { out += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        if let start = playlist.start { out += "#EXT-X-START:\(start.attributes)\n" }
        for rendition in playlist.renditions { out += "#EXT-X-MEDIA:\(rendition.attributes)\n" }
        for variant in playlist.variants {
            for line in variant.leadingLines { out += line; out += "\n" }
            out += "#EXT-X-STREAM-INF:\(variant.attributes)\n"
            out += variant.uri
            out += "\n"
        }
        for stream in playlist.iFrameStreams { out += "#EXT-X-I-FRAME-STREAM-INF:\(stream.attributes)\n" }
        for line in playlist.unknownLines { out += line; out += "\n" }
        return out
    }

    /// Emits the tags that turn the keys in effect from `previous` into `keys`. A tag replaces the key
    /// of its `KEYFORMAT` in place, so when that cannot produce `keys` (a format dropped, or a new
    /// order) `METHOD=NONE` clears them all first.
    private static func writeKeys(_ keys: [HLSKey], after previous: [HLSKey], to out: inout String) {
        var state = previous
        for key in keys {
            if let index = state.firstIndex(where: { $0.keyFormat == key.keyFormat }) { state[index] = key } else { state.append(key) }
        }
        if keys.isEmpty || state != keys { out += "#EXT-X-KEY:METHOD=NONE\n" }
        for key in keys { out += "#EXT-X-KEY:\(key.attributes)\n" }
    }

    private static func writeCueValue(_ cue: HLSCueTag, to out: inout String) {
        if let value = cue.value { out += ":"; out += value }
        out += "\n"
    }
}
