import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore

/// The demo's contract (DESIGN.md): commands, JSON shapes, exit codes 0 / 1 / 64.
@Suite("CompositorDemo timeline and map")
struct DemoCommandTests {
    let sample = "Fixtures/reference-sample.json"

    func object(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: Array(text.utf8)) else {
            throw DemoTestError("not a JSON object: \(text)")
        }
        return object
    }

    @Test("timeline --json prints the contract's object")
    func timelineJSON() async throws {
        let result = try await DemoProcess.run(["timeline", sample, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let root = try object(result.stdout)
        #expect(root.keys == ["contentDuration", "compositionDuration", "segments", "breaks"])
        #expect(root["contentDuration"] == .number("170"))
        #expect(root["compositionDuration"] == .number("294"))
        guard case .array(let segments) = root["segments"], case .object(let pod2) = segments[3] else {
            Issue.record("no segments"); return
        }
        #expect(pod2.keys == ["kind", "id", "breakID", "adIndex", "podSize", "url", "source", "composition", "content"])
        #expect(pod2["kind"] == .string("ad") && pod2["id"] == .string("pod-2") && pod2["breakID"] == .string("pod"))
        #expect(pod2["composition"] == .object(JSONObject(["start": .number("45"), "end": .number("62")])))
        #expect(pod2["content"] == .object(JSONObject(["start": .number("23"), "end": .number("23")])))
        guard case .array(let breaks) = root["breaks"], case .object(let once) = breaks[2] else {
            Issue.record("no breaks"); return
        }
        #expect(once.keys == ["id", "position", "composition", "policy", "ads"])
        #expect(once["policy"] == .string("once") && once["ads"] == .array([.string("once-ad")]))
    }

    /// Keyframe cuts move each piece to its sources' keyframes; `timeline --cut keyframe` shows
    /// that composition from the sources' sample tables, without rendering: the ranges are the
    /// ones a keyframe render plans, and differ from the schedule's.
    @Test("timeline --cut keyframe shows the snapped composition without a render")
    func timelineKeyframeCut() async throws {
        let result = try await DemoProcess.run(["timeline", "Fixtures/demo.json", "--json", "--cut", "keyframe"])
        #expect(result.status == 0, "\(result.stderr)")
        guard case .array(let segments) = try object(result.stdout)["segments"] else { Issue.record("no segments"); return }
        func time(_ value: JSONValue?, _ key: String) throws -> MediaTime {
            guard case .object(let range) = value else { throw DemoTestError("no range") }
            if case .string(let exact) = range[key + "Exact"] { return try MediaTime(parsing: exact) }
            guard case .number(let text) = range[key] else { throw DemoTestError("no \(key)") }
            return try MediaTime(parsing: text)
        }
        let shown = try segments.map { (segment) throws -> (MediaTimeRange, MediaTimeRange) in
            guard case .object(let object) = segment else { throw DemoTestError("not an object") }
            return (MediaTimeRange(start: try time(object["source"], "start"), end: try time(object["source"], "end")),
                    MediaTimeRange(start: try time(object["composition"], "start"), end: try time(object["composition"], "end")))
        }
        let fixtures = packageRoot.appendingPathComponent("Fixtures")
        let scheduled = try Composition(schedule: ScheduleDocument.decode(
            try Data(contentsOf: fixtures.appendingPathComponent("demo.json")), baseFolder: FilePath(fixtures.path)))
        let snapped = try MP4Exporter.plan(scheduled, cut: .keyframeAligned).composition
        #expect(shown.map(\.0) == snapped.segments.map(\.sourceRange))
        #expect(shown.map(\.1) == snapped.segments.map(\.compositionRange))
        #expect(shown.map(\.0) != scheduled.segments.map(\.sourceRange), "the demo's schedule cuts inside GOPs")

        let sample = try await DemoProcess.run(["timeline", "Fixtures/demo.json", "--json", "--cut", "sample"])
        let plain = try await DemoProcess.run(["timeline", "Fixtures/demo.json", "--json"])
        #expect(sample.stdout == plain.stdout, "sample-accurate cuts play the schedule as it is")
        let bad = try await DemoProcess.run(["timeline", "Fixtures/demo.json", "--cut", "fast"])
        #expect(bad.status == 64)
    }

    /// `preview` checks everything before it serves: its options, the schedule, and that the
    /// schedule renders web-safe (the browser test, Tests/preview/preview_test.py, covers serving).
    @Test("preview refuses a bad port, a missing schedule and sources that cannot be web-safe, before serving")
    func previewRefusals() async throws {
        let port = try await DemoProcess.run(["preview", "Fixtures/demo-web.json", "--port", "70000"])
        #expect(port.status == 64 && port.stderr.contains("--port: expected 0 to 65535"), "\(port.stderr)")
        let missing = try await DemoProcess.run(["preview", "Fixtures/nothing.json", "--port", "0"])
        #expect(missing.status == 1 && missing.stderr.contains("nothing.json"), "\(missing.stderr)")
        // demo.json's ads are AAC 44.1 kHz mono beside 48 kHz stereo content: no one format per track.
        let mixed = try await DemoProcess.run(["preview", "Fixtures/demo.json", "--port", "0"])
        #expect(mixed.status == 1 && mixed.stderr.contains("demo.json") && mixed.stdout.isEmpty, "\(mixed.stderr)")
    }

    @Test("map both ways, as JSON")
    func mapJSON() async throws {
        let inAd = try await DemoProcess.run(["map", sample, "--composition-time", "50", "--json"])
        #expect(inAd.status == 0, "\(inAd.stderr)")
        #expect(try object(inAd.stdout) == JSONObject([
            "contentTime": .number("23"), "compositionTime": .number("50"), "kind": .string("ad"),
            "id": .string("pod-2"), "sourceTime": .number("5"), "breakID": .string("pod"),
            "adIndex": .number("2"), "podSize": .number("2"), "timeInAd": .number("5"), "timeInBreak": .number("22"),
        ]))
        let after = try object(try await DemoProcess.run(["map", sample, "--content-time", "23", "--json"]).stdout)
        #expect(after["compositionTime"] == .number("62"))
        #expect(after["kind"] == .string("content"))
        let before = try object(try await DemoProcess.run(["map", sample, "--content-time", "23", "--before-breaks", "--json"]).stdout)
        #expect(before["compositionTime"] == .number("28"))
        #expect(before["id"] == .string("pod-1"))
    }

    /// Writes `json` as a schedule in a fresh folder (removed by the caller's `defer`); its URLs
    /// may name the fixtures by absolute path.
    func scheduleFile(_ json: String) throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("schedule.json")
        try Data(json.replacingOccurrences(of: "FIXTURES", with: packageRoot.appendingPathComponent("Fixtures").path).utf8).write(to: file)
        return (folder, file)
    }

    /// A 29.97 fps schedule: its grid (composition timescale 300000000) holds 1001/30000 exactly,
    /// and JSON seconds cannot, so the exact rational is printed beside them.
    @Test("rational times in and out: exact rationals are printed beside rounded seconds")
    func rationalMap() async throws {
        let (folder, file) = try scheduleFile(#"{"content": [{"id": "c", "url": "FIXTURES/content.mp4", "end": "299299/30000"}], "breaks": []}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await DemoProcess.run(["map", file.path, "--content-time", "1001/30000", "--json"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let root = try object(result.stdout)
        #expect(root["contentTime"] == .number("0.033366667"))
        #expect(root["contentTimeExact"] == .string("1001/30000"))
        #expect(root["compositionTimeExact"] == .string("1001/30000"))
    }

    /// Issue 13, C1 as reported: `map S.json --composition-time 1001/30000` with a clip starting at
    /// 0.123456789 s died (SIGILL) adding 1001/30000 to the source start. The query is now taken at
    /// the nanosecond before it (the composition's timescale is 10^9), and a note says so.
    ///
    /// ```
    /// composition  0 ^1001/30000 s                  19.876543211
    ///              |--feature, source 0.123456789-20--|
    /// ```
    @Test("map --composition-time 1001/30000 on a clip starting at 0.123456789 s answers, with a note")
    func mapNineDecimalsAgainstNTSC() async throws {
        let (folder, file) = try scheduleFile(#"{"content": [{"id": "feature", "url": "FIXTURES/content.mp4", "start": 0.123456789, "end": 20}], "breaks": []}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await DemoProcess.run(["map", file.path, "--composition-time", "1001/30000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("content 0.033366666 s <-> composition 0.033366666 s: content 'feature', source time 0.156823455 s"),
                "\(result.stdout)")
        #expect(result.stderr == "note: composition time 1001/30000 s is taken as 0.033366666 s, the tick of the composition's "
            + "timescale (1/1000000000 s) at or before it\n")
        let json = try await DemoProcess.run(["map", file.path, "--composition-time", "1001/30000", "--json"])
        #expect(try object(json.stdout)["sourceTime"] == .number("0.156823455"))
        let simulate = try await DemoProcess.run(["simulate", file.path, "--actions",
            "play 1001/30000; insert now FIXTURES/ad1.mp4 0 1; play 2; seek composition 12345678901/1000000000; play 30"
                .replacingOccurrences(of: "FIXTURES", with: packageRoot.appendingPathComponent("Fixtures").path)])
        #expect(simulate.status == 0 && simulate.stderr.isEmpty, "\(simulate.stderr)")
        #expect(simulate.stdout.hasSuffix("ended\n"), "\(simulate.stdout)")
    }

    @Test("human output: a table and a bar")
    func humanTimeline() async throws {
        let result = try await DemoProcess.run(["timeline", sample])
        #expect(result.status == 0)
        #expect(result.stdout.contains("content 170 s, composition 294 s, 11 segments, 5 breaks"))
        #expect(result.stdout.contains("(= content, # ad)"))
    }

    /// Columns are as wide as their widest cell counted in characters (`café` is 4, not 5 bytes),
    /// two spaces apart, and a row ends at its last non-empty cell (content rows have no break).
    @Test("human output: the table's columns line up, and no line ends in spaces")
    func humanTimelineLayout() async throws {
        let (folder, file) = try scheduleFile(#"""
            {"content": [{"id": "café", "url": "c.mp4", "end": 10}],
             "breaks": [{"id": "brk", "at": 4, "ads": [{"id": "ad", "url": "a.mp4", "end": 1.5}]}]}
            """#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await DemoProcess.run(["timeline", file.path])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).prefix(4)
        #expect(Array(lines) == [
            "#  kind     id    break  composition  content  source",
            "1  content  café         [0, 4)       [0, 4)   \(folder.path)/c.mp4 [0, 4)",
            "2  ad 1/1   ad    brk    [4, 5.5)     @4       \(folder.path)/a.mp4 [0, 1.5)",
            "3  content  café         [5.5, 11.5)  [4, 10)  \(folder.path)/c.mp4 [4, 10)",
        ])
    }

    /// The table goes out a megabyte at a time: 12,000 breaks make about 1.4 MB of it, so rows
    /// cross a piece's end, and each must come out once, whole, in order.
    @Test("human output: a table of megabytes comes out whole, row by row")
    func longTimelineTable() async throws {
        let breaks = (1...12_000).map { #"{"id": "b\#($0)", "at": \#($0), "ads": [{"id": "a\#($0)", "url": "a.mp4", "end": 0.5}]}"# }
        let (folder, file) = try scheduleFile(
            #"{"content": [{"id": "c", "url": "c.mp4", "end": 12001}], "breaks": ["# + breaks.joined(separator: ",") + "]}")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await DemoProcess.run(["timeline", file.path])
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count > 1 << 20)
        // The title and the bar around the table (blank lines are not subsequences here).
        let rows = result.stdout.split(separator: "\n").dropFirst().dropLast()
        #expect(rows.count == 24_002)  // the header and 24,001 segments
        let inOrder = rows.dropFirst().map { $0.prefix { $0 != " " } }.elementsEqual((1...24_001).map { String($0)[...] })
        #expect(inOrder, "rows numbered 1 to 24,001, each once")
        #expect(result.stdout.hasSuffix("(= content, # ad)\n"))
    }

    @Test("simulate --json prints one event object per line")
    func simulateJSON() async throws {
        let result = try await DemoProcess.run(["simulate", sample, "--actions", "play 30; seek content 50; play 30", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let events = try lines.map { try object($0) }
        #expect(events.first == JSONObject([
            "event": .string("breakStarted"), "compositionTime": .number("0"), "contentTime": .number("0"),
            "breakID": .string("pre"), "first": .bool(true),
        ]))
        #expect(events.contains(JSONObject([
            "event": .string("adStarted"), "compositionTime": .number("28"), "contentTime": .number("23"),
            "breakID": .string("pod"), "adID": .string("pod-1"), "adIndex": .number("1"), "podSize": .number("2"),
        ])))
        let names = events.compactMap { if case .string(let n)? = $0["event"] { n } else { nil } }
        #expect(Set(names).isSubset(of: [
            "breakStarted", "adStarted", "adQuartile", "adEnded", "breakEnded", "contentResumed", "seekAdjusted",
            "compositionChanged", "ended",
        ]))
        #expect(names.contains("seekAdjusted") && names.contains("compositionChanged"))
    }

    @Test("simulate: a refused action is a note on stderr, not a failure")
    func simulateRefusal() async throws {
        let result = try await DemoProcess.run(["simulate", sample, "--actions", "play 10; skip ad"])
        #expect(result.status == 0)
        // The reference sample names media that are not bundled: each is a warning, then the note.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.filter { !$0.hasPrefix("warning: \(sample): Fixtures/") } == ["note: action 2 refused: no ad is playing"])
        #expect(lines.contains("warning: \(sample): Fixtures/A.mp4: no such file (its clips are placed by the times the schedule gives)"))
    }

    @Test("exit 1 with 'error: ' naming the file and the reason", arguments: [
        (["timeline", "Fixtures/missing.json"], "error: Fixtures/missing.json: no such file"),
        (["map", "Fixtures/reference-sample.json", "--content-time", "500"], "error: content time 500 s is outside the content (0...170 s)"),
        (["timeline", "Fixtures"], "error: Fixtures: a folder, not a regular file"),
    ])
    func failures(arguments: [String], message: String) async throws {
        let result = try await DemoProcess.run(arguments)
        #expect(result.status == 1)
        // Warnings about the reference sample's unbundled media come first.
        let errors = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: ") }
        #expect(errors.count == 1 && errors[0].hasPrefix(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a schedule error names the file, the item and the value")
    func scheduleError() async throws {
        let (folder, file) = try scheduleFile(
            #"{"content": [{"id": "c", "url": "c.mp4", "end": 10}], "breaks": [{"id": "late", "at": 12, "ads": [{"url": "a.mp4", "end": 1}]}]}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await DemoProcess.run(["timeline", file.path])
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(file.path): break 'late' at 12 s is outside the content (0...10 s)\n")
    }

    /// Issue 53: the conventions of a command-line tool.
    @Test("--version prints the version; COMMAND --help prints that command's usage and exits 0",
          arguments: ["timeline", "map", "render", "hls", "dash", "simulate", "preview"])
    func helpPerCommand(command: String) async throws {
        let help = try await DemoProcess.run([command, "--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        #expect(help.stdout.hasPrefix("usage: CompositorDemo \(command) "), "\(help.stdout)")
        let others = ["timeline", "map", "render", "hls", "dash", "simulate", "preview"].filter { $0 != command }
        #expect(others.allSatisfy { !help.stdout.contains("CompositorDemo \($0) ") }, "\(help.stdout)")
        let version = try await DemoProcess.run(["--version"])
        #expect(version.status == 0 && version.stdout == "CompositorDemo \(DemoVersion.expected)\n")
    }

    @Test("a usage error shows that command's usage only; an unknown command shows them all")
    func usageOfTheCommand() async throws {
        let render = try await DemoProcess.run(["render", "Fixtures/demo.json"])
        #expect(render.status == 64)
        #expect(render.stderr.hasPrefix("error: render needs --output OUT.mp4\nusage: CompositorDemo render "), "\(render.stderr)")
        #expect(!render.stderr.contains("CompositorDemo hls"))
        let unknown = try await DemoProcess.run(["frobnicate"])
        #expect(unknown.status == 64 && unknown.stderr.contains("CompositorDemo hls") && unknown.stderr.contains("CompositorDemo render"))
    }

    @Test("diagnostics go to stderr and data to stdout: a render's notes are on stderr")
    func notesOnStandardError() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("notes-stderr")
        defer { MP4Fixtures.remove(folder) }
        let render = try await DemoProcess.run(["render", "Fixtures/demo.json", "--output", folder + "/out.mp4"])
        #expect(render.status == 0)
        #expect(render.stderr.contains("note: the sources differ in frame rate"), "\(render.stderr)")
        #expect(!render.stdout.contains("note:") && render.stdout.hasPrefix("wrote "), "\(render.stdout)")
    }

    @Test("exit 64 on a usage error", arguments: [
        ["frobnicate"], ["timeline"], ["map", "Fixtures/reference-sample.json"],
        ["map", "Fixtures/reference-sample.json", "--content-time", "1", "--composition-time", "2"],
        ["map", "Fixtures/reference-sample.json", "--content-time", "abc"], ["timeline", "a.json", "b.json"],
        ["simulate", "Fixtures/reference-sample.json", "--actions", "jump 3"],
        ["simulate", "Fixtures/reference-sample.json", "--snapback", "sometimes"],
        ["hls", "Fixtures/demo-hls.json", "--output", "/tmp/never-written", "--interstitials", "--package-every-piece"],
        ["hls", "Fixtures/demo-hls.json", "--output", "/tmp/never-written", "--unmarked-encoding-changes"],
        ["dash", "Fixtures/demo.json"], ["dash", "Fixtures/demo.json", "--output", "/tmp/never-written", "--snap", "sideways"],
    ])
    func usage(arguments: [String]) async throws {
        let result = try await DemoProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.contains("usage:"))
    }
}

/// The version the demo prints, as CHANGELOG.md's latest entry names it.
enum DemoVersion {
    static var expected: String {
        let changelog = (try? String(contentsOfFile: packageRoot.appendingPathComponent("CHANGELOG.md").path, encoding: .utf8)) ?? ""
        let line = changelog.split(separator: "\n").first { $0.hasPrefix("## ") } ?? ""
        return String(line.dropFirst(3).prefix { $0 != " " })
    }
}
