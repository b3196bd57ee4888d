import CompositorCore
import CompositorHLS
import CompositorMP4

/// A subtitle rendition's cues, read from its WebVTT segments and placed on its source's timeline
/// (time 0: the source's first video picture), each once.
struct SourceSubtitles: Sendable {
    let rendition: HLSRendition
    /// The `STYLE` and `REGION` blocks of its first segment.
    let headerBlocks: [String]
    /// In order of start.
    let cues: [WebVTTDocument.Cue]

    /// The cues shown during `range` of the source, cut to it, on the source's timeline.
    func cues(during range: MediaTimeRange) -> [WebVTTDocument.Cue] {
        cues.compactMap { cue in
            guard cue.end > range.start, cue.start < range.end else { return nil }
            var cut = cue
            cut.start = MediaTime.max(cue.start, range.start)
            cut.end = MediaTime.min(cue.end, range.end)
            return cut
        }
    }
}

extension HLSExportStages {
    /// The cues of `rendition` (a `SUBTITLES` rendition with a `URI`) on the timeline of the
    /// variant `video` (its segments): each segment's cue times placed by its `X-TIMESTAMP-MAP`,
    /// which says which 90 kHz media timestamp a cue time is, against the timestamp of the
    /// variant's first picture (RFC 8216bis 3.1.4; for fragmented MP4 its `tfdt` timeline). A
    /// segment without one has cue time 0 at timestamp 0, as the RFC has players take it. A cue
    /// that spans segments is repeated in each (RFC 8216bis 3.5): it is kept once.
    ///
    /// ```
    /// variant       first picture at PTS 133200 (1.48 s)
    /// subtitles     X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000
    ///               00:00:00.580 --> 00:00:01.580    -> 0.5 s to 1.5 s of the source
    /// ```
    ///
    /// - Throws: `HLSExportError`: `.unreadable` for a segment that cannot be read, `.malformed`
    ///   for one that is not WebVTT (naming the line), `.unsupported` for a live or encrypted
    ///   playlist, `.packaging` (naming `item`) for a variant whose first segment cannot be read.
    mutating func subtitles(_ rendition: HLSRendition, of video: HLSSegmentSource, item: String) throws(HLSExportError) -> SourceSubtitles {
        guard let url = rendition.resolvedURI else {
            throw HLSExportError(.unsupported(url: video.playlist.description, reason: "the subtitle rendition \(quoted(rendition.name)) has no URI"))
        }
        let media = try playlists.mediaPlaylist(at: url)
        guard media.isFinite else {
            throw HLSExportError(.unsupported(url: url, reason: "a live subtitle playlist (no EXT-X-ENDLIST, not VOD) has no end to export"))
        }
        let zero: TimestampOrigin
        do { zero = try MP4Reader.timestampOrigin(of: video) } catch { throw HLSExportError(.packaging(item: item, error)) }
        var cues: [WebVTTDocument.Cue] = []
        var seen = Set<WebVTTDocument.Cue>()
        var headerBlocks: [String]?
        for (index, segment) in media.segments.enumerated() {
            let name = "segment \(index + 1) (\(segment.uri))"
            if let key = segment.keys.first(where: { $0.method != "NONE" }) {
                throw HLSExportError(.unsupported(url: url, reason: "\(name) is encrypted (EXT-X-KEY METHOD=\(key.method)); give the clear subtitles"))
            }
            guard !segment.isGap else { continue }
            var bytes: [UInt8]
            do { bytes = try playlists.loader.fetch(segment.resolvedURI).bytes } catch {
                throw HLSExportError(.unreadable(url: segment.resolvedURI, reason: "\(name) of \(url): \(error)"))
            }
            if let range = segment.byteRange {
                guard range.offset <= UInt64(bytes.count), range.length <= UInt64(bytes.count) - range.offset else {
                    throw HLSExportError(.malformed(url: url, reason: "\(name)'s byte range \(range.length)@\(range.offset) is past the file's \(bytes.count) bytes"))
                }
                bytes = Array(bytes[Int(range.offset)..<Int(range.offset + range.length)])
            }
            let document: WebVTTDocument
            do { document = try WebVTTDocument(parsing: bytes) } catch {
                throw HLSExportError(.malformed(url: url, reason: "its \(name) is not valid WebVTT: \(error)"))
            }
            if headerBlocks == nil { headerBlocks = document.headerBlocks }
            let shift: MediaTime
            do { shift = try Self.sourceTime(of: document.timestampMap, zero: zero) } catch {
                throw HLSExportError(.malformed(url: url, reason: "its \(name)'s X-TIMESTAMP-MAP is too far from the video's timestamps: \(error)"))
            }
            for cue in document.cues {
                var placed = cue
                placed.start = cue.start + shift
                placed.end = cue.end + shift
                if seen.insert(placed).inserted { cues.append(placed) }
            }
        }
        // Stable: cues that start together keep their order.
        let ordered = cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        return SourceSubtitles(rendition: rendition, headerBlocks: headerBlocks ?? [], cues: ordered)
    }

    /// The source time of cue time 0 under `map`: its 90 kHz timestamp (0 without a map) after the
    /// source's time 0 (`zero`, MPEG-2 timestamps the nearer way round their 2^33 wrap), less the
    /// local time it is.
    static func sourceTime(of map: WebVTTDocument.TimestampMap?, zero: TimestampOrigin) throws(MediaTimeError) -> MediaTime {
        let mpegts = map?.mpegts ?? 0
        let timestamp: TimestampOrigin
        switch zero {
        case .transportStream: timestamp = .transportStream(mpegts)
        case .fragmented: timestamp = .fragmented(MediaTime(value: mpegts, timescale: 90_000))
        }
        return try zero.distance(to: timestamp).subtracting(map?.local ?? .zero)
    }
}
