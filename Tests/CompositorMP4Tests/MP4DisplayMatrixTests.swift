import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// A clip's display matrix (`tkhd`) says how its pictures are shown: a portrait phone clip is
/// stored landscape and turned. The output keeps it; pieces shown differently cannot share one
/// MP4 video track and are refused naming both; MPEG-TS segments cannot carry a turn at all.
/// The rotated clip is made here by ffmpeg 5.1, whose `rotate=90` tag writes a matrix that
/// turns the pictures 90° counterclockwise.
@Suite("MP4 display matrix", .needsFFmpeg)
struct MP4DisplayMatrixTests {
    @Test("a rotated clip keeps its matrix, in both cut modes", arguments: MP4CutMode.allCases)
    func keptWhenStitched(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("rotated")
        defer { MP4Fixtures.remove(folder) }
        let (_, rotated) = try await Self.clips(in: folder, tools: tools)
        let source = try #require(try MP4Reader.read(path: FilePath(rotated)).videoTrack?.displayMatrix)
        #expect(source.description == "rotated 90° counterclockwise")

        let pieces = [piece(rotated, "0", "1"), piece(rotated, "1", "2"), piece(rotated, "0", "1")]
        _ = try await stitchAndJudge(cutMode: mode, pieces)
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: pieces, cutMode: mode).stitch(to: FilePath(output))
        #expect(try MP4Reader.read(path: FilePath(output)).videoTrack?.displayMatrix == source)
        // ffprobe reads the same turn from both (in its own terms: 90° counterclockwise is "90").
        let sourceRotation = try await Self.rotation(of: rotated, tools: tools)
        #expect(sourceRotation == "90")
        #expect(try await Self.rotation(of: output, tools: tools) == sourceRotation)
    }

    @Test("rotated and unrotated pieces are refused naming both")
    func mixedRefused() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("rotated-mix")
        defer { MP4Fixtures.remove(folder) }
        let (plain, rotated) = try await Self.clips(in: folder, tools: tools)
        let expected = MP4Error.displayMismatch(file: plain, display: "unrotated", otherFile: rotated,
                                                otherDisplay: "rotated 90° counterclockwise")
        for mode in MP4CutMode.allCases {
            #expect(throws: expected) { try MP4Stitcher(pieces: [piece(plain, "0", "1"), piece(rotated, "0", "1")], cutMode: mode).plan() }
        }
        #expect(expected.description.hasSuffix("Re-encode one to match the other, or stitch them as HLS with fMP4 segments, "
                                                + "where each source keeps its own"))
        // Audio has no display: a rotated clip's audio joins an unrotated clip's video.
        #expect(throws: Never.self) { try MP4Stitcher(pieces: [piece(plain, "0", "1"), piece(MP4Fixtures.audioOnly, "0", "1")]).plan() }
    }

    @Test("packaged, fMP4's init segment keeps the matrix and MPEG-TS refuses it")
    func packaged() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("rotated-package")
        defer { MP4Fixtures.remove(folder) }
        let (_, rotated) = try await Self.clips(in: folder, tools: tools)
        let video = try #require(try MP4Reader.read(path: FilePath(rotated)).videoTrack)

        let fragmented = try MP4Packaging(path: FilePath(rotated), container: .fragmentedMP4, targetDuration: MediaTime(seconds: 1))
        let initSegment = try #require(try fragmented.segmentWriter().initSegment())
        let tkhd = try #require(MP4Bytes.boxes(in: initSegment).first { $0.path.hasSuffix("tkhd") })
        var reader = ByteReader(Array(initSegment[tkhd.start + 8..<tkhd.end]))
        #expect(try TrackHeaderBox(parsing: &reader).matrix == video.displayMatrix)

        #expect(throws: MP4Error.unsupported(
            file: rotated, boxPath: video.boxPath + "/tkhd", offset: video.boxOffset,
            reason: "video shown rotated 90° counterclockwise, which MPEG-TS segments cannot say (it would play turned); "
                + "package as fragmented MP4")) {
            try MP4Packaging(path: FilePath(rotated), container: .mpegTS, targetDuration: MediaTime(seconds: 1))
        }
    }

    /// A 2 s clip (25 fps, a keyframe every second, with a tone) and the same remuxed with a turn.
    static func clips(in folder: String, tools: FFmpeg) async throws -> (plain: String, rotated: String) {
        let plain = folder + "/plain.mp4", rotated = folder + "/rotated.mp4"
        for arguments in [
            ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=2",
             "-c:v", "libx264", "-g", "25", "-c:a", "aac", plain],
            ["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated],
        ] {
            try await tools.make(arguments)
        }
        return (plain, rotated)
    }

    /// The rotation ffprobe reads from the video stream's display matrix.
    static func rotation(of path: String, tools: FFmpeg) async throws -> String {
        let output = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                "stream_side_data=rotation", "-of", "csv=p=0", path])
        try #require(output.status == 0, "\(output.stderr)")
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
