import Foundation
import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// No lost output: a render that fails or is killed leaves the destination exactly as it was
/// (absent, or the older complete file, byte for byte) and no temporary file; an existing output
/// is replaced only by a complete new one.
///
/// How: on Linux the file being written is unnamed (`O_TMPFILE`), so a killed process leaves
/// nothing; it is linked under a locked `.NAME.partial-XXXXXX` name only to be renamed over the
/// destination. Where a named temporary file is used (other systems, file systems without
/// `O_TMPFILE`), its writer holds an `flock` on it, and the next output to the same destination
/// deletes those no live writer holds.
@Suite("No lost output", .serialized)
struct AtomicOutputTests {
    /// A schedule of `count` whole copies of content.mp4, written into `folder`.
    static func writeSchedule(_ name: String, clips count: Int, in folder: String) throws -> String {
        let clips = (0..<count).map { #"{"id": "c\#($0)", "url": "\#(MP4Fixtures.content)"}"# }
        let path = folder + "/" + name
        try MP4Fixtures.write(Array(#"{"content": [\#(clips.joined(separator: ", "))]}"#.utf8), to: path)
        return path
    }

    /// Bytes written so far by process `pid` to a file in `folder` that is not one of `ignoring`:
    /// the size of its unnamed temporary file (seen through /proc) or of a named one.
    static func bytesInProgress(pid: Int32, folder: String, ignoring: Set<String>) -> Int64 {
        var largest: Int64 = -1
        var status = stat()
        for name in MP4Fixtures.listing(folder) where !ignoring.contains(name) && name.contains(".partial-") {
            if stat(folder + "/" + name, &status) == 0 { largest = max(largest, Int64(status.st_size)) }
        }
        #if os(Linux)
        let fds = "/proc/\(pid)/fd"
        for fd in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + fd),
                  target.hasPrefix(folder + "/"),
                  !ignoring.contains(String(target.dropFirst(folder.count + 1))) else { continue }
            if stat(fds + "/" + fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
                largest = max(largest, Int64(status.st_size))
            }
        }
        #endif
        return largest
    }

    /// Starts `render SCHEDULE --output OUT`, lets it run in slices of about a millisecond
    /// (SIGCONT, sleep, SIGSTOP) until the output being written has some bytes, and kills it
    /// there (SIGKILL). Returns the bytes written when it was stopped, or nil when the render
    /// finished before it could be caught (the caller then tries again).
    ///
    /// Why slices: the render copies by `copy_file_range`, tens of MB in a few milliseconds, and
    /// polling a running child on a busy machine (the sanitizer run) missed the whole write five
    /// times in a row. Measured while the child is stopped, a slice is all it can write unseen.
    static func killRenderHalfway(schedule: String, output: String, folder: String, ignoring: Set<String>) async throws -> Int64? {
        let process = try ChildProcess.start(DemoProcess.executable, ["render", schedule, "--output", output])
        let pid = process.processIdentifier
        var caught: Int64?
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning, Date() < deadline {
            kill(pid, SIGSTOP)
            let written = bytesInProgress(pid: pid, folder: folder, ignoring: ignoring)
            if written > 0 {
                caught = written
                break
            }
            kill(pid, SIGCONT)
            usleep(1000)  // blocks this thread for a millisecond: a Task.sleep may oversleep by far more
        }
        kill(pid, SIGKILL)
        let exited = await process.wait()
        #expect(exited.terminationReason == .uncaughtSignal || caught == nil)
        return caught
    }

    @Test("a render killed halfway leaves no file where there was none, and no temporary file")
    func killedRenderLeavesNothing() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("killed")
        defer { MP4Fixtures.remove(folder) }
        // Big enough (150 MB) that its writing spans many of the slices the child is run in.
        let big = try Self.writeSchedule("big.json", clips: 300, in: folder)
        let output = folder + "/out.mp4"
        // The same render, left alone, writes the whole file: a kill counts as halfway only when it
        // stopped the render with fewer bytes written (a busy machine may catch it while it syncs).
        let finished = try await DemoProcess.run(["render", big, "--output", output])
        #expect(finished.status == 0, "\(finished.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64)
        #expect(MP4Fixtures.listing(folder) == ["big.json", "out.mp4"])
        MP4Fixtures.remove(output)

        var partial: Int64?
        for _ in 0..<8 where partial == nil {
            guard let caught = try await Self.killRenderHalfway(schedule: big, output: output, folder: folder, ignoring: ["big.json"]) else {
                MP4Fixtures.remove(output)  // it finished before it could be stopped: again
                continue
            }
            // Killed, halfway or while syncing: nothing is left either way.
            #expect(MP4Fixtures.listing(folder) == ["big.json"])
            if caught < size { partial = caught }
        }
        let stopped = try #require(partial, "the render was never stopped before all \(size) bytes were written")
        #expect(stopped < size)
    }

    @Test("a render killed halfway leaves the older output byte for byte; a finished one replaces it whole")
    func killedRenderKeepsOlderOutput() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("replace")
        defer { MP4Fixtures.remove(folder) }
        let small = try Self.writeSchedule("small.json", clips: 2, in: folder)
        let big = try Self.writeSchedule("big.json", clips: 100, in: folder)
        let output = folder + "/out.mp4"
        let first = try await DemoProcess.run(["render", small, "--output", output])
        #expect(first.status == 0, "\(first.stderr)")
        let older = try MP4Fixtures.bytes(output)

        var written: Int64?
        for _ in 0..<5 where written == nil {
            written = try await Self.killRenderHalfway(schedule: big, output: output, folder: folder,
                                                       ignoring: ["big.json", "small.json", "out.mp4"])
            if written == nil { try MP4Fixtures.write(older, to: output) }
        }
        #expect(written != nil, "the render always finished before it could be stopped")
        #expect(try MP4Fixtures.bytes(output) == older)
        #expect(MP4Fixtures.listing(folder) == ["big.json", "out.mp4", "small.json"])

        let second = try await DemoProcess.run(["render", big, "--output", output])
        #expect(second.status == 0, "\(second.stderr)")
        let movie = try MP4Reader.read(path: FilePath(output))
        #expect(movie.naturalDuration == MediaTime(seconds: 100 * 20))
        #expect(MP4Fixtures.listing(folder) == ["big.json", "out.mp4", "small.json"])
    }

    /// Runs `render SCHEDULE --output OUTPUT` with writes limited to `kilobytes`: `ulimit -f` makes
    /// writes past the limit fail with EFBIG (SIGXFSZ is ignored, as a shell that traps it would),
    /// what a full disk does to the writer.
    static func renderWithFileSizeLimit(_ schedule: String, output: String, kilobytes: Int) async throws -> ChildProcess.Output {
        let command = #"trap "" XFSZ; ulimit -f \#(kilobytes); exec "$0" render "$1" --output "$2""#
        return try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"),
                                          ["-c", command, DemoProcess.executable.path, schedule, output], in: packageRoot)
    }

    @Test("a full disk is an error exit, the older output stays and nothing partial is left")
    func fullDisk() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("full")
        defer { MP4Fixtures.remove(folder) }
        let small = try Self.writeSchedule("small.json", clips: 1, in: folder)
        let big = try Self.writeSchedule("big.json", clips: 10, in: folder)
        let output = folder + "/out.mp4"

        let nothingYet = try await Self.renderWithFileSizeLimit(big, output: output, kilobytes: 1024)
        #expect(nothingYet.status == 1)
        // "cannot write", or on Linux "cannot copy from SOURCE" (samples are copied by copy_file_range).
        #expect(nothingYet.stderr.hasPrefix("error: \(big): \(output): cannot "), "\(nothingYet.stderr)")
        #expect(nothingYet.stderr.contains("File too large"), "\(nothingYet.stderr)")
        #expect(MP4Fixtures.listing(folder) == ["big.json", "small.json"])

        let first = try await DemoProcess.run(["render", small, "--output", output])
        #expect(first.status == 0, "\(first.stderr)")
        let older = try MP4Fixtures.bytes(output)
        let failed = try await Self.renderWithFileSizeLimit(big, output: output, kilobytes: 1024)
        #expect(failed.status == 1)
        #expect(failed.stderr.hasPrefix("error: "))
        #expect(try MP4Fixtures.bytes(output) == older)
        #expect(MP4Fixtures.listing(folder) == ["big.json", "out.mp4", "small.json"])
    }

    /// A transport stream source's samples are demuxed into a buffer written on another thread
    /// (`AtomicOutputFile.startWrite`): its failure still ends the render, with the same message.
    @Test("a full disk while demuxed samples are written in the background is an error exit, nothing left")
    func fullDiskInBackgroundWrite() async throws {
        let folder = try MP4Fixtures.makeScratchFolder("full-ts")
        defer { MP4Fixtures.remove(folder) }
        let playlist = packageRoot.appendingPathComponent("Fixtures/hls/ts/content/index.m3u8").path
        let schedule = folder + "/ts.json"
        try MP4Fixtures.write(Array(#"{"content": [{"id": "c", "url": "\#(playlist)"}]}"#.utf8), to: schedule)
        let output = folder + "/out.mp4"
        let whole = try await DemoProcess.run(["render", schedule, "--output", output])
        #expect(whole.status == 0, "\(whole.stderr)")
        let size = try MP4Fixtures.bytes(output).count
        MP4Fixtures.remove(output)

        let failed = try await Self.renderWithFileSizeLimit(schedule, output: output, kilobytes: size / 2048)
        #expect(failed.status == 1)
        #expect(failed.stderr.hasPrefix("error: \(schedule): \(output): cannot write: File too large"), "\(failed.stderr)")
        #expect(MP4Fixtures.listing(folder) == ["ts.json"])
    }

    @Test("a write started in the background lands in order with the writes and copies after it")
    func backgroundWriteOrder() throws {
        let folder = try MP4Fixtures.makeScratchFolder("order")
        defer { MP4Fixtures.remove(folder) }
        let sourcePath = folder + "/source.bin"
        try MP4Fixtures.write((0..<100).map { UInt8($0) }, to: sourcePath)
        let source = try ReadableFile(path: FilePath(sourcePath))
        let output = folder + "/out.bin"
        let file = try AtomicOutputFile(path: FilePath(output))
        let first: [UInt8] = Array(repeating: 0xA1, count: 3 << 20), scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 16)
        defer { scratch.deallocate() }
        try first.withUnsafeBytes { try file.startWrite($0) }
        try file.append(from: source, offset: 10, length: 5, buffer: scratch)
        try first.withUnsafeBytes { try file.startWrite(UnsafeRawBufferPointer(rebasing: $0[0..<2])) }
        try file.write([0xB2])
        try first.withUnsafeBytes { try file.startWrite(UnsafeRawBufferPointer(rebasing: $0[0..<1])) }
        try file.commit()
        #expect(try MP4Fixtures.bytes(output) == first + [10, 11, 12, 13, 14, 0xA1, 0xA1, 0xB2, 0xA1])
    }

    @Test("stale temporary files of dead writers are removed by the next output; live writers' are kept")
    func staleTemporaryFiles() throws {
        let folder = try MP4Fixtures.makeScratchFolder("stale")
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        for name in [".out.mp4.partial-Dead01", ".out.mp4.partial-Dead02", ".out.mp4.partial-Live01",
                     ".other.mp4.partial-Dead03", ".out.mp4.partial-TooLong", "out.mp4.partial-Dead04"] {
            try MP4Fixtures.write([1, 2, 3], to: folder + "/" + name)
        }
        // A live writer: this process holds the lock, as a render in progress would.
        let live = open(folder + "/.out.mp4.partial-Live01", O_RDWR)
        #expect(live >= 0)
        #expect(flock(live, LOCK_EX) == 0)
        defer { close(live) }

        try MP4Stitcher(pieces: [MP4StitchPiece(path: FilePath(MP4Fixtures.content), range: MediaTimeRange(start: .zero, end: MediaTime(seconds: 1)))])
            .stitch(to: FilePath(output))
        #expect(MP4Fixtures.listing(folder) == [
            ".other.mp4.partial-Dead03", ".out.mp4.partial-Live01", ".out.mp4.partial-TooLong", "out.mp4",
            "out.mp4.partial-Dead04",
        ])
    }

    @Test("the named temporary file is locked while written, renamed on commit, removed on failure")
    func namedTemporaryFile() throws {
        let folder = try MP4Fixtures.makeScratchFolder("named")
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        let file = try AtomicOutputFile(path: FilePath(output), unnamedIfPossible: false)
        let names = MP4Fixtures.listing(folder)
        #expect(names.count == 1)
        #expect(names.first?.hasPrefix(".out.mp4.partial-") == true && names.first?.count == ".out.mp4.partial-".count + 6)
        // Another opener cannot take the lock: the file is a live writer's, not stale.
        let other = open(folder + "/" + names[0], O_RDONLY)
        #expect(flock(other, LOCK_EX | LOCK_NB) != 0)
        close(other)
        AtomicOutputFile.removeStaleTemporaryFiles(prefix: AtomicOutputFile.temporaryPrefix(for: FilePath(output)))
        #expect(MP4Fixtures.listing(folder) == names)
        try file.write([1, 2, 3])
        try file.commit()
        #expect(MP4Fixtures.listing(folder) == ["out.mp4"])
        #expect(try MP4Fixtures.bytes(output) == [1, 2, 3])

        let failing = try AtomicOutputFile(path: FilePath(output), unnamedIfPossible: false)
        try failing.write([4, 5])
        failing.discard()
        #expect(MP4Fixtures.listing(folder) == ["out.mp4"])
        #expect(try MP4Fixtures.bytes(output) == [1, 2, 3])
    }

    #if os(Linux)
    @Test("on Linux the file being written has no name until it is complete")
    func unnamedWhileWriting() throws {
        let folder = try MP4Fixtures.makeScratchFolder("unnamed")
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        let file = try AtomicOutputFile(path: FilePath(output))
        try file.write([1, 2, 3])
        #expect(MP4Fixtures.listing(folder).isEmpty)
        try file.commit()
        #expect(MP4Fixtures.listing(folder) == ["out.mp4"])
        #expect(try MP4Fixtures.bytes(output) == [1, 2, 3])
    }
    #endif

    /// The stitcher sets aside its output's planned size before writing: on Linux the blocks are
    /// the file's at once (its size still counts only what was written), and an output that
    /// cannot fit fails before its first byte.
    @Test("space set aside before writing: the size counts what was written; what cannot fit fails at once")
    func reservedSpace() throws {
        let folder = try MP4Fixtures.makeScratchFolder("reserve")
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        let file = try AtomicOutputFile(path: FilePath(output), unnamedIfPossible: false)
        try file.reserve(1 << 20)
        var status = stat()
        #expect(stat(file.temporaryPath.description, &status) == 0)
        #expect(status.st_size == 0)
        #if os(Linux)
        #expect(Int(status.st_blocks) * 512 >= 1 << 20)
        #endif
        try file.write([1, 2, 3])
        try file.commit()
        #expect(try MP4Fixtures.bytes(output) == [1, 2, 3])

        #if os(Linux)
        let tooLarge = try AtomicOutputFile(path: FilePath(output))
        let error = #expect(throws: FileError.self) { try tooLarge.reserve(1 << 62) }
        #expect(error?.description.hasPrefix("\(output): cannot set aside 4611686018427387904 bytes on disk: ") == true,
                "\(String(describing: error))")
        tooLarge.discard()
        #expect(try MP4Fixtures.bytes(output) == [1, 2, 3])
        #endif
    }

    @Test("temporary names stay in the destination's folder")
    func temporaryPrefix() {
        #expect(AtomicOutputFile.temporaryPrefix(for: "out.mp4") == ".out.mp4.partial-")
        #expect(AtomicOutputFile.temporaryPrefix(for: "./out.mp4") == "./.out.mp4.partial-")
        #expect(AtomicOutputFile.temporaryPrefix(for: "a/b/out.mp4") == "a/b/.out.mp4.partial-")
        #expect(AtomicOutputFile.temporaryPrefix(for: "/out.mp4") == "/.out.mp4.partial-")
    }
}
