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

/// An MP4 source of a stitched playlist, packaged by passthrough into segments written beside the
/// playlist: `NAME-0.ts`, `NAME-1.ts`, … (`NAME-init.mp4` and `NAME-0.m4s`, … for fragmented
/// MP4), `NAME` the source's file name without its extension (made unique among the sources).
/// Only the segments the stitched playlists play are written.
package struct HLSPackagedSource: Sendable, Equatable {
    package let location: MediaLocation
    /// The schedule item that first plays it, for messages.
    package let item: String
    package let packaging: MP4Packaging
    /// The source as a media playlist whose segments are in the output folder (never written: the
    /// stitched playlists list its segments).
    package let playlist: HLSMediaPlaylist
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

    /// Packages `location` (a local MP4 file) with the segment boundaries that `cuts` need, named
    /// `stem` in `folderURL` (the output folder, ending in `/`).
    init(
        _ location: MediaLocation, item: String, container: HLSSegmentContainer, targetDuration: Int64, cuts: [MediaTime],
        stem: String, folderURL: String
    ) throws(HLSCompositionStitchError) {
        guard let path = location.filePath else { throw .unsupported(url: location.url, reason: "only local MP4 files can be packaged") }
        do {
            packaging = try MP4Packaging(
                path: path, container: container.packagingContainer, targetDuration: MediaTime(seconds: targetDuration), cuts: cuts)
        } catch {
            throw .packaging(item: item, error)
        }
        self.location = location
        self.item = item
        let extensionName = container == .mpegTS ? "ts" : "m4s"
        var map: HLSMap?
        if container == .fragmentedMP4 {
            initSegmentName = stem + "-init.mp4"
            map = HLSMap(attributes: HLSAttributeList([HLSAttribute("URI", .quotedString(stem + "-init.mp4"))]), resolvedURI: folderURL + stem + "-init.mp4")
        } else {
            initSegmentName = nil
        }
        let segments = packaging.segments.enumerated().map { index, segment in
            let name = "\(stem)-\(index).\(extensionName)"
            return HLSMediaSegment(duration: segment.range.duration, uri: name, resolvedURI: folderURL + name, map: map)
        }
        let longest = segments.map { $0.duration.wholeSeconds(rounding: .toNearestOrAwayFromZero) }.max() ?? 1
        playlist = HLSMediaPlaylist(
            url: folderURL + stem + ".m3u8", version: container == .mpegTS ? 3 : 7, targetDuration: max(1, longest),
            playlistType: .vod, hasEndList: true, hasIndependentSegments: true, segments: segments)
    }

    /// `location`'s file name without its extension, in letters, digits, `-` and `_` (others
    /// become `_`), made unique among `taken` by a `-2`, `-3`, … suffix.
    static func stem(for location: MediaLocation, taken: inout Set<String>) -> String {
        let name = location.filePath?.lastComponent.string ?? "source"
        let base = name.lastIndex(of: ".").map { name[..<$0] }.flatMap { $0.isEmpty ? nil : String($0) } ?? name
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

    /// Writes the init segment and the used segments into `draft`.
    func write(into draft: AtomicOutputFolder.Draft) throws(HLSCompositionStitchError) {
        guard !usedSegments.isEmpty else { return }
        do {
            var writer = try packaging.segmentWriter()
            if let initSegmentName, let bytes = writer.initSegment() { try write(bytes, name: initSegmentName, into: draft) }
            var bytes: [UInt8] = []
            for index in usedSegments {
                try writer.segment(index, into: &bytes)
                try write(bytes, name: playlist.segments[index].uri, into: draft)
            }
            try writer.checkUnchanged()
        } catch {
            throw .packaging(item: item, error)
        }
    }

    private func write(_ bytes: [UInt8], name: String, into draft: AtomicOutputFolder.Draft) throws(MP4Error) {
        do { try draft.write(bytes, name: name) } catch { throw MP4Error(error) }
    }
}
