import Foundation
import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The atomic folder writer removes only what it wrote itself (issue 13, D3, W3):
///
/// ```
/// out/                      (absent, empty, or what the manifest lists)  -> replaced whole
/// out/ + a user's file      (even one named like an output)              -> refused, untouched
/// killed at any instant     -> out/ is the previous output or the new one, never missing;
///                              the next write removes what the killed one left
/// ```
@Suite("Atomic output folder", .serialized)
struct AtomicOutputFolderTests {
    static let manifest = AtomicOutputFolder.manifestName

    @Test("a file name that would leave the folder is refused before anything is written",
          arguments: ["..", ".", "", "a/b", "x\u{0}", "two\nlines", AtomicOutputFolder.manifestName])
    func refusesEscapingNames(name: String) throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-names")
        defer { MP4Fixtures.remove(scratch) }
        #expect(throws: FileError.self) {
            try AtomicOutputFolder.write([("ok.txt", [1]), (name, [2])], to: FilePath(scratch + "/out"))
        }
        #expect(MP4Fixtures.listing(scratch).isEmpty)
    }

    @Test("the folder appears with every file and a manifest; a later write replaces it whole")
    func writesAndReplaces() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-write")
        defer { MP4Fixtures.remove(scratch) }
        let target = FilePath(scratch + "/out")
        try AtomicOutputFolder.write([("a.txt", [1]), ("b.txt", [2])], to: target)
        #expect(MP4Fixtures.listing(scratch + "/out") == [Self.manifest, "a.txt", "b.txt"])
        #expect(try String(contentsOfFile: scratch + "/out/" + Self.manifest, encoding: .utf8) == "a.txt\nb.txt\n")

        try AtomicOutputFolder.write([("a.txt", [3])], to: target)
        #expect(MP4Fixtures.listing(scratch + "/out") == [Self.manifest, "a.txt"])
        #expect(try MP4Fixtures.bytes(scratch + "/out/a.txt") == [3])
        #expect(MP4Fixtures.listing(scratch) == ["out"])
    }

    @Test("where the system cannot swap, the previous output is moved aside, replaced, then removed")
    func replacesWithoutSwap() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-noswap")
        defer { MP4Fixtures.remove(scratch) }
        let target = FilePath(scratch + "/out")
        try AtomicOutputFolder.write([("a.txt", [1]), ("b.txt", [2])], to: target, swapIfPossible: false)
        try AtomicOutputFolder.write([("a.txt", [3])], to: target, swapIfPossible: false)
        #expect(MP4Fixtures.listing(scratch + "/out") == [Self.manifest, "a.txt"])
        #expect(try MP4Fixtures.bytes(scratch + "/out/a.txt") == [3])
        #expect(MP4Fixtures.listing(scratch) == ["out"])
    }

    @Test("an empty folder is filled")
    func fillsEmptyFolder() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-empty")
        defer { MP4Fixtures.remove(scratch) }
        try FileManager.default.createDirectory(atPath: scratch + "/out", withIntermediateDirectories: false)
        try AtomicOutputFolder.write([("a.txt", [1])], to: FilePath(scratch + "/out"))
        #expect(MP4Fixtures.listing(scratch + "/out") == [Self.manifest, "a.txt"])
        #expect(MP4Fixtures.listing(scratch) == ["out"])
    }

    /// D3: named like an output is not enough; only what the manifest lists is ours.
    @Test("a user's file named like an output, or a subfolder named like one, is refused and kept",
          arguments: ["no manifest", "listed subfolder", "unlisted file"])
    func refusesUsersFiles(case kind: String) throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-users")
        defer { MP4Fixtures.remove(scratch) }
        let out = scratch + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        switch kind {
        case "no manifest":
            try MP4Fixtures.write(Array("the user's".utf8), to: out + "/timeline.json")
        case "listed subfolder":
            try MP4Fixtures.write(Array("timeline.json\nstitched.m3u8\n".utf8), to: out + "/" + Self.manifest)
            try FileManager.default.createDirectory(atPath: out + "/stitched.m3u8", withIntermediateDirectories: false)
            try MP4Fixtures.write([7], to: out + "/stitched.m3u8/keep.ts")
        default:
            try MP4Fixtures.write(Array("timeline.json\n".utf8), to: out + "/" + Self.manifest)
            try MP4Fixtures.write([1], to: out + "/timeline.json")
            try MP4Fixtures.write([2], to: out + "/notes.txt")
        }
        let before = MP4Fixtures.listing(out)

        #expect {
            try AtomicOutputFolder.write([("timeline.json", [9]), ("stitched.m3u8", [9])], to: FilePath(out))
        } throws: { error in
            guard let error = error as? FileError, case .holdsOtherFiles(let names) = error.reason else { return false }
            return names == (kind == "no manifest" ? ["timeline.json"] : kind == "listed subfolder" ? ["stitched.m3u8"] : ["notes.txt"])
        }
        #expect(MP4Fixtures.listing(out) == before)
        #expect(MP4Fixtures.listing(scratch) == ["out"])
        if kind == "listed subfolder" { #expect(try MP4Fixtures.bytes(out + "/stitched.m3u8/keep.ts") == [7]) }
    }

    /// Issue 50: a "previous output" handed to the user, its manifest naming files outside it.
    ///
    /// ```
    /// victim.txt                 <- must survive
    /// out/.compositor-output     "../victim.txt"   (or "sub/x", "/abs")
    /// ```
    @Test("a manifest that lists a path out of its folder is refused, and nothing outside is deleted",
          arguments: ["../victim.txt", "sub/../../victim.txt", "VICTIM_ABSOLUTE"])
    func refusesForeignManifest(entry: String) throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-foreign")
        defer { MP4Fixtures.remove(scratch) }
        let out = scratch + "/out", victim = scratch + "/victim.txt"
        try MP4Fixtures.write(Array("the user's".utf8), to: victim)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let listed = entry == "VICTIM_ABSOLUTE" ? victim : entry
        try MP4Fixtures.write(Array((listed + "\n").utf8), to: out + "/" + Self.manifest)

        #expect {
            try AtomicOutputFolder.write([("a.txt", [1])], to: FilePath(out))
        } throws: { error in
            guard let error = error as? FileError, case .foreignManifest(let named) = error.reason else { return false }
            return named == listed && error.description.contains("not a file inside the folder")
        }
        #expect(try MP4Fixtures.bytes(victim) == Array("the user's".utf8))
        #expect(MP4Fixtures.listing(out) == [Self.manifest])
    }

    @Test("a killed writer's hidden folder whose manifest lists a path out of it deletes nothing outside")
    func hiddenFolderWithForeignManifest() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-foreign-hidden")
        defer { MP4Fixtures.remove(scratch) }
        let victim = scratch + "/victim.txt", hidden = scratch + "/.out.out-Ab12Cd"
        try MP4Fixtures.write(Array("the user's".utf8), to: victim)
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: false)
        try MP4Fixtures.write(Array("../victim.txt\n".utf8), to: hidden + "/" + Self.manifest)

        try AtomicOutputFolder.write([("a.txt", [1])], to: FilePath(scratch + "/out"))
        #expect(try MP4Fixtures.bytes(victim) == Array("the user's".utf8))
        #expect(MP4Fixtures.listing(scratch + "/out") == [Self.manifest, "a.txt"])
    }

    /// W3: what a writer killed at each step leaves, and what the next write makes of it.
    @Test("a killed writer's hidden folders are removed by the next write; a previous output it moved aside comes back")
    func recoversFromKilledWriter() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-killed")
        defer { MP4Fixtures.remove(scratch) }
        let target = FilePath(scratch + "/out")
        // A previous output as a write leaves it, made by hand: a writer's lock, inherited by a
        // process another test forks at that moment, can outlive the write for a while (until
        // that process execs), and the folder would rightly be taken for a live writer's.
        try FileManager.default.createDirectory(atPath: target.description, withIntermediateDirectories: false)
        try MP4Fixtures.write(Array("a.txt\n".utf8), to: target.description + "/" + Self.manifest)
        try MP4Fixtures.write([1], to: target.description + "/a.txt")

        // Killed halfway through writing: a hidden folder with its manifest and part of the files.
        let half = scratch + "/.out.out-Kx9Q2a"
        try FileManager.default.createDirectory(atPath: half, withIntermediateDirectories: false)
        try MP4Fixtures.write(Array("a.txt\nb.txt\n".utf8), to: half + "/" + Self.manifest)
        try MP4Fixtures.write([5], to: half + "/a.txt")
        // Killed between moving the previous output aside and renaming the new one in (the
        // fallback where the system cannot swap): no `out` at all.
        #expect(rename(scratch + "/out", scratch + "/.out.old-Zr81pQ") == 0)
        #expect(MP4Fixtures.listing(scratch) == [".out.old-Zr81pQ", ".out.out-Kx9Q2a"])

        try AtomicOutputFolder.write([("c.txt", [3])], to: target)
        #expect(MP4Fixtures.listing(scratch) == ["out"])
        #expect(MP4Fixtures.listing(scratch + "/out") == [Self.manifest, "c.txt"])
    }

    @Test("a live writer's hidden folder (locked) is left alone")
    func keepsLiveWritersFolder() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-live")
        defer { MP4Fixtures.remove(scratch) }
        let live = scratch + "/.out.out-Live01"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: false)
        try MP4Fixtures.write(Array("a.txt\n".utf8), to: live + "/" + Self.manifest)
        let fd = open(live, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)

        try AtomicOutputFolder.write([("a.txt", [1])], to: FilePath(scratch + "/out"))
        #expect(MP4Fixtures.listing(scratch) == [".out.out-Live01", "out"])
    }

    #if os(Linux)
    /// W3: with the swap there is no instant without `out` or one of its files. A watcher polls
    /// while writes replace the folder again and again.
    @Test("while the folder is replaced, it is always there, always complete")
    func neverMissingWhileReplaced() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-swap")
        defer { MP4Fixtures.remove(scratch) }
        let target = FilePath(scratch + "/out")
        try AtomicOutputFolder.write([("a.txt", [0]), ("b.txt", [0])], to: target)
        let folder = scratch + "/out", stop = ResultBox<Bool>(), result = ResultBox<(checks: Int, problems: [String])>()
        let watcher = Thread {
            var checks = 0, problems: [String] = []
            while stop.get() != true {
                checks += 1
                // What a player opening the files by path finds. (A listing opened just before a
                // swap reads the previous folder, which is then emptied: not what is at the path.)
                for name in [Self.manifest, "a.txt", "b.txt"] where access(folder + "/" + name, F_OK) != 0 {
                    if problems.count < 5 { problems.append("\(name) missing") }
                }
            }
            result.set((checks, problems))
        }
        watcher.start()
        for round in 1...200 {
            try AtomicOutputFolder.write([("a.txt", [UInt8(round % 256)]), ("b.txt", [UInt8(round % 256)])], to: target)
        }
        stop.set(true)
        while result.get() == nil { usleep(1000) }
        #expect(result.get()!.checks > 0)
        #expect(result.get()!.problems == [])
        #expect(MP4Fixtures.listing(scratch) == ["out"])
    }
    #endif
}
