import CompositorCore
import CompositorIO

extension MP4Reader {
    /// Reads an HLS source's segments into the MP4 model: transport stream segments as
    /// `TransportStreamReader` does, fragmented MP4 ones as the movie their init section's `moov`
    /// and their `moof`s make (see `MovieFragments`; time 0 is the earliest video presentation,
    /// where the playlist's first `EXTINF` starts).
    ///
    /// With an `audioRendition` (the variant's audio in a playlist of its own), the movie's audio
    /// is that playlist's, placed by the timestamps the two share (see `MP4Movie.replacingAudio`).
    package static func read(_ source: HLSSegmentSource, audioRendition: HLSSegmentSource? = nil,
                             budget: inout MP4SampleBudget) throws(MP4Error) -> MP4Movie {
        let (movie, origin) = try readPlaylist(source, budget: &budget)
        guard let audioRendition else { return movie }
        let (audio, audioOrigin) = try readPlaylist(audioRendition, budget: &budget)
        let offset: MediaTime
        do { offset = try origin.distance(to: audioOrigin) } catch {
            throw .timeOverflow(file: audioRendition.playlist.description, reason: "its timestamps against its variant's: \(error)")
        }
        // Renditions share their variant's clock, so their starts differ by less than a segment.
        let tolerance = MediaTime.max(source.segments.first?.duration ?? .zero, audioRendition.segments.first?.duration ?? .zero)
        guard offset <= tolerance, -offset <= tolerance else {
            throw .rendition(file: audioRendition.playlist.description, variant: source.playlist.description,
                             reason: "its timestamps start \(offset) s from the video's, more than a segment: "
                                + "a variant and its renditions share one clock, so these cannot be lined up")
        }
        return try movie.replacingAudio(with: audio, startingAt: offset)
    }

    /// Where `source`'s time 0 is on its segments' clock: what a WebVTT `X-TIMESTAMP-MAP`'s
    /// `MPEGTS` is measured against (RFC 8216bis 3.1.4), an MPEG-2 timestamp for transport
    /// streams, a `tfdt` time for fragmented MP4. Reads the first segment alone, where time 0 is.
    ///
    /// - Parameter source: The segments of a variant (its video) or of a media playlist.
    /// - Returns: The timestamp of time 0.
    /// - Throws: `MP4Error` for a first segment that cannot be read.
    package static func timestampOrigin(of source: HLSSegmentSource) throws(MP4Error) -> TimestampOrigin {
        var budget = MP4SampleBudget.movie
        let first = HLSSegmentSource(playlist: source.playlist, container: source.container, segments: Array(source.segments.prefix(1)))
        return try readPlaylist(first, budget: &budget).1
    }

    private static func readPlaylist(_ source: HLSSegmentSource, budget: inout MP4SampleBudget) throws(MP4Error) -> (MP4Movie, TimestampOrigin) {
        switch source.container {
        case .transportStream:
            return try TransportStreamReader.read(source, budget: &budget)
        case .fragmentedMP4(let initSection):
            let (movie, zero) = try readFragmented(source, initSection: initSection, budget: &budget)
            return (movie, .fragmented(zero))
        }
    }

    private static func readFragmented(_ source: HLSSegmentSource, initSection: HLSSegmentSource.FileBytes,
                                       budget: inout MP4SampleBudget) throws(MP4Error) -> (MP4Movie, zero: MediaTime) {
        let first = try readInitSection(initSection, budget: &budget)
        var fragments = try MovieFragments(movie: first.movie, mvex: first.mvex)

        var files: [FragmentedSegmentFiles.Segment] = []
        var layoutEnd: UInt64 = 0
        for (index, segment) in source.segments.enumerated() {
            if let newInitSection = segment.newInitSection {
                let next = try readInitSection(newInitSection, budget: &budget)
                try fragments.switchInitSection(to: next.movie, mvex: next.mvex)
            }
            let (file, bytes) = try open(segment.file)
            let path = segment.path.description
            var moofs: [MP4Box] = []
            try walkTopLevel(of: file, bytes: bytes) { (header, block) throws(MP4Error) in
                switch header.type {
                case .moof:
                    let moof = TopLevelBox(header, in: block)
                    moofs.append(try readBox(header, of: file, limit: fragmentSizeLimit, bytes: moof.bytes))
                case .moov:
                    throw .unsupported(file: path, boxPath: "moov", offset: header.offset,
                                       reason: "a segment with a moov of its own (a new init section belongs in EXT-X-MAP)")
                default: break
                }
            }
            let placement = MovieFragments.Placement(file: path, bytes: bytes, storeOffset: layoutEnd)
            try fragments.add(moofs, placement: placement, startsAfresh: segment.discontinuity && index > 0, budget: &budget)
            files.append(.init(path: segment.path, version: file.version, bytes: bytes, start: layoutEnd))
            layoutEnd += UInt64(bytes.count)
        }
        return try fragments.movie(path: source.playlist, store: .fragmentedSegments(FragmentedSegmentFiles(segments: files)),
                                   zero: .earliestVideo)
    }

    /// An init section's movie (without samples: the init section must hold none) and its `mvex`.
    private static func readInitSection(_ section: HLSSegmentSource.FileBytes,
                                        budget: inout MP4SampleBudget) throws(MP4Error) -> (movie: MP4Movie, mvex: MP4Box) {
        let (file, bytes) = try open(section)
        let path = section.path.description
        var moovBox: TopLevelBox?
        try walkTopLevel(of: file, bytes: bytes) { (header, block) throws(MP4Error) in
            if header.type == .moov, moovBox == nil { moovBox = TopLevelBox(header, in: block) }
        }
        guard let moovBox else {
            throw .malformed(file: path, boxPath: "", offset: bytes.lowerBound, reason: "the init section (EXT-X-MAP) has no moov box")
        }
        let moov = try readBox(moovBox.header, of: file, limit: moovSizeLimit, bytes: moovBox.bytes)
        guard let mvex = moov.child("mvex") else {
            throw .malformed(file: path, boxPath: "moov", offset: moovBox.header.offset,
                             reason: "the init section (EXT-X-MAP) has no mvex: its moov does not announce movie fragments")
        }
        let movie = try movie(from: moov, file: file, budget: &budget)
        guard movie.tracks.allSatisfy({ $0.samples.count == 0 }) else {
            throw .unsupported(file: path, boxPath: "moov", offset: moovBox.header.offset,
                               reason: "the init section (EXT-X-MAP) holds samples of its own; only its segments' are read")
        }
        return (movie, mvex)
    }

    /// The file and the bytes of it a playlist names.
    private static func open(_ section: HLSSegmentSource.FileBytes) throws(MP4Error) -> (ReadableFile, Range<UInt64>) {
        try section.open { .malformed(file: section.path.description, boxPath: "", offset: $0, reason: $1) }
    }
}
