import Testing
import CompositorTestSupport
import CompositorHLSTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// ffmpeg is the independent judge: it makes real HLS sources, and decodes the stitched playlist.
/// The frames must be the sources' frames of the snapped ranges, in order, and last as long as the
/// engine reports.
@Suite("HLS stitching end to end (ffmpeg)", .needsFFmpeg)
struct HLSFFmpegTests {
    /// One decoded frame: its presentation time from the start of its stream, and its hash.
    struct Frame: Equatable {
        let time: MediaTime
        let md5: String
    }

    static func ffmpeg() throws -> String {
        try FFmpeg.require().ffmpeg
    }

    /// Encodes `seconds` of a lavfi test source as HLS in `directory` and returns the playlist's path.
    static func makeSource(
        _ directory: String, source: String, seconds: Int, fmp4: Bool, keyframes: String? = nil
    ) async throws -> String {
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "\(source)=size=160x90:rate=25", "-t", "\(seconds)",
                         "-c:v", "libx264", "-pix_fmt", "yuv420p", "-sc_threshold", "0", "-bf", "2"]
        if let keyframes {
            arguments += ["-g", "1000", "-force_key_frames", keyframes, "-hls_time", "0.1"]
        } else {
            arguments += ["-g", "25", "-keyint_min", "25", "-hls_time", "1"]
        }
        arguments += ["-f", "hls", "-hls_playlist_type", "vod", "-hls_segment_filename", "\(directory)/seg%d.\(fmp4 ? "m4s" : "ts")"]
        if fmp4 { arguments += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"] }
        arguments.append("\(directory)/index.m3u8")
        _ = try await ChildProcess.run("/bin/mkdir", ["-p", directory])
        let output = try await ChildProcess.run(try ffmpeg(), arguments)
        guard output.status == 0 else { throw HLSProcessFailure(command: "ffmpeg (encode)", output: output) }
        return "\(directory)/index.m3u8"
    }

    /// Every frame ffmpeg decodes from `path`, without frame-rate conversion.
    static func frames(_ path: String) async throws -> [Frame] {
        let output = try await ChildProcess.run(try ffmpeg(), ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        guard output.status == 0, output.stderr.isEmpty else { throw HLSProcessFailure(command: "ffmpeg (decode \(path))", output: output) }
        var timeBase = MediaTime(value: 1, timescale: 1)
        var frames: [Frame] = []
        for line in output.stdout.split(separator: "\n") {
            if line.hasPrefix("#tb 0: ") {
                let parts = line.dropFirst(7).split(separator: "/")
                timeBase = MediaTime(value: Int64(parts[0])!, timescale: Int32(parts[1])!)
            }
            guard !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: " ") }
            guard fields.count == 6, let pts = Int64(fields[2]) else { continue }
            frames.append(Frame(time: MediaTime(value: pts * timeBase.value, timescale: timeBase.timescale), md5: fields[5]))
        }
        guard let first = frames.first?.time else { return [] }
        return frames.map { Frame(time: $0.time - first, md5: $0.md5) }
    }

    static func stitchAndCompare(_ directory: HLSTemporaryDirectory, fmp4: Bool, pieces: (HLSMediaPlaylist, HLSMediaPlaylist) throws -> [HLSStitchPiece])
        async throws -> HLSStitchResult
    {
        let root = directory.path
        let a = try await makeSource(root + "/content", source: "testsrc2", seconds: 6, fmp4: fmp4, keyframes: "0,1.2,2,3.6,4.4")
        let b = try await makeSource(root + "/ads/one", source: "testsrc", seconds: 4, fmp4: fmp4)
        let content = try HLSProbe.load("file://" + a)
        let ad = try HLSProbe.load("file://" + b)
        guard case .media(let contentPlaylist) = content, case .media(let adPlaylist) = ad else {
            throw HLSLoadError(path: a, reason: "expected media playlists")
        }
        let output = root + "/out/stitched.m3u8"
        let result = try HLSStitcher(outputURL: "file://" + output, programDateTime: "2024-05-01T12:00:00Z")
            .stitch(try pieces(contentPlaylist, adPlaylist))
        _ = try await ChildProcess.run("/bin/mkdir", ["-p", root + "/out"])
        try hlsWriteFile(output, result.text)

        // What should play: each placed piece's snapped source range, taken from its source's own frames.
        let sourceFrames = [contentPlaylist.url: try await frames(a), adPlaylist.url: try await frames(b)]
        var expected: [String] = []
        for piece in result.pieces {
            let frames = sourceFrames[piece.url]!.filter { piece.sourceRange.contains($0.time) }
            #expect(!frames.isEmpty, "piece \(piece.index) has no frames")
            expected += frames.map(\.md5)
        }
        let stitched = try await frames(output)
        #expect(stitched.count == expected.count)
        #expect(stitched.map(\.md5) == expected)
        // 25 frames per second: the frames last exactly as long as the reported composition.
        #expect(MediaTime(value: Int64(stitched.count), timescale: 25) == result.duration)
        #expect(result.pieces.last?.compositionRange.end == result.duration)
        return result
    }

    @Test("stitched MPEG-TS decodes to the source frames of the snapped ranges, in order")
    func mpegTS() async throws {
        // content (keyframes forced):  |--1.2--|-.8-|---1.6---|-.8-|---1.6---|
        //                              0       1.2  2         3.6  4.4       6
        // ad (1 s segments):           |-1-|-1-|-1-|-1-|
        // Asked: content [0, 1.9), ad [0.4, 2.6), content [2.7, 6)
        // Plays: content [0, 2),   ad [0, 3),     content [2, 6)   = 9 s, 225 frames
        let directory = try HLSTemporaryDirectory()
        let result = try await Self.stitchAndCompare(directory, fmp4: false) { content, ad in [
            HLSStitchPiece(playlist: content, sourceRange: Self.range("0", "1.9"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: ad, sourceRange: Self.range("0.4", "2.6"), kind: .interstitial,
                           marker: HLSStitchMarker(id: "break-1", className: "com.example.ad"), plannedCompositionStart: HLSTest.time("1.9")),
            HLSStitchPiece(playlist: content, sourceRange: Self.range("2.7", "6"), kind: .content, plannedCompositionStart: HLSTest.time("4.1")),
        ] }
        #expect(result.pieces.map(\.sourceRange) == [Self.range("0", "2"), Self.range("0", "3"), Self.range("2", "6")])
        #expect(result.pieces.map(\.compositionRange) == [Self.range("0", "2"), Self.range("2", "5"), Self.range("5", "9")])
        #expect(result.duration == MediaTime(seconds: 9))
        #expect(result.markers.first?.dateRange.duration == MediaTime(seconds: 3))
    }

    /// ffmpeg's HLS demuxer does not reset fragmented-MP4 timestamps at a discontinuity (it drops
    /// packets whose decode time goes backwards; MPEG-TS is handled), so this test picks source ranges
    /// whose own times only move forward. Players that follow RFC 8216 (AVFoundation, hls.js) do not
    /// need that.
    @Test("stitched fragmented MP4 re-emits EXT-X-MAP and decodes to the source frames")
    func fragmentedMP4() async throws {
        // content (keyframes forced):  |--1.2--|-.8-|---1.6---|-.8-|---1.6---|
        //                              0       1.2  2         3.6  4.4       6
        // ad (1 s segments):           |-1-|-1-|-1-|-1-|
        // Asked: content [0, 1.3), ad [1.9, 4), content [4.3, 6)
        // Plays: content [0, 1.2), ad [2, 4),   content [4.4, 6)   = 4.8 s, 120 frames
        let directory = try HLSTemporaryDirectory()
        let result = try await Self.stitchAndCompare(directory, fmp4: true) { content, ad in [
            HLSStitchPiece(playlist: content, sourceRange: Self.range("0", "1.3"), kind: .content, plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: ad, sourceRange: Self.range("1.9", "4"), kind: .interstitial, plannedCompositionStart: HLSTest.time("1.3")),
            HLSStitchPiece(playlist: content, sourceRange: Self.range("4.3", "6"), kind: .content, plannedCompositionStart: HLSTest.time("3.4")),
        ] }
        #expect(result.pieces.map(\.sourceRange) == [Self.range("0", "1.2"), Self.range("2", "4"), Self.range("4.4", "6")])
        let maps = result.text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MAP") }
        #expect(maps == [#"#EXT-X-MAP:URI="../content/init.mp4""#, #"#EXT-X-MAP:URI="../ads/one/init.mp4""#, #"#EXT-X-MAP:URI="../content/init.mp4""#])
        #expect(result.playlist.version == 6)
        #expect(result.duration == HLSTest.time("4.8"))
    }

    @Test("MPEG-TS and fragmented MP4 sources are refused together")
    func mixedFormats() async throws {
        let directory = try HLSTemporaryDirectory()
        let a = try await Self.makeSource(directory.path + "/ts", source: "testsrc2", seconds: 2, fmp4: false)
        let b = try await Self.makeSource(directory.path + "/fmp4", source: "testsrc", seconds: 2, fmp4: true)
        guard case .media(let ts) = try HLSProbe.load(a), case .media(let fmp4) = try HLSProbe.load(b) else {
            Issue.record("expected media playlists")
            return
        }
        #expect(throws: HLSStitchError.incompatibleSegmentFormats(piece: 1, url: b, format: .fragmentedMP4, expected: .mpegTS)) {
            try HLSStitcher(outputURL: directory.path + "/out.m3u8").stitch([
                HLSStitchPiece(playlist: ts, sourceRange: Self.range("0", "2"), kind: .content, plannedCompositionStart: .zero),
                HLSStitchPiece(playlist: fmp4, sourceRange: Self.range("0", "2"), kind: .interstitial, plannedCompositionStart: MediaTime(seconds: 2)),
            ])
        }
    }

    static func range(_ a: String, _ b: String) -> MediaTimeRange { MediaTimeRange(start: HLSTest.time(a), end: HLSTest.time(b)) }
}

struct HLSProcessFailure: Error, CustomStringConvertible {
    let command: String
    let output: ChildProcess.Output
    var description: String { "\(command) exited with \(output.status): \(output.stderr)" }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}
