import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Paths to the committed fixtures and scratch space for tests.
enum MP4Fixtures {
    static let folder: String = {
        // Tests/CompositorTests/MP4/ThisFile.swift -> repository root
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures").path
    }()

    static func path(_ name: String) -> String { folder + "/" + name }

    static let content = path("content.mp4")
    static let content2 = path("content2.mp4")
    static let ad1 = path("ad1.mp4")
    static let ad2 = path("ad2.mp4")
    static let videoOnly = path("bumper-video-only.mp4")
    static let audioOnly = path("jingle-audio-only.mp4")
    static let mpeg4Video = path("mpeg4-part2.mp4")
    static let webAd = path("web-ad.mp4")

    /// A fresh, empty folder under the system's temporary folder; removed by `remove`.
    static func makeScratchFolder(_ label: String = "mp4") throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("compositor-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The names in `folder`, sorted.
    static func listing(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}

/// ffmpeg and ffprobe, the independent judges of what the stitcher writes.
///
/// Tests that need them are declared with the `.needsFFmpeg` trait and call `FFmpeg.require()`:
/// without ffmpeg they show as skipped on a developer machine, but with `COMPOSITOR_REQUIRE_FFMPEG=1`
/// (CI) they run, and the absence is a test failure.
struct FFmpeg: Sendable {
    let ffmpeg: String
    let ffprobe: String

    /// The tools found on `PATH` or in the usual folders, or `nil`.
    ///
    /// `COMPOSITOR_FFMPEG=/path/to/ffmpeg` picks the ffmpeg to use (ffprobe is taken from the same
    /// folder) and nothing else is looked for; `COMPOSITOR_FFMPEG=/nonexistent` is the way to
    /// simulate a machine without ffmpeg (the tests that need it are skipped, or fail when
    /// `COMPOSITOR_REQUIRE_FFMPEG=1`).
    static let installed: FFmpeg? = {
        if let chosen = ProcessInfo.processInfo.environment["COMPOSITOR_FFMPEG"], !chosen.isEmpty {
            let ffprobe = URL(fileURLWithPath: chosen).deletingLastPathComponent().appendingPathComponent("ffprobe").path
            guard FileManager.default.isExecutableFile(atPath: chosen),
                  FileManager.default.isExecutableFile(atPath: ffprobe) else { return nil }
            return FFmpeg(ffmpeg: chosen, ffprobe: ffprobe)
        }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        func find(_ name: String) -> String? {
            folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        guard let ffmpeg = find("ffmpeg"), let ffprobe = find("ffprobe") else { return nil }
        return FFmpeg(ffmpeg: ffmpeg, ffprobe: ffprobe)
    }()

    static var required: Bool { ProcessInfo.processInfo.environment["COMPOSITOR_REQUIRE_FFMPEG"] == "1" }

    /// The tools, for a test declared `.needsFFmpeg`; throws (the test fails) when they are missing,
    /// which such a test only meets when `COMPOSITOR_REQUIRE_FFMPEG=1` demands them.
    static func require() throws -> FFmpeg {
        guard let installed else { throw Missing() }
        return installed
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "ffmpeg/ffprobe not found, and COMPOSITOR_REQUIRE_FFMPEG=1 requires them" }
    }

    /// One decoded video frame: presentation time (in the stream's time base) and its MD5.
    struct Frame: Equatable, CustomStringConvertible {
        var pts: Int64
        var timeBase: MediaTime
        var hash: String
        var time: MediaTime { MediaTime(value: pts * timeBase.value, timescale: timeBase.timescale) }
        var description: String { "\(time)s:\(hash.prefix(8))" }
    }

    /// Runs ffmpeg to make a test clip (`-v error -y` then `arguments`), throwing what it printed
    /// when it fails.
    func make(_ arguments: [String]) async throws {
        let made = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y"] + arguments)
        guard made.status == 0 else { throw FFmpegFailure(message: made.stderr) }
    }

    /// Every frame of the file's first video stream as ffmpeg decodes it, in output order.
    func videoFrames(_ path: String) async throws -> [Frame] {
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:v:0",
                                                       "-fps_mode", "passthrough", "-enc_time_base", "-1", "-autoscale", "0",
                                                       "-f", "framemd5", "-"])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        var timeBase = MediaTime(value: 1, timescale: 1)
        var frames: [Frame] = []
        for line in output.stdout.split(separator: "\n") {
            if line.hasPrefix("#tb 0:") {
                let parts = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/")
                timeBase = MediaTime(value: Int64(parts[0])!, timescale: Int32(parts[1])!)
                continue
            }
            guard !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 6 else { continue }
            frames.append(Frame(pts: Int64(fields[2])!, timeBase: timeBase, hash: fields[5]))
        }
        return frames
    }

    /// One packet as ffprobe reads it: its presentation start and duration, in seconds (ffprobe
    /// gives none for some, such as a fragment's first audio sample).
    struct Packet {
        var start: Double
        var duration: Double?
        var end: Double { start + (duration ?? 0) }
    }

    /// The packets of `path`'s first `stream` (`v` or `a`), with the file's own timestamps.
    func packets(_ path: String, stream: String) async throws -> [Packet] {
        let output = try await ChildProcess.run(ffprobe, ["-v", "error", "-select_streams", "\(stream):0",
                                                        "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        return output.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let start = Double(fields[0]) else { return nil }
            return Packet(start: start, duration: Double(fields[1]))
        }
    }

    /// The MD5 of the first audio stream decoded to PCM, placed by its timestamps as ffmpeg plays it.
    func audioHash(_ path: String) async throws -> String {
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "md5", "-"])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Errors ffmpeg prints while decoding the whole audio stream (empty when it decodes cleanly).
    func audioDecodeErrors(_ path: String) async throws -> String {
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a", "-f", "null", "-"])
        return output.stderr + (output.status == 0 ? "" : "exit status \(output.status)")
    }

    /// The first audio stream as ffmpeg decodes it, mixed to mono at 48 kHz, each frame placed at
    /// its timestamp: a frame over an earlier one replaces it (ffmpeg does not cut an edit's last
    /// frame at the edit's end; the next edit's frames say what plays from there). Silence where
    /// no frame is. Sample n plays at n / 48000 s.
    func placedSound(_ path: String) async throws -> [Float] {
        let output = try await ChildProcess.run(ffmpeg, ["-hide_banner", "-i", path, "-map", "0:a:0", "-af",
                                                         "aresample=48000,aformat=sample_fmts=flt:channel_layouts=mono,ashowinfo",
                                                         "-f", "f32le", "-"])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        let decoded: [Float] = output.stdoutBytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var placed: [Float] = []
        var position = 0
        for line in output.stderr.split(separator: "\n") where line.contains("Parsed_ashowinfo") {
            // "n:0 pts:240000 pts_time:5 ... nb_samples:1024 ...": pts in 1/48000 s.
            let fields = Dictionary(line.split(separator: " ").compactMap { field -> (Substring, Int)? in
                let parts = field.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                return (parts[0], value)
            }, uniquingKeysWith: { first, _ in first })
            guard let pts = fields["pts"], let count = fields["nb_samples"], position + count <= decoded.count else {
                throw FFmpegFailure(message: "unreadable ashowinfo line: \(line)")
            }
            // A frame before 0 plays from 0.
            let start = max(0, pts), skipped = min(count, start - pts)
            let end = start + count - skipped
            if placed.count < end { placed += repeatElement(0, count: end - placed.count) }
            placed.replaceSubrange(start..<end, with: decoded[position + skipped..<position + count])
            position += count
        }
        return placed
    }

    /// Where the first audio stream is loud, as ffmpeg decodes it (mixed to mono at 8 kHz): the
    /// spans, in seconds from the start of the output, whose 10 ms windows have an RMS level above
    /// 1 % of full scale, windows less than 30 ms apart joined. A judge of where a tone plays.
    func loudSpans(_ path: String) async throws -> [ClosedRange<Double>] {
        // Placed by timestamps from time 0: audio that starts late is preceded by silence, not
        // moved to 0, and what overlaps is dropped (ffmpeg does not trim audio at an edit's end).
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1",
                                                       "-af", "aresample=8000:async=1000:min_hard_comp=0.01:first_pts=0", "-f", "s16le", "-"])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        let pcm = output.stdoutBytes
        let window = 80
        var spans: [ClosedRange<Double>] = []
        for start in stride(from: 0, to: pcm.count / 2 - window + 1, by: window) {
            var energy = 0.0
            for index in start..<start + window {
                let sample = Double(Int16(bitPattern: UInt16(pcm[2 * index]) | UInt16(pcm[2 * index + 1]) << 8))
                energy += sample * sample
            }
            guard (energy / Double(window)).squareRoot() > 327.67 else { continue }
            let (from, to) = (Double(start) / 8000, Double(start + window) / 8000)
            if let last = spans.last, from - last.upperBound < 0.03 {
                spans[spans.count - 1] = last.lowerBound...to
            } else {
                spans.append(from...to)
            }
        }
        return spans
    }

    /// When each stream ends as ffprobe reports it, keyed by codec type (`video`, `audio`): its
    /// start time plus its duration, or its duration alone when its edit list starts with an empty
    /// edit and has more than one media edit after it (mov.c then counts the duration from 0, the
    /// empty edit included, as well as the start time at the first frame after it; with a single
    /// media edit it leaves the empty edit out of the duration).
    func streamEnds(_ path: String) async throws -> [String: MediaTime] {
        let output = try await ChildProcess.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,start_pts,duration_ts,time_base",
                                                        "-of", "compact=p=0", path])
        let movie = try? MP4Reader.read(path: FilePath(path))
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        var result: [String: MediaTime] = [:]
        for line in output.stdout.split(separator: "\n") {
            let fields = Dictionary(uniqueKeysWithValues: line.split(separator: "|").compactMap { field -> (String, String)? in
                let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                return pair.count == 2 ? (pair[0], pair[1]) : nil
            })
            let base = (fields["time_base"] ?? "").split(separator: "/")
            guard let kind = fields["codec_type"], let start = Int64(fields["start_pts"] ?? ""),
                  let ticks = Int64(fields["duration_ts"] ?? ""), base.count == 2,
                  let num = Int64(base[0]), let den = Int32(base[1]) else { continue }
            let track = kind == "video" ? movie?.videoTrack : movie?.audioTrack
            let startsEmpty = (track?.editList?.first?.isEmpty ?? false) && (track?.editList?.count ?? 0) > 2
            result[kind] = MediaTime(value: ((startsEmpty ? 0 : start) + ticks) * num, timescale: den)
        }
        return result
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests judged by ffmpeg: they run when ffmpeg is installed, and also when
    /// `COMPOSITOR_REQUIRE_FFMPEG=1` requires it (then `FFmpeg.require()` fails them); otherwise
    /// they are reported as skipped.
    static var needsFFmpeg: Self {
        .enabled(if: FFmpeg.installed != nil || FFmpeg.required,
                 "needs ffmpeg and ffprobe (COMPOSITOR_REQUIRE_FFMPEG=1 makes their absence a failure)")
    }
}

struct FFmpegFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { "ffmpeg failed: \(message)" }
}

extension MP4CutMode {
    /// The cut modes that join sources of different formats (44.1 and 48 kHz audio, other SPS):
    /// the web-safe output refuses those (`MP4WebSafeTests`).
    static let mixingFormats: [MP4CutMode] = [.sampleAccurate, .keyframeAligned]
}
