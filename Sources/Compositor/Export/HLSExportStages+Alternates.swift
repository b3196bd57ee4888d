import CompositorCore
import CompositorHLS
import CompositorMP4

/// What else a multivariant HLS source offers besides the variant packaged for it: the DASH
/// export's other representations and audio adaptation sets.
struct DASHSourceAlternates: Sendable {
    /// Its other variants with video, and the other renditions the schedule names of it
    /// (`Schedule.renditions`), each packaged as the played one was.
    var variants: [HLSPackagedSource] = []
    /// The audio rendition the played variant plays (in its packaged audio), when it has one in a
    /// playlist of its own.
    var audio: HLSRendition?
    /// The played variant's other audio renditions, each packaged with the variant's video (whose
    /// audio alone is listed).
    var audioRenditions: [(rendition: HLSRendition, source: HLSPackagedSource)] = []
    /// The played variant's subtitle renditions, their cues on the source's timeline.
    var subtitles: [SourceSubtitles] = []
}

extension HLSExportStages {
    /// The alternates of each source in `packaged` (keyed by its index there), each packaged as
    /// the source was, with boundaries at the cuts `played` makes of it: the other renditions
    /// `renditions` names of it (files `STEM-rN-…`, in its order); of a multivariant HLS source,
    /// its other variants with video when it names none (`STEM-vN-…`) and its played variant's
    /// other audio renditions (`STEM-aN-…`), `N` their place in its playlist (from 0), and its
    /// played variant's subtitle renditions, read (`subtitles(_:of:item:)`).
    mutating func packageAlternates(
        _ played: Composition, packaged: [HLSPackagedSource], renditions: [MediaLocation: [MediaLocation]]
    ) throws(HLSExportError) -> [Int: DASHSourceAlternates] {
        guard !packaged.isEmpty else { return [:] }
        let (container, targetDuration) = try packagingFormat(following: played.segments.first { remote.isPlaylist($0.source) }?.source)
        var stems = Set(packaged.map(\.stem))
        var hlsSources = HLSRenderSources(playlists: playlists, for: .packaging, remote: remote)
        var found: [Int: DASHSourceAlternates] = [:]
        for (index, source) in packaged.enumerated() {
            let cuts = played.segments.filter { $0.source == source.location }.flatMap { [$0.sourceRange.start, $0.sourceRange.end] }
            let stem = source.stem
            func package(_ location: MediaLocation, audio: HLSRendition?, as tag: String) throws(HLSExportError) -> HLSPackagedSource {
                var name = "\(stem)-\(tag)"
                var number = 2
                while !stems.insert(name).inserted {
                    name = "\(stem)-\(tag)-\(number)"
                    number += 1
                }
                do {
                    let isPlaylist = remote.isPlaylist(location)
                    let packaging = try HLSPackagedSource.packaging(
                        of: location, readPath: remote.readPath(of: isPlaylist ? source.location : location),
                        loadFailure: remote.loadFailure(of: location), readBefore: remote.catalog?.entries[location]?.movie, item: source.item,
                        playlist: isPlaylist ? try hlsSources.source(location, audio: audio) : nil,
                        container: container, targetDuration: targetDuration, cuts: cuts)
                    return try HLSPackagedSource(location, item: source.item, packaging: packaging, stem: name, folder: output)
                } catch {
                    throw remote.inUserTerms(error)
                }
            }
            var alternates = DASHSourceAlternates()
            for (position, rendition) in (renditions[source.location] ?? []).enumerated() {
                alternates.variants.append(try package(rendition, audio: nil, as: "r\(position)"))
            }
            guard remote.isPlaylist(source.location),
                  case .multivariant(let multivariant) = try playlists.playlist(at: HLSSourcePlaylists.absolute(hlsURL(source.location))),
                  let chosen = multivariant.variant(playing: source.location.variant) else {
                if !alternates.variants.isEmpty { found[index] = alternates }
                continue
            }
            if source.location.variant == nil {
                for (position, variant) in multivariant.variants.enumerated() where variant != chosen && !variant.isAudioOnly {
                    alternates.variants.append(try package(source.location.selectingVariant(variant.uri), audio: nil, as: "v\(position)"))
                }
            }
            let group = multivariant.renditions.filter { $0.type == "AUDIO" && $0.groupID == chosen.audioGroup && $0.resolvedURI != nil }
            alternates.audio = HLSRenderSources.audioRendition(playedBy: chosen, in: multivariant).flatMap { group.contains($0) ? $0 : nil }
            for rendition in group where rendition != alternates.audio {
                let position = multivariant.renditions.firstIndex(of: rendition) ?? 0
                alternates.audioRenditions.append((rendition, try package(source.location, audio: rendition, as: "a\(position)")))
            }
            let subtitles = multivariant.renditions.filter { $0.type == "SUBTITLES" && $0.groupID == chosen.subtitlesGroup && $0.resolvedURI != nil }
            if !subtitles.isEmpty, case .hls(let video, _) = try hlsSources.source(source.location) {
                for rendition in subtitles { alternates.subtitles.append(try self.subtitles(rendition, of: video, item: source.item)) }
            }
            found[index] = alternates
        }
        return found
    }
}
