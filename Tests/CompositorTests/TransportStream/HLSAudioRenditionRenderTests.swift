import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorMP4

/// A variant whose audio is in a rendition of its own (`EXT-X-MEDIA TYPE=AUDIO` with a `URI`), as
/// CMAF packagers write them: the render reads both playlists and lines them up by the timestamps
/// they share. Judged against the same media packaged muxed (one playlist of audio and video),
/// whose render the other suites judge: the decoded pictures and the decoded sound are the same.
///
/// ```
/// master.m3u8   EXT-X-MEDIA AUDIO "aud" DEFAULT=YES URI=a/index.m3u8
///               EXT-X-STREAM-INF AUDIO="aud" -> v/index.m3u8 (video only)
/// a/index.m3u8  |2.005 |2.005 |2.005 |1.984 |.021|   audio only, 21 ms of priming before the video
/// v/index.m3u8  |2     |2     |2     |2     |.083|   time 0: the first video frame
/// render        video from v, audio from a placed at -0.021 s: as the muxed playlist renders
/// ```
@Suite("Rendering HLS variants with separate audio renditions (judged by ffmpeg)", .needsFFmpeg)
struct HLSAudioRenditionRenderTests {
    @Test("a variant's audio rendition is rendered as its muxed twin is", arguments: ["mpegts", "fmp4"], MP4CutMode.allCases)
    func demuxedLikeMuxed(segments: String, cut: MP4CutMode) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-audio-rendition")
        defer { MP4Fixtures.remove(folder) }
        let demuxed = try await Self.package(ffmpeg, into: folder + "/demuxed", segments: segments, separateAudio: true)
        let muxed = try await Self.package(ffmpeg, into: folder + "/muxed", segments: segments, separateAudio: false)
        let master = try String(contentsOfFile: demuxed, encoding: .utf8)
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO") && master.contains("AUDIO=\"group_aud\""))

        var outputs: [String] = []
        for (name, playlist) in [("demuxed", demuxed), ("muxed", muxed)] {
            let composition = try HLSJoin.composition(json: Array(#"{ "content": [ { "id": "c", "url": "\#(playlist)" } ] }"#.utf8))
            let output = "\(folder)/\(name).mp4"
            try await MP4Exporter.render(composition, to: FilePath(output), cut: cut)
            outputs.append(output)
        }
        #expect(try await ffmpeg.videoFrames(outputs[0]) == ffmpeg.videoFrames(outputs[1]))
        #expect(try await ffmpeg.audioHash(outputs[0]) == ffmpeg.audioHash(outputs[1]))
        #expect(try await ffmpeg.audioDecodeErrors(outputs[0]).isEmpty)
        let movie = try MP4Reader.read(path: FilePath(outputs[0]))
        #expect(movie.tracks.map(\.kind) == [.video, .audio])
    }

    @Test("a rendition that is not on the variant's clock, or holds no audio, is refused naming both playlists")
    func refusals() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("hls-audio-rendition-refused")
        defer { MP4Fixtures.remove(folder) }
        let master = try await Self.package(ffmpeg, into: folder + "/demuxed", segments: "mpegts", separateAudio: true)
        // The audio again, its timestamps 100 s later: a rendition of another clock.
        try await ffmpeg.make(["-i", MP4Fixtures.path("content.mp4"), "-t", "8", "-map", "0:a:0", "-c", "copy", "-output_ts_offset", "100",
                               "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", folder + "/demuxed/late.m3u8"])
        let text = try String(contentsOfFile: master, encoding: .utf8)
        for (uri, reason) in [("late.m3u8", "its timestamps start "), ("v0/index.m3u8", "it holds no audio")] {
            let path = folder + "/demuxed/\(uri == "late.m3u8" ? "late" : "silent")-master.m3u8"
            try Data(text.replacingOccurrences(of: "URI=\"v1/index.m3u8\"", with: "URI=\"\(uri)\"").utf8).write(to: URL(fileURLWithPath: path))
            let composition = try HLSJoin.composition(json: Array(#"{ "content": [ { "id": "c", "url": "\#(path)" } ] }"#.utf8))
            let error = #expect(throws: MP4ExportError.self) { try MP4Exporter.plan(composition) }
            let message = error?.description ?? ""
            #expect(message.hasPrefix(folder + "/demuxed/\(uri): the audio rendition of \(path): \(reason)"), "\(message)")
        }
    }

    /// The first 8 s of `content.mp4` packaged by ffmpeg into HLS (`mpegts` or `fmp4` segments,
    /// 2 s), the audio in a rendition of its own or muxed with the video; the playlist to render.
    static func package(_ ffmpeg: FFmpeg, into folder: String, segments: String, separateAudio: Bool) async throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let suffix = segments == "fmp4" ? "m4s" : "ts"
        let streams = separateAudio ? "v:0,agroup:aud a:0,agroup:aud,default:yes" : "v:0,a:0"
        try await ffmpeg.make(["-i", MP4Fixtures.path("content.mp4"), "-t", "8", "-map", "0:v:0", "-map", "0:a:0", "-c", "copy",
                               "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", segments,
                               "-master_pl_name", "master.m3u8", "-var_stream_map", streams,
                               "-hls_segment_filename", "\(folder)/v%v/seg%d.\(suffix)", "\(folder)/v%v/index.m3u8"])
        return separateAudio ? folder + "/master.m3u8" : folder + "/v0/index.m3u8"
    }
}
