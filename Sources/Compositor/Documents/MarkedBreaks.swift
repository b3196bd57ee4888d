import CompositorCore
import CompositorHLS

/// Breaks placed by a content playlist's own cue markers: a schedule's `"at": "markers"` says
/// "replace every span the clip's source marks as a break with this pod".
///
/// ```
/// clip "feature" = source 2-20     content time = source time - 2
/// source markers    CUE-OUT at 6 for 4 s     SCTE35-OUT at 14 for 3 s
/// breaks            ads-1 at content 4, resumeOffset 4     ads-2 at content 12, resumeOffset 3
/// ```
///
/// Spans are read with `HLSMediaPlaylist.markers` (a multivariant source's named or first variant: its
/// variants mark the same spans). A span is kept when it starts inside the clip, and is cut at
/// the clip's end; the clip's content time needs every earlier clip's duration, read from its
/// source when the schedule gives no `end`.
enum MarkedBreaks {
    static func expand(
        id: String, ads: [Ad], policy: BreakPolicy, restrictions: BreakRestrictions, clipID: String?,
        content: [ContentClip], path: String, diagnostics: inout [ScheduleDocumentDiagnostic]
    ) throws(ScheduleDocumentError) -> [AdBreak] {
        guard let index = clipID.map({ name in content.firstIndex { $0.id == name } }) ?? content.indices.first else {
            throw .invalid(path: path + ".clip", reason: "no content clip \(quoted(clipID ?? ""))")
        }
        let clip = content[index]
        func fail(_ reason: String) -> ScheduleDocumentError { .invalid(path: path + ".at", reason: reason) }

        // Where the clip starts on the content timeline.
        var clipStart = MediaTime.zero
        for earlier in content[..<index] {
            let end: MediaTime
            if let given = earlier.end { end = given } else {
                do { end = try SourceProbe.probe(earlier.source).naturalDuration } catch {
                    throw fail("placing \(quoted(clip.id))'s markers needs the duration of \(quoted(earlier.id)) before it: \(error)")
                }
            }
            do { clipStart = try clipStart.adding(try end.subtracting(earlier.start)) } catch {
                throw fail("the content time of \(quoted(clip.id)): \(error)")
            }
        }

        let (spans, ignored, playlist) : ([HLSMarkedSpan], [HLSIgnoredMarker], String)
        do { (spans, ignored, playlist) = try markers(of: clip.source) } catch {
            throw fail("markers are read from the HLS playlist of clip \(quoted(clip.id)): \(error)")
        }
        diagnostics += ignored.map { .markerIgnored(path: path + ".at", playlist: playlist, reason: $0.description) }
        var breaks: [AdBreak] = []
        for span in spans where span.range.start >= clip.start && clip.end.map({ span.range.start < $0 }) ?? true {
            let number = breaks.count + 1
            let end = clip.end.map { MediaTime.min($0, span.range.end) } ?? span.range.end
            let position: MediaTime, length: MediaTime
            do {
                position = try clipStart.adding(try span.range.start.subtracting(clip.start))
                length = try end.subtracting(span.range.start)
            } catch {
                throw fail("the span at \(span.range.start) s: \(error)")
            }
            breaks.append(AdBreak(
                id: "\(id)-\(number)", placement: .midroll(at: position),
                ads: ads.map { Ad(id: "\(id)-\(number)-\($0.id)", source: $0.source, start: $0.start, end: $0.end) },
                policy: policy, resumeOffset: length, restrictions: restrictions))
        }
        return breaks
    }

    /// The spans the playlist at `source` marks (its named variant's, or its first variant's, when
    /// multivariant), the markers that mark none, and the media playlist's URL.
    private static func markers(
        of source: MediaLocation
    ) throws(HLSProbeError) -> (spans: [HLSMarkedSpan], ignored: [HLSIgnoredMarker], playlist: String) {
        let url = hlsURL(source)
        var playlist = try HLSProbe.load(url)
        if let name = source.variant {
            do { playlist = .multivariant(try playlist.narrowed(toVariant: name)) } catch {
                throw .noSuchVariant(url: url, name: error.name, known: error.known)
            }
        }
        if case .multivariant(let multivariant) = playlist {
            guard let first = multivariant.variants.first else { throw .noVariants(url: multivariant.url) }
            playlist = try HLSProbe.load(first.resolvedURI)
        }
        guard case .media(let media) = playlist else {
            throw .invalidPlaylist(url: source.description, HLSParseError(
                line: nil, lineText: nil, problem: .wrongPlaylistKind(expected: "media", found: "multivariant")))
        }
        do {
            let markers = try media.markers
            return (markers.spans, markers.ignored, media.url)
        } catch {
            throw .durationOverflow(url: media.url, error)
        }
    }
}
