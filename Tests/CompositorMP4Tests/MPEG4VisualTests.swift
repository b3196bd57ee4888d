import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// MPEG-4 Part 2 B-frames timed in decode order (no `ctts`, as a remux from AVI has them) are
/// given the presentation order their picture types say (see `MPEG4VisualPictureOrder`); packed
/// B-frames are refused with the command that unpacks them.
@Suite("MP4 sources, MPEG-4 Part 2 pictures in decode order", .needsFFmpeg)
struct MPEG4VisualTests {
    /// ```
    /// decode order   I0   P3   B1   B2   P6   B4   B5
    /// display order  I0   B1   B2   P3   B4   B5   P6
    /// ```
    @Test("display order from picture types, at the samples' decode times")
    func reorder() {
        typealias Order = MPEG4VisualPictureOrder
        let cases: [(codings: [Order.Coding], offsets: [Int32])] = [
            ([.intra, .predicted, .bidirectional, .bidirectional, .predicted, .bidirectional, .bidirectional],
             [0, 2, -1, -1, 2, -1, -1]),
            ([.intra, .predicted, .predicted], [0, 0, 0]),
            ([.intra, .sprite, .bidirectional, .intra], [0, 1, -1, 0]),
            // A B-VOP first (a stream cut before its anchor) shows first.
            ([.bidirectional, .intra, .bidirectional], [0, 1, -1]),
        ]
        for (codings, offsets) in cases {
            let times = SampleDecodeTimes(decodeTimes: codings.indices.map { Int64($0) }, durations: codings.map { _ in 1 })
            #expect(Order.compositionOffsets(codings: codings, decodeTimes: times) == offsets, "\(codings)")
        }
        // Scaled: at 512 ticks a frame the offsets scale too.
        let times = SampleDecodeTimes(decodeTimes: [0, 512, 1024, 1536], durations: [512, 512, 512, 512])
        #expect(Order.compositionOffsets(codings: [.intra, .predicted, .bidirectional, .bidirectional], decodeTimes: times)
            == [0, 1024, -512, -512])
    }

    @Test("VOP start codes and their coding types")
    func codings() {
        typealias Order = MPEG4VisualPictureOrder
        let vol: [UInt8] = [0, 0, 1, 0x20, 0x08, 0xC8]
        #expect(Order.codings(in: vol + [0, 0, 1, 0xB6, 0x10, 0x55]) == [.intra])
        #expect(Order.codings(in: [0, 0, 1, 0xB6, 0x50]) == [.predicted])
        #expect(Order.codings(in: [0, 0, 1, 0xB6, 0x90, 0, 0, 1, 0xB6, 0xD0]) == [.bidirectional, .sprite])
        #expect(Order.codings(in: [0, 0, 1, 0xB6]).isEmpty, "a start code without its coding byte")
        #expect(Order.codings(in: [0, 1, 0xB6, 0x50]).isEmpty)
    }

    /// ffmpeg's `mpeg4` with two B-frames, written to AVI and remuxed to MP4 with `-c copy`:
    /// decode-order times. Cut inside GOPs and spliced with itself, in both cut modes, judged
    /// frame by frame (before, each splice showed one stale frame).
    /// ```
    /// cut inside GOPs    |clip 0.5-2.5|
    /// spliced            |clip 1.5-3|clip 0.2-1.5|
    /// ```
    @Test("B-frames timed in decode order are cut by their display order", arguments: MP4CutMode.allCases)
    func decodeOrderTimes(mode: MP4CutMode) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("mpeg4-visual")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.remuxedFromAVI(in: folder)
        #expect(!MP4Bytes.boxes(in: try MP4Fixtures.bytes(clip)).contains { $0.path.hasSuffix("/ctts") })
        let samples = try #require(try MP4Reader.read(path: FilePath(clip)).videoTrack?.samples)
        #expect(samples.compositionOffsets.contains { $0 < 0 }, "the reader gives B-frames their display times")
        _ = try await stitchAndJudge(cutMode: mode, [piece(clip, "0.5", "2.5")])
        _ = try await stitchAndJudge(cutMode: mode, [piece(clip, "1.5", "3"), piece(clip, "0.2", "1.5")])
    }

    /// Open GOPs (ffmpeg's default for `mpeg4`): the B-frames before each I-frame reference it, so
    /// a keyframe-aligned piece cannot end there; refused as an HEVC open GOP is.
    @Test("open GOPs: a keyframe-aligned piece cannot end at an I-frame its B-frames precede")
    func openGOP() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("mpeg4-open-gop")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.remuxedFromAVI(in: folder, closedGOPs: false)
        do {
            _ = try MP4Stitcher(pieces: [piece(clip, "0.2", "1.5")], cutMode: .keyframeAligned).plan()
            Issue.record("planned a piece ending at an open GOP's I-frame")
        } catch {
            guard case .unsupported(_, _, _, let reason) = error else { throw error }
            #expect(reason.contains("an open GOP's leading pictures"), "\(reason)")
        }
        _ = try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clip, "0.2", "3")])
        _ = try await stitchAndJudge([piece(clip, "0.2", "1.5"), piece(clip, "2.5", "3")])
    }

    @Test("packed B-frames (two pictures in one sample) are refused with the command that unpacks them")
    func packed() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("mpeg4-packed")
        defer { MP4Fixtures.remove(folder) }
        let clip = try await Self.remuxedFromAVI(in: folder)
        let samples = try #require(try MP4Reader.read(path: FilePath(clip)).videoTrack?.samples)
        // A second VOP start in sample 1 (a P-VOP), as a packer puts the B-VOP after it.
        var bytes = try MP4Fixtures.bytes(clip)
        let offset = Int(samples.offsets[1]), size = Int(samples.sizes[1])
        bytes.replaceSubrange(offset + size / 2..<offset + size / 2 + 5, with: [0, 0, 1, 0xB6, 0x90])
        let packed = folder + "/packed.mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: packed))
        #expect(throws: MP4Error.unsupported(file: packed, boxPath: "moov/trak[0]/mdia/minf/stbl", offset: UInt64(offset), reason:
            "sample 1 holds 2 MPEG-4 Part 2 pictures (packed B-frames, as DivX and Xvid write them for AVI); unpack them first, "
            + "e.g. ffmpeg -i IN -c copy -bsf:v mpeg4_unpack_bframes OUT.mp4")) {
            try MP4Reader.read(path: FilePath(packed))
        }
    }

    /// Xvid's AVI: packed B-frames, each packed sample followed by a 6-byte N-VOP placeholder,
    /// which the AVI index may flag a keyframe; `mpeg4_unpack_bframes` (the command the reader's
    /// refusal gives) moves the B-VOP into that placeholder, flags and all. A B-VOP flagged sync
    /// is no decode start: the stitcher reads each keyframe's VOP type, as it reads H.264's and
    /// HEVC's NAL unit types. Before, a piece starting after such a flag decoded from the B-VOP
    /// (every frame of it wrong).
    /// ```
    /// spliced with itself   |clip 1.5-3|clip 0.2-1.5|
    /// among its own         |clip 2-3|clip 0-3|clip 0-1|
    /// ```
    @Test("Xvid unpacked: a B-VOP flagged sync is no decode start")
    func unpackedXvidSyncFlags() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("mpeg4-xvid")
        defer { MP4Fixtures.remove(folder) }
        let avi = folder + "/xvid.avi", clip = folder + "/xvid.mp4"
        try await tools.make(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=3",
                              "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                              "-c:v", "libxvid", "-bf", "2", "-g", "24", "-c:a", "aac", "-f", "avi", avi])
        try await tools.make(["-i", avi, "-c", "copy", "-bsf:v", "mpeg4_unpack_bframes", clip])
        let samples = try #require(try MP4Reader.read(path: FilePath(clip)).videoTrack?.samples)
        let bytes = try MP4Fixtures.bytes(clip)
        let flaggedB = samples.syncSampleIndices.filter { index in
            let start = Int(samples.offsets[index])
            return MPEG4VisualPictureOrder.codings(in: bytes[start..<start + Int(samples.sizes[index])]).first == .bidirectional
        }
        #expect(!flaggedB.isEmpty, "the clip has a B-VOP flagged sync (sync samples \(samples.syncSampleIndices))")
        _ = try await stitchAndJudge([piece(clip, "1.5", "3"), piece(clip, "0.2", "1.5")])
        _ = try await stitchAndJudge([piece(clip, "2", "3"), piece(clip, "0", "3"), piece(clip, "0", "1")])
    }

    /// 3 s of 160x120 at 24 fps, a keyframe every second, two B-frames, by default closed GOPs
    /// (so that keyframe-aligned cuts can end at a keyframe); AAC.
    static func remuxedFromAVI(in folder: String, closedGOPs: Bool = true) async throws -> String {
        let tools = try FFmpeg.require()
        let avi = folder + "/clip.avi", mp4 = folder + "/clip.mp4"
        let gops = closedGOPs ? ["-flags:v", "+cgop", "-sc_threshold", "1000000000"] : []
        try await tools.make(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=3",
                              "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                              "-c:v", "mpeg4", "-bf", "2", "-g", "24"] + gops + ["-c:a", "aac", "-f", "avi", avi])
        try await tools.make(["-i", avi, "-c", "copy", "-f", "mp4", mp4])
        return mp4
    }
}
