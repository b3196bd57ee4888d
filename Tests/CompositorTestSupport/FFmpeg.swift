import CompositorCore
import Foundation
import Testing

/// ffmpeg and ffprobe, the independent judges of what the stitcher writes.
///
/// Tests that need them are declared with the `.needsFFmpeg` trait and call `FFmpeg.require()`:
/// without ffmpeg they show as skipped on a developer machine, but with `COMPOSITOR_REQUIRE_FFMPEG=1`
/// (CI) they run, and the absence is a test failure.
package struct FFmpeg: Sendable {
    package let ffmpeg: String
    package let ffprobe: String

    /// The tools found on `PATH` or in the usual folders, or `nil`.
    ///
    /// `COMPOSITOR_FFMPEG=/path/to/ffmpeg` picks the ffmpeg to use (ffprobe is taken from the same
    /// folder) and nothing else is looked for; `COMPOSITOR_FFMPEG=/nonexistent` is the way to
    /// simulate a machine without ffmpeg (the tests that need it are skipped, or fail when
    /// `COMPOSITOR_REQUIRE_FFMPEG=1`).
    package static let installed: FFmpeg? = {
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

    package static var required: Bool { ProcessInfo.processInfo.environment["COMPOSITOR_REQUIRE_FFMPEG"] == "1" }

    /// The tools, for a test declared `.needsFFmpeg`; throws (the test fails) when they are missing,
    /// which such a test only meets when `COMPOSITOR_REQUIRE_FFMPEG=1` demands them.
    package static func require() throws -> FFmpeg {
        guard let installed else { throw Missing() }
        return installed
    }

    package struct Missing: Error, CustomStringConvertible {
        package var description: String { "ffmpeg/ffprobe not found, and COMPOSITOR_REQUIRE_FFMPEG=1 requires them" }
    }

    /// One decoded video frame: presentation time (in the stream's time base) and its MD5.
    package struct Frame: Equatable, CustomStringConvertible {
        package var pts: Int64
        package var timeBase: MediaTime
        package var hash: String
        package var time: MediaTime { MediaTime(value: pts * timeBase.value, timescale: timeBase.timescale) }
        package var description: String { "\(time)s:\(hash.prefix(8))" }

        package init(pts: Int64, timeBase: MediaTime, hash: String) {
            self.pts = pts
            self.timeBase = timeBase
            self.hash = hash
        }
    }

    /// The output of ffmpeg run with `arguments`, which read `path` and write nothing: run once per
    /// process for a file of the repository's `Fixtures` (which tests only read, and many tests
    /// decode to judge against), and every time for any other file.
    private func reading(_ path: String, _ arguments: [String]) async throws -> ChildProcess.Output {
        guard path.hasPrefix(MP4Fixtures.folder + "/") else { return try await ChildProcess.run(ffmpeg, arguments) }
        let key = ([ffmpeg] + arguments).joined(separator: "\u{0}")
        if let cached = FixtureReads.shared.output(key) { return cached }
        let output = try await ChildProcess.run(ffmpeg, arguments)
        if output.status == 0 { FixtureReads.shared.keep(output, key) }
        return output
    }

    /// Runs ffmpeg to make a test clip (`-v error -y` then `arguments`), throwing what it printed
    /// when it fails.
    package func make(_ arguments: [String]) async throws {
        let made = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y"] + arguments)
        guard made.status == 0 else { throw FFmpegFailure(message: made.stderr) }
    }

    /// Every frame of the file's first video stream as ffmpeg decodes it, in output order.
    package func videoFrames(_ path: String) async throws -> [Frame] {
        let output = try await reading(path, ["-v", "error", "-i", path, "-map", "0:v:0",
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

    /// One packet as ffprobe reads it: its presentation start, decode time and duration, in
    /// seconds (ffprobe gives no duration for some, such as a fragment's first audio sample).
    package struct Packet {
        package var start: Double
        package var decodeTime: Double?
        package var duration: Double?
        package var end: Double { start + (duration ?? 0) }
    }

    /// The packets of `path`'s first `stream` (`v` or `a`), with the file's own timestamps, in
    /// decode order.
    package func packets(_ path: String, stream: String) async throws -> [Packet] {
        let output = try await ChildProcess.run(ffprobe, ["-v", "error", "-select_streams", "\(stream):0",
                                                        "-show_entries", "packet=pts_time,dts_time,duration_time", "-of", "csv=p=0", path])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        return output.stdout.split(separator: "\n").compactMap { line in
            // ffprobe writes the fields in its own order: pts, dts, duration.
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let start = Double(fields[0]) else { return nil }
            return Packet(start: start, decodeTime: Double(fields[1]), duration: Double(fields[2]))
        }
    }

    /// One packet of a file's first audio stream as ffprobe reads it (mov.c applies the edit
    /// list): where it starts, how long it lasts (ffprobe gives no duration for some, such as a
    /// fragment's first sample: then up to the next packet) and the MD5 of its bytes.
    package struct AudioPacket: CustomStringConvertible {
        package var start: MediaTime
        package var duration: MediaTime?
        package var hash: String
        package var description: String { "\(start)s:\(hash.prefix(8))" }
    }

    /// The packets of `path`'s first audio stream, in decode order.
    package func audioPackets(_ path: String) async throws -> [AudioPacket] {
        // JSON: in CSV, a packet with side data (a change of sample description) loses its hash.
        let output = try await ChildProcess.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_data_hash", "MD5",
                                                        "-show_entries", "stream=time_base:packet=pts,duration,data_hash",
                                                        "-of", "json", path])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        let document = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        let timeBase = ((document?["streams"] as? [[String: Any]])?.first?["time_base"] as? String)?.split(separator: "/")
        guard let timeBase, timeBase.count == 2, let unit = Int64(timeBase[0]), let scale = Int32(timeBase[1]) else { return [] }
        let rows = ((document?["packets"] as? [[String: Any]]) ?? []).compactMap { packet -> (pts: Int64, duration: Int64?, hash: String)? in
            guard let pts = (packet["pts"] as? NSNumber)?.int64Value, let hash = packet["data_hash"] as? String else { return nil }
            return (pts, (packet["duration"] as? NSNumber)?.int64Value, hash)
        }
        func time(_ ticks: Int64) -> MediaTime { MediaTime(value: ticks * unit, timescale: scale) }
        return rows.enumerated().map { index, row in
            let duration = row.duration ?? (index + 1 < rows.count ? rows[index + 1].pts - row.pts : nil)
            return AudioPacket(start: time(row.pts), duration: duration.map(time), hash: row.hash)
        }
    }

    /// The time base of each of `path`'s streams, by kind (`video`, `audio`), as ffprobe reads it
    /// from the track's timescale: "1/15360".
    package func timeBases(_ path: String) async throws -> [String: String] {
        let output = try await ChildProcess.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,time_base", "-of", "csv=p=0", path])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        return Dictionary(output.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count == 2 ? (String(fields[0]), String(fields[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The MD5 of the first audio stream decoded to PCM, placed by its timestamps as ffmpeg plays it.
    package func audioHash(_ path: String) async throws -> String {
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "md5", "-"])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Errors ffmpeg prints while decoding the whole audio stream (empty when it decodes cleanly).
    package func audioDecodeErrors(_ path: String) async throws -> String {
        let output = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a", "-f", "null", "-"])
        return output.stderr + (output.status == 0 ? "" : "exit status \(output.status)")
    }

    /// The first audio stream as ffmpeg decodes it, mixed to mono at 48 kHz, each frame placed at
    /// its timestamp: a frame over an earlier one replaces it (ffmpeg does not cut an edit's last
    /// frame at the edit's end; the next edit's frames say what plays from there). Silence where
    /// no frame is. Sample n plays at n / 48000 s.
    /// With `ignoringEditList`, mov.c reads the media as it is (sample n of a 48 kHz track is
    /// media time n), leaving the edit list to the caller.
    package func placedSound(_ path: String, ignoringEditList: Bool = false) async throws -> [Float] {
        let output = try await ChildProcess.run(ffmpeg, ["-hide_banner"] + (ignoringEditList ? ["-ignore_editlist", "1"] : [])
                                                + ["-i", path, "-map", "0:a:0", "-af",
                                                         "aresample=48000,aformat=sample_fmts=flt:channel_layouts=mono,ashowinfo",
                                                         "-f", "f32le", "-"])
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        let decoded: [Float] = output.stdoutBytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var placed: [Float] = []
        var position = 0
        // A frame's line has its number and pts; side data (AC-3's service type) has its own lines.
        for line in output.stderr.split(separator: "\n") where line.contains("Parsed_ashowinfo") && line.contains(" pts:") {
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
    package func loudSpans(_ path: String) async throws -> [ClosedRange<Double>] {
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
}

extension Trait where Self == ConditionTrait {
    /// For tests judged by ffmpeg: they run when ffmpeg is installed, and also when
    /// `COMPOSITOR_REQUIRE_FFMPEG=1` requires it (then `FFmpeg.require()` fails them); otherwise
    /// they are reported as skipped.
    package static var needsFFmpeg: Self {
        .enabled(if: FFmpeg.installed != nil || FFmpeg.required,
                 "needs ffmpeg and ffprobe (COMPOSITOR_REQUIRE_FFMPEG=1 makes their absence a failure)")
    }
}

package struct FFmpegFailure: Error, CustomStringConvertible {
    package var message: String
    package var description: String { "ffmpeg failed: \(message)" }
    package init(message: String) { self.message = message }
}

/// One frame as ffmpeg decodes it: its presentation time and the MD5 of its pixels.
package struct DecodedFrame: Equatable, CustomStringConvertible {
    package let time: MediaTime
    package let hash: String
    package var description: String { "\(time)s:\(hash.prefix(8))" }
    package init(time: MediaTime, hash: String) {
        self.time = time
        self.hash = hash
    }
}

extension FFmpeg {
    /// Every video frame ffmpeg decodes from the playlist at `path`, with the judge's command:
    /// `ffmpeg -v error -i PATH -map 0:v -fps_mode passthrough -enc_time_base -1 -autoscale 0 -f framemd5 -`
    /// (no scaling to the first frame's size when sources of other sizes follow).
    /// Times are as decoded (the stream's own time base), in output order; any message on stderr
    /// is a failure.
    package func decodedFrames(_ path: String) async throws -> [DecodedFrame] {
        let output = try await reading(path, ["-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough",
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
    package func playlistFrames(_ path: String) async throws -> [DecodedFrame] {
        let frames = try await decodedFrames(path)
        guard let first = frames.map(\.time).min() else { return [] }
        return frames.map { DecodedFrame(time: $0.time - first, hash: $0.hash) }
    }
}

/// What ffmpeg read from the fixtures this test process, by command (`FFmpeg.reading`).
/// `@unchecked Sendable`: `outputs` is only touched under `lock`.
private final class FixtureReads: @unchecked Sendable {
    static let shared = FixtureReads()
    private let lock = NSLock()
    private var outputs: [String: ChildProcess.Output] = [:]

    func output(_ key: String) -> ChildProcess.Output? { lock.withLock { outputs[key] } }
    func keep(_ output: ChildProcess.Output, _ key: String) { lock.withLock { outputs[key] = output } }
}
