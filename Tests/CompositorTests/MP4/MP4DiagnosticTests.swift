import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Notes, not errors: a stitch that is valid but may not play as the user expects says so.
@Suite("MP4 stitcher, diagnostics")
struct MP4DiagnosticTests {
    /// content.mp4: 320x180 at 24 fps; ad2.mp4: 320x180 at 30000/1001; the HLS content: 160x90 at 24.
    @Test("sources that differ in frame rate or size are noted, each source once, in order of use")
    func differences() throws {
        let hls = MP4Fixtures.path("hls/ts/content/index.m3u8")
        let plan = try MP4Stitcher(pieces: [
            piece(MP4Fixtures.content, "0", "2"), piece(MP4Fixtures.ad2, "0", "1"), piece(MP4Fixtures.content, "2", "4"),
        ]).plan()
        #expect(plan.diagnostics == [.frameRatesDiffer([
            .init(file: MP4Fixtures.content, value: "24"), .init(file: MP4Fixtures.ad2, value: "29.97"),
        ])])
        #expect(plan.diagnostics.first?.description == "the sources differ in frame rate (motion changes pace at the joins): "
            + "\(MP4Fixtures.content) 24 fps, \(MP4Fixtures.ad2) 29.97 fps")

        var sources = HLSRenderSources()
        let hlsPiece = MP4StitchPiece(source: try sources.source(MediaLocation(FilePath(hls))), range: range(s(0), s(2)))
        let mixed = try MP4Stitcher(pieces: [hlsPiece, piece(MP4Fixtures.content, "0", "2")]).plan()
        #expect(mixed.diagnostics == [.pictureSizesDiffer([.init(file: hls, value: "160x90"), .init(file: MP4Fixtures.content, value: "320x180")])])

        // One source, or sources alike, or audio only: nothing to say.
        #expect(try MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "2"), piece(MP4Fixtures.content, "5", "6")]).plan().diagnostics == [])
        #expect(try MP4Stitcher(pieces: [piece(MP4Fixtures.audioOnly, "0", "1"), piece(MP4Fixtures.content, "0", "1")]).plan().diagnostics == [])
    }

    /// Apple's hardware decoders (and most phones') play 8-bit 4:2:0 H.264 only.
    @Test("H.264 beyond 8-bit 4:2:0 is noted", .needsFFmpeg, arguments: [("yuv420p10le", "High 10"), ("yuv422p", "High 4:2:2")])
    func hardwareProfiles(pixelFormat: String, profile: String) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("profiles")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/\(pixelFormat).mp4"
        try await tools.make(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=24:duration=1",
                              "-c:v", "libx264", "-pix_fmt", pixelFormat, clip])
        let plan = try MP4Stitcher(pieces: [piece(clip, "0", "1")]).plan()
        #expect(plan.diagnostics == [.hardwareDecoding(file: clip, profile: profile)])
        #expect(plan.diagnostics.first?.description == "\(clip) has H.264 \(profile) video, which many hardware decoders "
            + "(Apple's among them) cannot play: the output may not play there")
    }
}
