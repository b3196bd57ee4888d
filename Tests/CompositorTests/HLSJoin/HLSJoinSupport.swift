import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting
import CompositorTestSupport
import CompositorUmbrellaTestSupport

/// What ffmpeg must decode from one stitched media playlist, and the checks that it does.
struct HLSJoinJudge {
    let ffmpeg: FFmpeg
    private var sourceFrames: [String: [DecodedFrame]] = [:]

    init(ffmpeg: FFmpeg) { self.ffmpeg = ffmpeg }

    /// The source frames of each segment's snapped range, in play order, one list per segment.
    mutating func expectedFrames(_ composition: Composition, sourcePlaylists: [String]) async throws -> [[DecodedFrame]] {
        var expected: [[DecodedFrame]] = []
        for (segment, url) in zip(composition.segments, sourcePlaylists) {
            if sourceFrames[url] == nil { sourceFrames[url] = try await ffmpeg.playlistFrames(url) }
            expected.append(sourceFrames[url]!.filter { segment.sourceRange.contains($0.time) })
        }
        return expected
    }

    /// How long a source frame is shown: until the next one (the last frame: as long as the one before).
    func frameDuration(_ frame: DecodedFrame, in url: String) -> MediaTime {
        let times = sourceFrames[url]!.map(\.time).sorted()
        let index = times.firstIndex(of: frame.time)!
        return index + 1 < times.count ? times[index + 1] - times[index] : times[index] - times[index - 1]
    }

    /// Decodes `playlistPath` and checks it against the reported `composition`: the frames are the
    /// sources' frames of the snapped ranges, in order, and each segment's frames, each shown as long
    /// as in its source, last exactly as long as the segment; so the decoded frames last as long as
    /// the composition. (Durations come from the sources' own timestamps: ffmpeg rewrites the
    /// timestamps of the frames around a discontinuity, and its per-frame duration is one frame
    /// rate's guess for the whole stream.)
    mutating func judge(
        _ playlistPath: String, composition: Composition, sourcePlaylists: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let expected = try await expectedFrames(composition, sourcePlaylists: sourcePlaylists)
        let decoded = try await ffmpeg.decodedFrames(playlistPath)
        #expect(decoded.map(\.hash) == expected.flatMap { $0 }.map(\.hash), "frames of \(playlistPath)", sourceLocation: sourceLocation)
        guard decoded.map(\.hash) == expected.flatMap({ $0 }).map(\.hash) else { return }

        var decodedDuration = MediaTime.zero
        for (index, (segment, frames)) in zip(composition.segments, expected).enumerated() {
            #expect(!frames.isEmpty, "segment \(index) ('\(segment.id)') has no frames", sourceLocation: sourceLocation)
            let duration = frames.reduce(MediaTime.zero) { $0 + frameDuration($1, in: sourcePlaylists[index]) }
            #expect(duration == segment.compositionRange.duration,
                    "segment \(index) ('\(segment.id)'): its frames last \(duration) s", sourceLocation: sourceLocation)
            decodedDuration += duration
        }
        #expect(decodedDuration == composition.duration, sourceLocation: sourceLocation)
    }
}

/// Checks a stitched playlist's tags against the reported composition: every cut on a segment
/// boundary of its source, `EXT-X-DISCONTINUITY` exactly at every switch, `EXT-X-MAP` after every
/// discontinuity of fragmented MP4, one `EXT-X-DATERANGE` per break where and as long as it plays.
///
/// `packaged` are the MP4 sources packaged by the stitch, whose playlists are not written.
func checkStitchedPlaylist(
    _ variant: HLSStitchedVariantPlaylist, composition: Composition, packaged: [HLSPackagedSource] = [],
    discontinuityAtEveryPiece: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let text = try String(contentsOfFile: variant.url, encoding: .utf8)
    #expect(text == variant.result.text, sourceLocation: sourceLocation)
    let playlist = try HLSPlaylistParser().parseMediaPlaylist(Array(text.utf8), url: variant.url)
    let outputBoundaries = try playlist.segmentBoundaries
    #expect(outputBoundaries.last == composition.duration, sourceLocation: sourceLocation)

    for (segment, url) in zip(composition.segments, variant.sourcePlaylistURLs) {
        let boundaries = try packaged.first { $0.playlist.url == url }.map { try $0.playlist.segmentBoundaries } ?? HLSJoin.boundaries(url)
        #expect(boundaries.contains(segment.sourceRange.start) && boundaries.contains(segment.sourceRange.end),
                "'\(segment.id)' \(segment.sourceRange) is not cut at segment boundaries of \(url)", sourceLocation: sourceLocation)
        #expect(outputBoundaries.contains(segment.compositionRange.start), sourceLocation: sourceLocation)
    }
    let pieceStarts = Set(variant.result.pieces.map(\.segments.lowerBound))
    #expect(variant.result.pieces.count == composition.segments.count, sourceLocation: sourceLocation)
    for (index, segment) in playlist.segments.enumerated() where discontinuityAtEveryPiece {
        #expect(segment.isDiscontinuity == (index > 0 && pieceStarts.contains(index)),
                "discontinuity before output segment \(index)", sourceLocation: sourceLocation)
    }
    let lines = text.split(separator: "\n")
    for (index, line) in lines.enumerated() where line == "#EXT-X-DISCONTINUITY" && playlist.segments[0].map != nil {
        #expect(lines[index + 1].hasPrefix("#EXT-X-MAP:URI="), "EXT-X-MAP after line \(index + 1)", sourceLocation: sourceLocation)
    }

    let anchor = try HLSDateTime(parsing: HLSExportOptions.defaultProgramDateTime)
    let marked = playlist.segments.enumerated().flatMap { index, segment in segment.dateRanges.map { (index, $0) } }
    #expect(marked.map(\.1.id) == composition.breaks.map(\.id), sourceLocation: sourceLocation)
    for ((index, dateRange), placed) in zip(marked, composition.breaks) {
        #expect(outputBoundaries[index] == placed.compositionRange.start, sourceLocation: sourceLocation)
        #expect(dateRange.className == HLSExportOptions.defaultMarkerClass, sourceLocation: sourceLocation)
        #expect(dateRange.startDate == (try anchor.adding(placed.compositionRange.start)), sourceLocation: sourceLocation)
        #expect(dateRange.duration == placed.compositionRange.duration, sourceLocation: sourceLocation)
        #expect(dateRange.attributes["X-AD-IDS"] == .quotedString(placed.adIDs.joined(separator: ",")), sourceLocation: sourceLocation)
        #expect(outputBoundaries.contains(placed.compositionRange.end), sourceLocation: sourceLocation)
    }
}
