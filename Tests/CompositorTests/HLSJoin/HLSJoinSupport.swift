import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Schedules over the committed HLS fixtures, and ffmpeg as the judge of what a stitch wrote.
enum HLSJoin {
    static let fixtures = packageRoot.appendingPathComponent("Fixtures").path

    /// A schedule file of `Fixtures/`, compiled with its sources' probed durations.
    static func composition(_ name: String) throws -> Composition {
        try composition(json: try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
    }

    /// A schedule given as JSON, URLs relative to `Fixtures/`.
    static func composition(json: some Collection<UInt8>) throws -> Composition {
        let schedule = try ScheduleDocument.decode(json, baseFolder: FilePath(fixtures))
        let (probed, failures) = SourceProbe.probeAll(schedule)
        #expect(failures.isEmpty, "\(failures)")
        return try Composition(schedule: schedule, naturalDurations: probed.mapValues(\.naturalDuration))
    }

    /// Stitches `composition` into a fresh scratch folder and writes every playlist there.
    static func stitch(_ composition: Composition, folder: String) throws -> HLSExport {
        let stitched = try HLSExporter(outputURL: folder + "/stitched.m3u8").stitch(composition)
        for file in stitched.files { try Data(file.text.utf8).write(to: URL(fileURLWithPath: file.url)) }
        return stitched
    }

    /// The segment boundaries of the media playlist at `url`, from 0.
    static func boundaries(_ url: String) throws -> [MediaTime] {
        guard case .media(let playlist) = try HLSProbe.load(url) else { throw DemoTestError("\(url) is not a media playlist") }
        return try playlist.segmentBoundaries
    }
}

/// One frame as ffmpeg decodes it: its presentation time and the MD5 of its pixels.
struct DecodedFrame: Equatable, CustomStringConvertible {
    let time: MediaTime
    let hash: String
    var description: String { "\(time)s:\(hash.prefix(8))" }
}

extension FFmpeg {
    /// Every video frame ffmpeg decodes from the playlist at `path`, with the judge's command:
    /// `ffmpeg -v error -i PATH -map 0:v -fps_mode passthrough -enc_time_base -1 -autoscale 0 -f framemd5 -`
    /// (no scaling to the first frame's size when sources of other sizes follow).
    /// Times are as decoded (the stream's own time base), in output order; any message on stderr
    /// is a failure.
    func decodedFrames(_ path: String) async throws -> [DecodedFrame] {
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough",
                                                       "-enc_time_base", "-1", "-autoscale", "0", "-f", "framemd5", "-"])
        guard output.status == 0, output.stderr.isEmpty else { throw FFmpegFailure(message: "\(path): \(output.stderr)") }
        var timeBase: MediaTime?
        var frames: [DecodedFrame] = []
        for line in output.stdout.split(separator: "\n") {
            if line.hasPrefix("#tb 0:") {
                let parts = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/")
                timeBase = MediaTime(value: Int64(parts[0])!, timescale: Int32(parts[1])!)
            }
            guard !line.hasPrefix("#"), let timeBase else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6, fields[0] == "0", let pts = Int64(fields[2]) else { continue }
            frames.append(DecodedFrame(time: MediaTime(value: pts * timeBase.value, timescale: timeBase.timescale), hash: fields[5]))
        }
        return frames
    }

    /// The frames of a media playlist in its own time: 0 is the start of its first segment, which is
    /// where its first frame (the lowest presentation time) is shown.
    func playlistFrames(_ path: String) async throws -> [DecodedFrame] {
        let frames = try await decodedFrames(path)
        guard let first = frames.map(\.time).min() else { return [] }
        return frames.map { DecodedFrame(time: $0.time - first, hash: $0.hash) }
    }
}

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
