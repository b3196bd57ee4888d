import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorIO
@testable import CompositorMP4
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Outputs never destroy anything (issue 13, D1, D2, U1, W2, W8):
///
/// ```
/// render S.json --output OUT
///   OUT is S.json, a source, or a link to either  -> refused before any work, nothing touched
///   OUT is a FIFO, a device, a folder             -> refused before any work, nothing touched
///   a source is replaced or modified mid-render   -> the render fails, OUT as it was
///   10,000 sources, 1,024 descriptors             -> sources opened on demand, a few at a time
/// ```
@Suite("Outputs never destroy inputs", .serialized)
struct OutputSafetyTests {
    /// A schedule with one clip of `source` (0-1 s), written into `folder`.
    static func writeSchedule(in folder: String, source: String, name: String = "s.json") throws -> String {
        let path = folder + "/" + name
        try MP4Fixtures.write(Array(#"{"content": [{"id": "c", "url": "\#(source)", "end": 1}]}"#.utf8), to: path)
        return path
    }

    @Test("render S.json --output S.json, or a link to it, is refused and the schedule kept")
    func outputIsTheSchedule() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("out-schedule")
        defer { MP4Fixtures.remove(folder) }
        let schedule = try Self.writeSchedule(in: folder, source: MP4Fixtures.content)
        let before = try MP4Fixtures.bytes(schedule)
        #expect(symlink(schedule, folder + "/soft.mp4") == 0)
        #expect(link(schedule, folder + "/hard.mp4") == 0)

        for output in [schedule, folder + "/soft.mp4", folder + "/hard.mp4"] {
            let result = try await DemoProcess.run(["render", schedule, "--output", output])
            #expect(result.status == 1)
            #expect(result.stderr.contains("an output never replaces its inputs"), "\(result.stderr)")
            #expect(try MP4Fixtures.bytes(schedule) == before)
        }
        #expect(MP4Fixtures.listing(folder) == ["hard.mp4", "s.json", "soft.mp4"])
    }

    @Test("an output that is one of the sources (through a hard link) is refused before planning")
    func outputIsASource() throws {
        let folder = try MP4Fixtures.makeScratchFolder("out-source")
        defer { MP4Fixtures.remove(folder) }
        let source = folder + "/source.mp4", alias = folder + "/alias.mp4"
        try MP4Fixtures.write(try MP4Fixtures.bytes(MP4Fixtures.ad1), to: source)
        #expect(link(source, alias) == 0)
        let before = try MP4Fixtures.bytes(source)
        let clip = ContentClip(id: "c", source: MediaLocation(FilePath(source)), end: MediaTime(seconds: 1))
        let composition = try Composition(schedule: Schedule(content: [clip], breaks: []))

        #expect {
            try MP4Exporter.render(composition, to: FilePath(alias))
        } throws: { error in
            "\(error)" == "\(alias): cannot write the stitched file: is the same file as the input \(source); an output never replaces its inputs"
        }
        #expect(try MP4Fixtures.bytes(source) == before)
    }

    /// The device and standard output cases go through a link in the scratch folder: run against
    /// code without the check (as root), a direct `/dev/null` would be replaced by a plain file.
    @Test("an output that is a FIFO, a device or a folder is refused at once, untouched",
          arguments: ["fifo", "link to /dev/null", "link to /dev/stdout", "folder"])
    func outputIsNotARegularFile(kind: String) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("out-kind")
        defer { MP4Fixtures.remove(folder) }
        let schedule = try Self.writeSchedule(in: folder, source: MP4Fixtures.content)
        let output = folder + "/out.mp4"
        switch kind {
        case "fifo": #expect(mkfifo(output, 0o644) == 0)
        case "folder": try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        default: #expect(symlink(String(kind.dropFirst("link to ".count)), output) == 0)
        }
        var before = stat()
        #expect(lstat(output, &before) == 0)

        let result = try await DemoProcess.run(["render", schedule, "--output", output])
        #expect(result.status == 1)
        // The test reads the demo's stdout through a pipe, so /dev/stdout is a FIFO there.
        let expected = ["fifo": "a FIFO", "link to /dev/stdout": "a FIFO", "folder": "a folder"][kind] ?? "a device"
        #expect(result.stderr.contains("\(output): exists and is \(expected); an output may only replace a regular file"),
                "\(result.stderr)")
        // Refused before the render: no progress, no summary, nothing beside the output.
        #expect(result.stdout.isEmpty)
        var after = stat()
        #expect(lstat(output, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_mode == before.st_mode)
        #expect(MP4Fixtures.listing(folder) == ["out.mp4", "s.json"])
    }

    @Test("hls --output DIR keeps a user's timeline.json and a subfolder named like an output")
    func hlsKeepsUsersFiles() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("hls-users")
        defer { MP4Fixtures.remove(folder) }
        let out = folder + "/out"
        try FileManager.default.createDirectory(atPath: out + "/stitched.m3u8", withIntermediateDirectories: true)
        try MP4Fixtures.write([1], to: out + "/stitched.m3u8/mine.txt")
        try MP4Fixtures.write(Array("the user's".utf8), to: out + "/timeline.json")

        let result = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", out])
        #expect(result.status == 1)
        #expect(result.stderr.contains("holds files a previous stitch did not write (stitched.m3u8, timeline.json)"), "\(result.stderr)")
        #expect(try MP4Fixtures.bytes(out + "/timeline.json") == Array("the user's".utf8))
        #expect(try MP4Fixtures.bytes(out + "/stitched.m3u8/mine.txt") == [1])
        #expect(MP4Fixtures.listing(folder) == ["out"])
    }

    /// A stitch of the first second of `source`, planned.
    static func plannedStitch(of source: String) throws -> (MP4Stitcher, MP4StitchPlan) {
        let piece = MP4StitchPiece(path: FilePath(source), range: MediaTimeRange(start: .zero, end: MediaTime(seconds: 1)))
        let stitcher = MP4Stitcher(pieces: [piece], cutMode: .sampleAccurate)
        return (stitcher, try stitcher.plan())
    }

    @Test("a source replaced by another file of the same size after planning fails the write")
    func sourceReplacedAfterPlanning() throws {
        let folder = try MP4Fixtures.makeScratchFolder("src-replaced")
        defer { MP4Fixtures.remove(folder) }
        let source = folder + "/source.mp4", output = folder + "/out.mp4"
        var bytes = try MP4Fixtures.bytes(MP4Fixtures.ad1)
        try MP4Fixtures.write(bytes, to: source)
        let (stitcher, plan) = try Self.plannedStitch(of: source)

        // The same size, other bytes, another inode: what a download tool renaming into place does.
        bytes[bytes.count - 1] ^= 0xFF
        try MP4Fixtures.write(bytes, to: folder + "/new.mp4")
        #expect(rename(folder + "/new.mp4", source) == 0)
        #expect {
            try stitcher.write(plan, to: FilePath(output))
        } throws: { error in
            "\(error)" == "\(source): cannot copy samples: changed since it was read (another file has taken its name); run again on a file nobody is writing"
        }
        #expect(MP4Fixtures.listing(folder) == ["source.mp4"])
    }

    @Test("a source modified in place (same size) after planning fails the write")
    func sourceModifiedInPlace() throws {
        let folder = try MP4Fixtures.makeScratchFolder("src-modified")
        defer { MP4Fixtures.remove(folder) }
        let source = folder + "/source.mp4", output = folder + "/out.mp4"
        try MP4Fixtures.write(try MP4Fixtures.bytes(MP4Fixtures.ad1), to: source)
        let (stitcher, plan) = try Self.plannedStitch(of: source)

        let fd = open(source, O_WRONLY)
        #expect(fd >= 0)
        var byte: UInt8 = 0x55
        #expect(pwrite(fd, &byte, 1, 100) == 1)
        // A modification time other than the planned one, whatever the file system's clock grain.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(futimens(fd, &times) == 0)
        close(fd)
        #expect {
            try stitcher.write(plan, to: FilePath(output))
        } throws: { error in
            "\(error)" == "\(source): cannot copy samples: changed since it was read (it was modified); run again on a file nobody is writing"
        }
        #expect(MP4Fixtures.listing(folder) == ["source.mp4"])
    }

    @Test("more distinct sources than the process may open descriptors render, opened a few at a time")
    func moreSourcesThanDescriptors() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("many-sources")
        defer { MP4Fixtures.remove(folder) }
        let count = 300
        var clips: [String] = []
        for index in 0..<count {
            let path = folder + "/ad-\(index).mp4"
            #expect(link(MP4Fixtures.ad1, path) == 0 || symlink(MP4Fixtures.ad1, path) == 0)
            clips.append(#"{"id": "c\#(index)", "url": "\#(path)", "end": 0.1}"#)
        }
        let schedule = folder + "/many.json"
        try MP4Fixtures.write(Array(#"{"content": [\#(clips.joined(separator: ", "))]}"#.utf8), to: schedule)

        // 64 descriptors: the standard streams, the runtime's own, the output, and a few sources.
        let command = #"ulimit -n 64; exec "$0" render "$1" --output "$2""#
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"),
                                                ["-c", command, DemoProcess.executable.path, schedule, folder + "/out.mp4"],
                                                in: packageRoot)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("300 segments"), "\(result.stdout)")
    }
}
