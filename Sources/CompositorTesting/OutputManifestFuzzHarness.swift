import CompositorCore
import CompositorIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The work of the `manifest` fuzz target (Tests/Fuzz/ManifestFuzz.swift), shared with the tests
/// that replay its seeds and regressions: an output folder written over a previous one whose
/// manifest (`.compositor-output`) is the input, as someone could hand a user a "previous output".
///
/// ```
/// case/victim.txt            the user's; must survive
/// case/sub/victim.txt        the user's; must survive ("sub/../victim.txt", "../case/…")
/// case/out/.compositor-output   the input's manifest (byte 0, bit 0 clear)
/// case/.out.out-Fz0000/…        or a killed writer's hidden folder holding it (bit 0 set)
///        and, with bit 1, a file for each listed plain name
/// ```
///
/// Then `AtomicOutputFolder.write` puts `a.txt` and `b.txt` at `case/out`. Whatever the manifest
/// says: nothing outside `out` and the hidden folders is touched; a write that succeeds leaves
/// exactly the manifest and the two files in `out`; one that fails leaves `out` as it was.
package enum OutputManifestFuzzHarness {
    /// What became of one input.
    package struct Outcome: Sendable {
        /// "written", or the error the write threw.
        package var result = ""
        /// Invariants broken. Empty unless there is a bug.
        package var broken: [String] = []
    }

    static let victim = Array("the user's".utf8)

    /// Runs `input` in `scratch`, an existing folder (its `case` folder is made anew).
    package static func run(_ input: [UInt8], scratch: FilePath) -> Outcome {
        var outcome = Outcome()
        guard let flags = input.first else { return outcome }
        let manifest = Array(input.dropFirst())
        let folder = scratch.appending("case")
        removeTree(folder)
        let out = folder.appending("out"), hidden = folder.appending(".out.out-Fz0000")
        let holder = flags & 1 == 0 ? out : hidden
        for made in [folder, folder.appending("sub"), holder] where !makeFolder(made) {
            outcome.broken.append("could not make \(made)")
            return outcome
        }
        let victims = [folder.appending("victim.txt"), folder.appending("sub").appending("victim.txt")]
        for path in victims {
            if let failure = FuzzScratch.write(victim, to: path) { outcome.broken.append(failure) }
        }
        if let failure = FuzzScratch.write(manifest, to: holder.appending(AtomicOutputFolder.manifestName)) { outcome.broken.append(failure) }
        if flags & 2 != 0 {
            for name in manifest.split(separator: UInt8(ascii: "\n")).prefix(16) where AtomicOutputFolder.isPlainName(Array(name)) {
                _ = FuzzScratch.write([7], to: FilePath(bytes: holder.bytes + [UInt8(ascii: "/")] + name))
            }
        }
        guard outcome.broken.isEmpty else { return outcome }
        let before = folderEntries(out).sorted { $0.lexicographicallyPrecedes($1) }

        do {
            try AtomicOutputFolder.write([("a.txt", [1]), ("b.txt", [2])], to: out)
            outcome.result = "written"
            let names = folderEntries(out).map { String(decoding: $0, as: UTF8.self) }.sorted()
            if names != [AtomicOutputFolder.manifestName, "a.txt", "b.txt"].sorted() { outcome.broken.append("out holds \(names) after the write") }
        } catch {
            outcome.result = error.description
            let after = folderEntries(out).sorted { $0.lexicographicallyPrecedes($1) }
            if after != before { outcome.broken.append("a failed write changed out: \(before.count) entries before, \(after.count) after") }
        }
        for path in victims where (try? ReadableFile.contents(of: path, limit: 1 << 10)) != victim {
            outcome.broken.append("\(path) was deleted or changed")
        }
        return outcome
    }

    private static func makeFolder(_ path: FilePath) -> Bool {
        (try? path.withCPath { mkdir($0, 0o755) }) == 0
    }

    /// Deletes `path` and everything below it (links are deleted, never followed).
    private static func removeTree(_ path: FilePath) {
        var status = stat()
        guard (try? path.withCPath({ lstat($0, &status) })) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            for name in folderEntries(path) { removeTree(FilePath(bytes: path.bytes + [UInt8(ascii: "/")] + name)) }
            _ = try? path.withCPath { rmdir($0) }
        } else {
            _ = try? path.withCPath { unlink($0) }
        }
    }
}
