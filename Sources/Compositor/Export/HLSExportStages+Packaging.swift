import CompositorCore
import CompositorHLS
import CompositorMP4

extension HLSExportStages {
    // MARK: Package

    /// The schedule's MP4 sources (local files that are not playlists; every source with
    /// `packagesEveryPiece`), each packaged into segments of `segmentContainer` (or of the first
    /// HLS source's format) with boundaries at the keyframes next to every cut the composition
    /// asks of it, no longer than the first HLS source's target duration (6 s without one).
    mutating func package(_ composition: Composition) throws(HLSExportError) -> [HLSPackagedSource] {
        var packagedLocations: [(location: MediaLocation, item: String, isPlaylist: Bool)] = []
        var firstPlaylist: MediaLocation?
        var seen: Set<MediaLocation> = []
        // Each source is looked at (its first bytes read) once.
        for segment in composition.segments where seen.insert(segment.source).inserted {
            let isPlaylist = remote.isPlaylist(segment.source)
            if isPlaylist { firstPlaylist = firstPlaylist ?? segment.source }
            if !isPlaylist || options.packagesEveryPiece { packagedLocations.append((segment.source, segment.id, isPlaylist)) }
        }
        guard !packagedLocations.isEmpty else { return [] }
        let (container, targetDuration) = try packagingFormat(following: firstPlaylist)
        var packagings: [MP4Packaging] = []
        // The HLS sources read as a render reads them, from the playlists already loaded.
        var hlsSources = HLSRenderSources(playlists: playlists, for: .packaging, remote: remote)
        for (location, item, isPlaylist) in packagedLocations {
            let cuts = composition.segments.filter { $0.source == location }.flatMap { [$0.sourceRange.start, $0.sourceRange.end] }
            do {
                packagings.append(try HLSPackagedSource.packaging(
                    of: location, readPath: remote.readPath(of: location), loadFailure: remote.loadFailure(of: location),
                    readBefore: remote.catalog?.entries[location]?.movie,
                    item: item, playlist: isPlaylist ? try hlsSources.source(location) : nil,
                    container: container, targetDuration: targetDuration, cuts: cuts))
            } catch {
                throw remote.inUserTerms(error)
            }
        }
        // Where any packaged source has audio, one without gets silence: every piece of the
        // stream then has the same tracks (`MP4Packaging.fillsAudioWithSilence`).
        if packagings.contains(where: { $0.trackKinds.contains(.audio) }) {
            for index in packagings.indices { packagings[index].fillsAudioWithSilence = true }
        }
        // One timescale for each kind of track in every piece's fragments, for hls.js.
        if container == .fragmentedMP4 { packagings = MP4Packaging.sharingFragmentTimescales(packagings) }
        var stems: Set<String> = []
        var packaged: [HLSPackagedSource] = []
        for ((location, item, _), packaging) in zip(packagedLocations, packagings) {
            let stem = HLSPackagedSource.stem(for: location, taken: &stems)
            packaged.append(try HLSPackagedSource(location, item: item, packaging: packaging, stem: stem, folder: output))
        }
        return packaged
    }

    /// The container and longest segment of the packaging: `segmentContainer`, else the first HLS
    /// source's segments' (MPEG-TS without one); its target duration (6 s without one).
    mutating func packagingFormat(
        following firstPlaylist: MediaLocation?
    ) throws(HLSExportError) -> (container: HLSSegmentContainer, targetDuration: Int64) {
        var container = options.segmentContainer
        var targetDuration: Int64 = 6
        if let firstPlaylist {
            var media: HLSMediaPlaylist?
            switch try playlists.playlist(at: HLSSourcePlaylists.absolute(hlsURL(firstPlaylist))) {
            case .media(let playlist): media = playlist
            case .multivariant(let multivariant):
                if let variant = multivariant.variants.first { media = try playlists.mediaPlaylist(at: variant.resolvedURI) }
            }
            if let media {
                targetDuration = max(1, media.targetDuration)
                if container == nil, let segment = media.segments.first {
                    container = HLSSegmentFormat(segment: segment) == .fragmentedMP4 ? .fragmentedMP4 : .mpegTS
                }
            }
        }
        return (container ?? .mpegTS, targetDuration)
    }

    /// `stitched` with every segment a file of its own, each piece's on the composition's clock,
    /// and the segments to write, in play order. The timestamps run on from piece to piece, so
    /// a discontinuity is marked only where RFC 8216 asks for one: where the tracks change, and,
    /// in MPEG-TS, where the encoding parameters do (they arrive in-band only, and Chromium's
    /// player fails without the mark) unless `marksEncodingChanges` is off. Fragmented MP4
    /// announces new parameters with the new `EXT-X-MAP`, which every player measured follows
    /// unmarked, while at a mark GStreamer showed pieces' first frames late and VLC stopped. A
    /// source's own discontinuities were packaged away.
    static func placingEveryPiece(
        _ stitched: HLSStitchedVariantPlaylist, sources: [HLSPackagedSource], marksEncodingChanges: Bool
    ) throws(HLSExportError) -> (HLSStitchedVariantPlaylist, [HLSPlacedSegment]) {
        let result = stitched.result
        var placed: [HLSPlacedSegment] = []
        var discontinuities = Set<Int>()
        // Each source's segments by URI, made once: a lookup per stitched segment.
        var segmentIndices: [Int: [String: Int]] = [:]
        var previous: (tracks: [String], descriptions: [[MP4SampleDescription]])?
        for (number, piece) in result.pieces.enumerated() {
            guard let source = sources.firstIndex(where: { $0.playlist.url == piece.url }) else {
                throw HLSExportError(.stitch(item: piece.item, reason: "its source was not packaged"))
            }
            let packaging = sources[source].packaging
            let indices = segmentIndices[source] ?? Dictionary(
                sources[source].playlist.segments.enumerated().map { ($1.resolvedURI, $0) }, uniquingKeysWith: { first, _ in first })
            segmentIndices[source] = indices
            let current = (tracks: packaging.trackTypes, descriptions: packaging.sampleDescriptions)
            if let previous, previous.tracks != current.tracks
                || (marksEncodingChanges && packaging.container == .mpegTS && previous.descriptions != current.descriptions) {
                discontinuities.insert(piece.segments.lowerBound)
            }
            previous = current
            for (position, output) in piece.segments.enumerated() {
                guard let index = indices[result.playlist.segments[output].resolvedURI] else {
                    throw HLSExportError(.stitch(item: piece.item, reason: "segment \(result.playlist.segments[output].uri) is not its source's"))
                }
                let name = "piece-\(number + 1)-\(position).\(packaging.container == .mpegTS ? "ts" : "m4s")"
                placed.append(HLSPlacedSegment(
                    source: source, segment: index, name: name,
                    placement: SegmentPlacement(piece: piece.sourceRange, compositionStart: piece.compositionRange.start)))
            }
        }
        guard placed.count == result.playlist.segments.count else {
            throw HLSExportError(.stitch(item: nil, reason: "\(result.playlist.segments.count) segments stitched, \(placed.count) placed in pieces"))
        }
        evenDecodeDelays(of: &placed, pieces: result.pieces.map(\.segments), sources: sources, discontinuities: discontinuities)
        // How long before its first picture the stream's first piece decodes.
        let firstDecodeDelay = placed.first.map { first in
            (try? sources[first.source].packaging.decodeDelay(ofSegment: first.segment).adding(first.placement.addedDecodeDelay)) ?? .zero
        } ?? .zero
        let folder = HLSOutputLocation(stitched.url)
        let relocated = result.changingPlaylist { playlist in
            for index in playlist.segments.indices {
                playlist.segments[index].uri = placed[index].name
                playlist.segments[index].resolvedURI = folder.beside(placed[index].name)
                playlist.segments[index].isDiscontinuity = discontinuities.contains(index)
            }
            if firstDecodeDelay > .zero { playlist.start = leadInStart }
        }
        return (HLSStitchedVariantPlaylist(
            url: stitched.url, contentVariant: stitched.contentVariant, interstitialVariants: stitched.interstitialVariants,
            sourcePlaylistURLs: stitched.sourcePlaylistURLs, result: relocated), placed)
    }

    /// Gives the pieces of each run between discontinuities one decode delay: the
    /// longest of their own (`MP4Packaging.decodeDelay(ofSegment:)`, at each piece's first
    /// segment), so that decode times run on across a join as presentation times do.
    ///
    /// ```
    /// PTS    | ad (no B-frames) 0 1 2 | content 3 4 5 ...   delay: ad 0, content 2 frames
    /// DTS as the sources have them:  0 1 2 | 1 2 3 ...      back by 2 frames at the join
    /// DTS written:                  -2 -1 0 | 1 2 3 ...      one frame apart throughout
    /// ```
    ///
    /// A decode time that goes back at a join makes hls.js, which keeps one timeline across MPEG-TS
    /// pieces, move the next piece's first pictures onto the last ones of the piece before (which
    /// the browser then drops); one that jumps ahead, a gap it fills by stretching a picture. In
    /// fragmented MP4 (the decode times lowered, the composition offsets lengthened by as much),
    /// a decode time that goes back, or ahead by more than two frames, is a discontinuity to the
    /// browser's Media Source buffer, which in "sequence" mode (Shaka's for HLS) then places the
    /// piece after the longest track appended so far: late by the audio that runs past the
    /// picture. A run of one piece (every join marked) keeps its own delay: after a
    /// discontinuity players restart their timeline at its first decode time, and a longer delay
    /// would show it late.
    private static func evenDecodeDelays(
        of placed: inout [HLSPlacedSegment], pieces: [Range<Int>], sources: [HLSPackagedSource], discontinuities: Set<Int>
    ) {
        var runStart = 0
        while runStart < pieces.count {
            var runEnd = runStart + 1
            while runEnd < pieces.count, !discontinuities.contains(pieces[runEnd].lowerBound) { runEnd += 1 }
            let run = pieces[runStart..<runEnd].filter { !$0.isEmpty }
            runStart = runEnd
            let delays = run.map { segments in
                let first = placed[segments.lowerBound]
                return sources[first.source].packaging.decodeDelay(ofSegment: first.segment)
            }
            guard let longest = delays.max() else { continue }
            for (segments, delay) in zip(run, delays) {
                // Two reorder delays cannot overflow a subtraction; if they did, the piece keeps its own.
                guard let added = try? longest.subtracting(delay), added > .zero else { continue }
                for index in segments { placed[index].placement.addedDecodeDelay = added }
            }
        }
    }

    /// `EXT-X-START:TIME-OFFSET=0.001` (not `PRECISE`), for a stream whose first picture decodes
    /// after its first decode time: RFC 8216 has playback start with the segment that holds the
    /// offset, the first, as without the tag. hls.js puts its time 0 at the first decode time, so
    /// the picture buffers from there (0.083 s for B-frames); started at 0, its gap controller
    /// jumped 0.05 s past the buffer's start, over the first picture, in half the runs measured
    /// (3 of 6 and 2 of 4), while a start position past 0 makes it seek to the buffer's start
    /// (`seekToStartPos`): 6 of 6 right, Shaka, ffmpeg, GStreamer and Chromium unchanged.
    static var leadInStart: HLSStart {
        var attributes = HLSAttributeList()
        attributes["TIME-OFFSET"] = .decimal(MediaTime(value: 1, timescale: 1000))
        return HLSStart(attributes: attributes)
    }
}
