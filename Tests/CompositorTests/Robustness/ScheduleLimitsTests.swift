import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Limits that hold against schedule files that lie or are simply huge: a size limit checked
/// before parsing, linear-time parsing of big objects, the nesting limit, times that overflow,
/// and a demo that reads only regular files.
@Suite("Schedule limits against hostile files")
struct ScheduleLimitsTests {
    @Test("a schedule over the size limit is refused before parsing")
    func sizeLimit() {
        let limit = ScheduleDocument.maximumBytes
        let document = Array(#"{"content": [{"url": "a.mp4"}]}"#.utf8)
        let padded = document + [UInt8](repeating: 0x20, count: limit + 1 - document.count)
        #expect(throws: ScheduleDocumentError.tooLarge(bytes: limit + 1, limit: limit)) {
            try ScheduleDocument.decode(padded)
        }
        let atLimit = document + [UInt8](repeating: 0x20, count: limit - document.count)
        #expect(throws: Never.self) { try ScheduleDocument.decode(atLimit) }
        #expect(ScheduleDocumentError.tooLarge(bytes: limit + 1, limit: limit).description
            == "the schedule is \(limit + 1) bytes, more than the limit of \(limit)")
    }

    /// Duplicate keys are errors, so each key is compared with those before it: with a list
    /// search that is n²/2 comparisons, minutes for the 200 000 keys a 3 MB file can hold.
    @Test("an object with 200 000 keys parses in linear time")
    func manyKeys() throws {
        var text = "{"
        for index in 0..<200_000 { text += (index == 0 ? "" : ",") + "\"key\(index)\":\(index)" }
        text += "}"
        let bytes = Array(text.utf8)
        let parsed = Robust.withDeadline(seconds: 30) { Result { try JSONValue(parsing: bytes) } }
        guard case .object(let object)? = try parsed?.get() else { Issue.record("not an object"); return }
        #expect(object.members.count == 200_000)
        #expect(object["key199999"] == .number("199999"))
        // And a duplicate among them is still found, naming where.
        let duplicate = Array((String(text.dropLast()) + ",\"key7\":1}").utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: duplicate) }
        #expect(error?.reason == "duplicate key \"key7\"")
        #expect(error?.column == text.utf8.count + 1)
    }

    /// Short objects are searched, longer ones hashed: a duplicate is found on either side.
    @Test("a duplicate key is found whatever the object's size", arguments: [2, 15, 16, 17, 40])
    func duplicateAtEverySize(keys: Int) {
        let members = (0..<keys).map { "\"k\($0)\":\($0)" } + ["\"k0\":0"]
        let error = #expect(throws: JSONSyntaxError.self) {
            try JSONValue(parsing: Array(("{" + members.joined(separator: ",") + "}").utf8))
        }
        #expect(error?.reason == "duplicate key \"k0\"")
    }

    @Test("keys equal as Unicode text are duplicates, however they are encoded")
    func canonicallyEqualKeys() {
        let text = "{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}"
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Array(text.utf8)) }
        #expect(error?.reason.hasPrefix("duplicate key") == true)
    }

    @Test("a schedule nested past the JSON depth limit is a syntax error naming the place")
    func nesting() {
        let depth = JSONValue.maximumDepth + 1
        let text = #"{"content": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect { try ScheduleDocument.decode(Array(text.utf8)) } throws: { error in
            guard case .syntax(let line, _, let reason) = error as? ScheduleDocumentError else { return false }
            return reason == "nested deeper than \(JSONValue.maximumDepth) levels" && line == 1
        }
    }

    /// ```
    /// content  |---- a: 5·10^18 s ----|---- b: 5·10^18 s ----|   (10^19 s > Int64.max)
    /// ```
    @Test("clip durations whose sum leaves 64 bits are a typed overflow naming the clip")
    func contentDurationOverflow() throws {
        let schedule = try ScheduleDocument.decode(Array("""
            {"content": [{"id": "a", "url": "a.mp4", "end": "5000000000000000000/1"},
                         {"id": "b", "url": "b.mp4", "end": "5000000000000000000/1"}]}
            """.utf8))
        #expect { try Composition(schedule: schedule) } throws: { error in
            guard case .timeOverflow(item: "b", _) = error as? ScheduleError else { return false }
            return true
        }
    }

    @Test("a time past 64 bits in the file is invalid, naming the field")
    func timePast64Bits() {
        let text = #"{"content": [{"url": "a.mp4", "end": 1e30}]}"#
        #expect { try ScheduleDocument.decode(Array(text.utf8)) } throws: { error in
            guard case .invalid(path: "content[0].end", let reason) = error as? ScheduleDocumentError else { return false }
            return reason.contains("does not fit 64 bits")
        }
    }

    // MARK: - The demo reads regular files only

    @Test("the demo refuses a schedule that is a FIFO instead of waiting for a writer")
    func demoRefusesFIFO() async throws {
        try await Robust.withFIFO { path in
            // A child process of the sanitized build, among the suite's other children on two cores,
            // has taken over a minute to start; a reader blocked on the FIFO never ends at all.
            let result = await Robust.withDeadline(seconds: 240, unblock: { Robust.releaseFIFOReader(path) }) {
                () async -> Result<ChildProcess.Output, any Error> in
                do { return .success(try await DemoProcess.run(["timeline", path])) } catch { return .failure(error) }
            }
            let run = try #require(try result?.get())
            #expect(run.status == 1)
            #expect(run.stderr == "error: \(path): a FIFO, not a regular file\n")
        }
    }

    @Test("the demo refuses a device as a schedule")
    func demoRefusesDevice() async throws {
        let run = try await DemoProcess.run(["timeline", "/dev/zero"])
        #expect(run.status == 1)
        #expect(run.stderr == "error: /dev/zero: a device, not a regular file\n")
    }

    @Test("the demo refuses a schedule file over the size limit before reading it")
    func demoRefusesHugeFile() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("huge-schedule")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/huge.json"
        let size = Int64(ScheduleDocument.maximumBytes) + 1
        try Robust.writeSparse(Array(#"{"content": []}"#.utf8), size: size, to: path)
        let run = try await DemoProcess.run(["timeline", path])
        #expect(run.status == 1)
        #expect(run.stderr == "error: \(path): \(size) bytes, more than the limit of \(ScheduleDocument.maximumBytes)\n")
    }

    @Test("the demo still names a missing schedule and a folder")
    func demoMissingAndFolder() async throws {
        let missing = try await DemoProcess.run(["timeline", "/nonexistent/schedule.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: /nonexistent/schedule.json: no such file\n")
        let folder = try await DemoProcess.run(["timeline", "/tmp"])
        #expect(folder.status == 1)
        #expect(folder.stderr == "error: /tmp: a folder, not a regular file\n")
    }
}
