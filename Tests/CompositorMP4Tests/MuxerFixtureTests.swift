import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// MP4s from a second muxer (GStreamer's mp4mux and qtmux) and ffmpeg's fragmented and CMAF
/// output, made by `Fixtures/generate-muxers.sh`: each 3 s, a keyframe every second. Each is
/// stitched in both cut modes, in the arrangements below, and judged frame by frame by ffmpeg
/// (or refused, with the reason the table gives):
///
///     cut inside GOPs         |file 0.5-2.5|
///     whole, among its own    |file 2-3|file 0-3|file 0-1|
///     spliced with itself     |file 1.5-3|file 0.2-1.5|
///     as an ad (H.264, AAC)   |content.mp4 0-1|file 0-3|content.mp4 1-2|
///
/// The table is the one in docs/mp4-sources.md.
@Suite("MP4s from other muxers", .needsFFmpeg)
struct MuxerFixtureTests {
    enum Outcome: Sendable, CustomStringConvertible {
        /// Every arrangement plays, frame for frame.
        case plays
        /// Every arrangement that cuts the file is refused with a message containing this; the
        /// file whole plays.
        case cutsRefused(String)

        var description: String {
            switch self {
            case .plays: "plays"
            case .cutsRefused(let reason): "cuts refused (\(reason))"
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var file: String
        var sampleAccurate: Outcome
        var keyframeAligned: Outcome
        /// H.264 and AAC, as the project's own content.mp4: it can be an ad in it.
        var joinsContent: Bool

        var testDescription: String { file }
        func outcome(_ mode: MP4CutMode) -> Outcome { mode == .sampleAccurate ? sampleAccurate : keyframeAligned }
    }

    static let openGOPEnd = "frames shown before that keyframe are decoded after it (an open GOP's leading pictures)"

    static let table: [Row] = [
        Row(file: "gst-mp4mux-x264.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        Row(file: "gst-qtmux-x264.mov", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        Row(file: "gst-mp4mux-x264-mp3.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: false),
        Row(file: "gst-mp4mux-x264-intra-refresh.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        Row(file: "gst-mp4mux-x265-hvc1.mp4", sampleAccurate: .plays, keyframeAligned: .cutsRefused(openGOPEnd), joinsContent: false),
        Row(file: "gst-mp4mux-x265-hev1.mp4", sampleAccurate: .plays, keyframeAligned: .cutsRefused(openGOPEnd), joinsContent: false),
        Row(file: "gst-mp4mux-fragmented.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        Row(file: "ffmpeg-fragmented.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        Row(file: "ffmpeg-fragmented-sidx.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        Row(file: "ffmpeg-cmaf.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
        // Issue 50 reported frames wrong from the first cut on for these flags; they play here.
        Row(file: "ffmpeg-cmaf-global-sidx.mp4", sampleAccurate: .plays, keyframeAligned: .plays, joinsContent: true),
    ]

    @Test("every file of the table, in both cut modes", arguments: table)
    func row(_ row: Row) async throws {
        let file = MP4Fixtures.path("muxers/" + row.file)
        var arrangements: [[MP4StitchPiece]] = [
            [piece(file, "0.5", "2.5")],
            [piece(file, "2", "3"), piece(file, "0", "3"), piece(file, "0", "1")],
            [piece(file, "1.5", "3"), piece(file, "0.2", "1.5")],
        ]
        if row.joinsContent {
            arrangements.append([piece(MP4Fixtures.content, "0", "1"), piece(file, "0", "3"), piece(MP4Fixtures.content, "1", "2")])
        }
        for mode in MP4CutMode.mixingFormats {
            for pieces in arrangements {
                switch row.outcome(mode) {
                case .plays:
                    _ = try await stitchAndJudge(cutMode: mode, pieces)
                case .cutsRefused(let reason):
                    #expect { try MP4Stitcher(pieces: pieces, cutMode: mode).plan() } throws: { error in
                        "\(error)".contains(reason)
                    }
                }
            }
            if case .cutsRefused = row.outcome(mode) {
                _ = try await stitchAndJudge(cutMode: mode, [piece(file, "0", "3")])
            }
        }
    }

    /// The files are what the table says they are: from their muxer, in their layout.
    @Test("the files are what they claim")
    func filesAreAsDescribed() throws {
        func movie(_ name: String) throws -> MP4Movie { try MP4Reader.read(path: FilePath(MP4Fixtures.path("muxers/" + name))) }
        #expect(try movie("gst-mp4mux-x265-hvc1.mp4").videoTrack?.sampleDescriptions.first?.format == "hvc1")
        #expect(try movie("gst-mp4mux-x265-hev1.mp4").videoTrack?.sampleDescriptions.first?.format == "hev1")
        #expect(try movie("gst-mp4mux-x264-mp3.mp4").audioTrack?.sampleDescriptions.first?.objectTypeIndication == 0x6B)
        for name in ["gst-mp4mux-fragmented.mp4", "ffmpeg-fragmented.mp4", "ffmpeg-fragmented-sidx.mp4", "ffmpeg-cmaf.mp4", "ffmpeg-cmaf-global-sidx.mp4"] {
            let boxes = try MP4Bytes.boxes(in: MP4Fixtures.bytes(MP4Fixtures.path("muxers/" + name)))
            #expect(boxes.contains { $0.path == "moof" }, "\(name) has no moof")
            #expect(boxes.contains { $0.path == "sidx" } == name.contains("sidx"), "\(name)")
        }
    }
}
