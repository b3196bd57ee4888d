import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// The container of the segments a stitched playlist packages MP4 sources into.
public enum HLSSegmentContainer: String, Sendable, Hashable, CaseIterable {
    /// MPEG-2 transport stream segments (`.ts`): H.264 and AAC.
    case mpegTS = "ts"
    /// Fragmented MP4 (CMAF) segments (`.m4s`) after an init segment (`EXT-X-MAP`).
    case fragmentedMP4 = "fmp4"

    var packagingContainer: MP4Packaging.Container {
        switch self {
        case .mpegTS: return .mpegTS
        case .fragmentedMP4: return .fragmentedMP4
        }
    }
}

/// An MP4 source of a stitched playlist (any source, when every piece is packaged), packaged by
/// passthrough into segments written beside the playlist: `NAME-0.ts`, `NAME-1.ts`, …
/// (`NAME-init.mp4` and `NAME-0.m4s`, … for fragmented MP4), `NAME` the source's file name
/// without its extension (made unique among the sources). Only the segments the stitched
/// playlists play are written; when every piece is packaged, as `HLSPlacedSegment`s.
package struct HLSPackagedSource: Sendable, Equatable {
    package let location: MediaLocation
    /// The schedule item that first plays it, for messages.
    package let item: String
    package let packaging: MP4Packaging
    /// The source as a media playlist whose segments are in the output folder (never written: the
    /// stitched playlists list its segments).
    package let playlist: HLSMediaPlaylist
    /// What its files are named after (`NAME` above), unique among the sources.
    package let stem: String
    /// The init segment's file name (fragmented MP4 only).
    package let initSegmentName: String?
    /// The segments the stitched playlists play, by index, ascending.
    package var usedSegments: [Int] = []

    /// Every file of it that is written: the init segment, then the used segments.
    package var fileNames: [String] {
        (usedSegments.isEmpty ? [] : initSegmentName.map { [$0] } ?? []) + usedSegments.map { playlist.segments[$0].uri }
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.location == b.location && a.item == b.item && a.playlist == b.playlist && a.usedSegments == b.usedSegments
    }

    /// Packages `location` (an MP4 file read at `readPath`, or `readBefore` when a catalog read it
    /// already; or the HLS source `playlist` read as `render` reads it) with the segment boundaries
    /// that `cuts` need. Without `readPath`, the error says why: `loadFailure`, the catalog's failure
    /// to load it, or else that no catalog did.
    static func packaging(
        of location: MediaLocation, readPath: FilePath?, loadFailure: SourceProbeError? = nil, readBefore: MP4Movie? = nil, item: String,
        playlist: MP4StitchPiece.Source?, container: HLSSegmentContainer, targetDuration: Int64, cuts: [MediaTime]
    ) throws(HLSExportError) -> MP4Packaging {
        guard let path = readPath else {
            if let loadFailure { throw HLSExportError(.unreadable(url: location.url, reason: "could not be loaded: \(loadFailure)")) }
            throw HLSExportError(.unsupported(url: location.url, reason: "a remote source is packaged from a SourceCatalog that loaded it (stitch(_:catalog:))"))
        }
        do {
            let movie: MP4Movie
            if case .hls(let video, let audioRendition)? = playlist {
                var budget = MP4SampleBudget.movie
                movie = try MP4Reader.read(video, audioRendition: audioRendition, budget: &budget)
            } else {
                if let readBefore { movie = readBefore } else { movie = try MP4Reader.read(path: path) }
            }
            return try MP4Packaging(
                movie: movie, container: container.packagingContainer, targetDuration: MediaTime(seconds: targetDuration), cuts: cuts)
        } catch {
            throw HLSExportError(.packaging(item: item, error))
        }
    }

    /// The source `packaging` made of `location`, its segments named `stem` in `folder` (the
    /// output's folder). Segment boundaries are rounded to the microsecond (each
    /// boundary, so no drift): an `EXTINF` is a decimal, and the playlist must say exactly what
    /// the composition does (a source's keyframes on a 90 kHz clock fall between decimals).
    init(_ location: MediaLocation, item: String, packaging: MP4Packaging, stem: String, folder: HLSOutputLocation) throws(HLSExportError) {
        self.location = location
        self.item = item
        self.packaging = packaging
        self.stem = stem
        let container = packaging.container
        let extensionName = container == .mpegTS ? "ts" : "m4s"
        var map: HLSMap?
        if container == .fragmentedMP4 {
            initSegmentName = stem + "-init.mp4"
            map = HLSMap(attributes: HLSAttributeList([HLSAttribute("URI", .quotedString(stem + "-init.mp4"))]), resolvedURI: folder.beside(stem + "-init.mp4"))
        } else {
            initSegmentName = nil
        }
        let boundaries: [MediaTime]
        do {
            boundaries = try (packaging.segments.map(\.range.start) + [packaging.duration]).map { (time) throws(MediaTimeError) in
                try time.converted(to: 1_000_000, rounding: .toNearestOrAwayFromZero)
            }
        } catch {
            throw HLSExportError(.packaging(item: item, .timeOverflow(file: packaging.path.description, reason: "segment boundaries to the microsecond: \(error)")))
        }
        let segments = packaging.segments.indices.map { index in
            let name = "\(stem)-\(index).\(extensionName)"
            return HLSMediaSegment(duration: boundaries[index + 1] - boundaries[index], uri: name, resolvedURI: folder.beside(name), map: map)
        }
        let longest = segments.map { $0.duration.wholeSeconds(rounding: .toNearestOrAwayFromZero) }.max() ?? 1
        playlist = HLSMediaPlaylist(
            url: folder.beside(stem + ".m3u8"), version: container == .mpegTS ? 3 : 7, targetDuration: max(1, longest),
            playlistType: .vod, hasEndList: true, hasIndependentSegments: true, segments: segments)
    }

    /// `location`'s file name without its extension (a playlist's: its folder's name), in letters,
    /// digits, `-` and `_` (others become `_`), made unique among `taken` by a `-2`, `-3`, … suffix.
    static func stem(for location: MediaLocation, taken: inout Set<String>) -> String {
        // The last two parts of its path (of a URL's path for a remote one).
        let parts: [String]
        switch location.kind {
        case .file(let path): parts = [path.parent.lastComponent.string ?? "", path.lastComponent.string ?? "source"]
        case .remote(let url): parts = ["", ""] + URIReference(parsing: url).path.split(separator: "/").map(String.init)
        }
        let name = parts[parts.count - 1].isEmpty ? "source" : parts[parts.count - 1]
        var base = name.lastIndex(of: ".").map { name[..<$0] }.flatMap { $0.isEmpty ? nil : String($0) } ?? name
        // A playlist is most often `index.m3u8` in a folder named for what it plays: the folder
        // names its files (`content-init.mp4`, not `index-init.mp4`, `index-2-init.mp4`, ...).
        let folder = parts[parts.count - 2]
        if name.lowercased().hasSuffix(".m3u8"), !folder.isEmpty, folder != ".", folder != "/", folder != ".." {
            base = folder
        }
        let safe = String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
        var stem = safe
        var number = 2
        while taken.contains(stem) {
            stem = "\(safe)-\(number)"
            number += 1
        }
        taken.insert(stem)
        return stem
    }

    /// Records in each source which of its segments `playlists` play.
    static func markUsed(_ sources: inout [HLSPackagedSource], by playlists: [HLSMediaPlaylist]) {
        guard !sources.isEmpty else { return }
        let played = Set(playlists.flatMap { $0.segments.map(\.resolvedURI) })
        for index in sources.indices {
            sources[index].usedSegments = sources[index].playlist.segments.indices.filter {
                played.contains(sources[index].playlist.segments[$0].resolvedURI)
            }
        }
    }

    /// Writes `placed` (segments of `sources`, in play order) into `draft`, one stream on the
    /// composition's clock, with the init segment of each source they play.
    static func write(_ placed: [HLSPlacedSegment], of sources: [HLSPackagedSource], into draft: AtomicOutputFolder.Draft,
                      afterEachFile: () throws(HLSExportError) -> Void = {}) throws(HLSExportError) {
        var writers: [Int: any MP4SegmentWriter] = [:]
        var stream = PackagedStream()
        var bytes = OutputBytes()
        for segment in placed {
            let source = sources[segment.source]
            var wroteInitSegment = false
            do {
                var writer: any MP4SegmentWriter
                if let open = writers[segment.source] { writer = open } else {
                    writer = try source.packaging.segmentWriter()
                    if let name = source.initSegmentName, let initBytes = writer.initSegment() {
                        try source.write(initBytes, name: name, into: draft)
                        wroteInitSegment = true
                    }
                }
                try writer.segment(segment.segment, placedAt: segment.placement, continuing: &stream, into: &bytes)
                writers[segment.source] = writer
                try source.write(bytes, name: segment.name, into: draft)
            } catch {
                throw HLSExportError(.packaging(item: source.item, error))
            }
            if wroteInitSegment { try afterEachFile() }
            try afterEachFile()
        }
        for (index, writer) in writers {
            do { try writer.checkUnchanged() } catch { throw HLSExportError(.packaging(item: sources[index].item, error)) }
        }
    }

    /// Writes the init segment alone (fragmented MP4): for segments written elsewhere.
    func writeInitSegment(into draft: AtomicOutputFolder.Draft) throws(HLSExportError) {
        guard let initSegmentName else { return }
        do {
            if let bytes = try packaging.segmentWriter().initSegment() { try write(bytes, name: initSegmentName, into: draft) }
        } catch {
            throw HLSExportError(.packaging(item: item, error))
        }
    }

    /// Writes the init segment and the used segments into `draft`, calling `afterEachFile` after each.
    func write(
        into draft: AtomicOutputFolder.Draft, afterEachFile: () throws(HLSExportError) -> Void = {}
    ) throws(HLSExportError) {
        guard !usedSegments.isEmpty else { return }
        var writer: any MP4SegmentWriter
        do {
            writer = try packaging.segmentWriter()
            if let initSegmentName, let bytes = writer.initSegment() { try write(bytes, name: initSegmentName, into: draft) }
        } catch {
            throw HLSExportError(.packaging(item: item, error))
        }
        if initSegmentName != nil { try afterEachFile() }
        var bytes = OutputBytes()
        for index in usedSegments {
            do {
                try writer.segment(index, into: &bytes)
                try write(bytes, name: playlist.segments[index].uri, into: draft)
            } catch {
                throw HLSExportError(.packaging(item: item, error))
            }
            try afterEachFile()
        }
        do { try writer.checkUnchanged() } catch { throw HLSExportError(.packaging(item: item, error)) }
    }

    private func write(_ bytes: [UInt8], name: String, into draft: AtomicOutputFolder.Draft) throws(MP4Error) {
        do { try draft.write(bytes, name: name) } catch { throw MP4Error(error) }
    }

    private func write(_ bytes: OutputBytes, name: String, into draft: AtomicOutputFolder.Draft) throws(MP4Error) {
        do { try draft.write(bytes, name: name) } catch { throw MP4Error(error) }
    }
}

/// A segment of a packaged source written as a file of its own, on the composition's clock
/// (`HLSExporter.packagesEveryPiece`): one per segment of the stitched playlist.
package struct HLSPlacedSegment: Sendable, Equatable {
    /// The packaged source (an index in `HLSExport.packagedSources`) and its segment.
    package let source: Int
    package let segment: Int
    /// The file's name in the output folder.
    package let name: String
    package var placement: SegmentPlacement
}
