import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor

/// Honest exits and clear words (issue 13, W4, U2, U4, U5): output that cannot be written is an
/// error, every message names the file and the reason, and text from a schedule cannot forge a
/// line or reach the terminal as an escape sequence.
@Suite("Honest exits and clear words")
struct HonestOutputTests {
    static func run(_ shellCommand: String, _ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", shellCommand, DemoProcess.executable.path] + arguments,
                                   in: packageRoot)
    }

    @Test("stdout that cannot be written (> /dev/full) exits 1 and says so", arguments: [["timeline", "--json"], ["timeline"]])
    func fullStandardOutput(command: [String]) async throws {
        let result = try await Self.run(#""$0" "$@" Fixtures/demo.json > /dev/full"#, command)
        #expect(result.status == 1)
        #expect(result.stderr == "error: standard output: cannot write: No space left on device\n", "\(result.stderr)")
    }

    /// Issue 50: a render that failed on a bad source said the problem twice, as a warning of
    /// the probe and then as the error. Issue 68: a bad ad is dropped and the rest plays, said once
    /// too; a bad content clip is the error.
    @Test("a render or stitch with a bad source says the problem once", arguments: [["render", "--output", "out.mp4"], ["hls", "--output", "out"]])
    func problemSaidOnce(command: [String]) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("said-once")
        defer { MP4Fixtures.remove(folder) }
        try MP4Fixtures.write(Array(try MP4Fixtures.bytes(MP4Fixtures.ad1).prefix(3000)), to: folder + "/bad.mp4")
        try MP4Fixtures.write(Array(#"""
            {"content": [{"url": "\#(MP4Fixtures.content)", "end": 5}], "breaks": [{"id": "b", "at": 2, "ads": [{"id": "a", "url": "bad.mp4", "end": 1}]}]}
            """#.utf8), to: folder + "/ad.json")
        try MP4Fixtures.write(Array(#"{"content": [{"url": "bad.mp4", "end": 1}]}"#.utf8), to: folder + "/content.json")
        let ad = try await DemoProcess.run([command[0], "ad.json"] + command.dropFirst(), in: URL(fileURLWithPath: folder))
        #expect(ad.status == 0, "\(ad.stderr)")
        let warnings = ad.stderr.split(separator: "\n")
        #expect(warnings.count == 1 && warnings.allSatisfy {
            $0.hasPrefix("warning: ad.json: break 'b': ad 'a' is dropped: ") && $0.contains("bad.mp4: malformed MP4")
        }, "\(ad.stderr)")
        let content = try await DemoProcess.run([command[0], "content.json"] + command.dropFirst(), in: URL(fileURLWithPath: folder))
        #expect(content.status == 1)
        let lines = content.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasPrefix("error: ") && $0.contains("bad.mp4: malformed MP4") }, "\(content.stderr)")
        // Where the source is not needed, the ad keeps its place, with a warning.
        let timeline = try await DemoProcess.run(["timeline", "ad.json"], in: URL(fileURLWithPath: folder))
        #expect(timeline.status == 0 && timeline.stderr.hasPrefix("warning: ad.json: ./bad.mp4: malformed MP4"), "\(timeline.stderr)")
        #expect(timeline.stdout.contains("1 break"), "\(timeline.stdout)")
    }

    @Test("IDs and URLs with newlines, escape sequences and bells are shown escaped, one line each")
    func controlCharactersEscaped() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("control")
        defer { MP4Fixtures.remove(folder) }
        let schedule = folder + "/s.json"
        try MP4Fixtures.write(Array(#"""
            {"content": [{"id": "c\nwarning: forged\u001b[31m", "url": "\#(MP4Fixtures.content)", "end": 20}],
             "breaks": [{"id": "b\u0007", "at": 1, "ads": [{"id": "a\r", "url": "https://ads.example/\u001b[2Ja.mp4", "end": 2},
                                                      {"id": "rtl\u202Efdp.exe\u2066", "url": "https://ads.example/b.mp4", "end": 2}]}]}
            """#.utf8), to: schedule)

        let timeline = try await DemoProcess.run(["timeline", schedule])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        let controls: Set<Unicode.Scalar> = ["\u{1B}", "\r", "\u{7}", "\u{202E}", "\u{2066}"]
        let raw = timeline.stdout.unicodeScalars.filter { controls.contains($0) }
        #expect(raw.isEmpty)
        // Issue 50: a right-to-left override reordered the table on a terminal.
        #expect(timeline.stdout.contains(#"rtl\u{202E}fdp.exe\u{2066}"#), "\(timeline.stdout)")
        let lines = timeline.stdout.split(separator: "\n")
        let forged = lines.filter { $0.hasPrefix("warning: forged") }
        #expect(forged.isEmpty)
        #expect(timeline.stdout.contains(#"c\nwarning: forged\u{1B}[31m"#))
        #expect(timeline.stdout.contains(#"https://ads.example/\u{1B}[2Ja.mp4"#))

        let map = try await DemoProcess.run(["map", schedule, "--composition-time", "2"])
        #expect(map.status == 0, "\(map.stderr)")
        #expect(map.stdout.contains(#"ad 'a\r' (1 of 2) of break 'b\u{7}'"#), "\(map.stdout)")

        // An error about such an item is one line.
        try MP4Fixtures.write(Array(#"{"content": [{"id": "x\nwarning: forged", "url": "a.mp4", "start": 5, "end": 1}]}"#.utf8), to: schedule)
        let error = try await DemoProcess.run(["timeline", schedule])
        #expect(error.status == 1)
        #expect(error.stderr.split(separator: "\n").count == 1, "\(error.stderr)")
        #expect(error.stderr.contains(#"'x\nwarning: forged'"#), "\(error.stderr)")
    }

    @Test("timeline warns about a local source it cannot read, even when the schedule gives its end")
    func unreadableSourceWarned() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("unreadable")
        defer { MP4Fixtures.remove(folder) }
        let schedule = folder + "/s.json"
        try MP4Fixtures.write(Array(#"{"content": [{"id": "c", "url": "missing.mp4", "end": 10}]}"#.utf8), to: schedule)
        let result = try await DemoProcess.run(["timeline", schedule])
        #expect(result.status == 0)
        #expect(result.stderr == "warning: \(schedule): \(folder)/missing.mp4: no such file (its clips are placed by the times the schedule gives)\n")
    }

    @Test("a .m3u8 that does not start with #EXTM3U is reported as a playlist, by line")
    func playlistWithoutHeader() throws {
        let folder = try MP4Fixtures.makeScratchFolder("no-extm3u")
        defer { MP4Fixtures.remove(folder) }
        try MP4Fixtures.write(Array("#EXTINF:4,\na.ts\n".utf8), to: folder + "/v.m3u8")
        #expect {
            try SourceProbe.probe(MediaLocation(FilePath(folder + "/v.m3u8")))
        } throws: { error in
            "\(error)" == "\(folder)/v.m3u8: line 1: a playlist must start with #EXTM3U: '#EXTINF:4,'"
        }
    }
}
