import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of outputs that appears whole or not at all, and that removes only what it wrote.
///
/// Every file is written and flushed into a new hidden folder beside the target
/// (`.NAME.out-XXXXXX`), with a manifest (`.compositor-output`) listing them. The new folder and
/// the target then swap in one step (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)`
/// on Apple systems), so a kill at any instant leaves the previous output or the new one, and the
/// previous one is deleted afterwards, file by file from its manifest.
///
/// An existing target is replaced only when it is empty, or holds exactly what its manifest lists
/// (regular files) and nothing else: a user's file there, even one named like an output, is
/// refused, untouched.
///
/// A writer holds an `flock` on its hidden folder; the next write to the same target deletes the
/// hidden folders nobody holds (those of killed writers). Where the swap is not supported, the
/// previous output is first moved aside (`.NAME.old-XXXXXX`) and the new one renamed in; a writer
/// killed between the two renames leaves no target, and the next write puts the moved-aside one
/// back before anything else.
package enum AtomicOutputFolder {
    /// The manifest's name: one written file name a line.
    package static let manifestName = ".compositor-output"

    /// `swapIfPossible: false` forces the two-rename fallback (for tests of that path).
    package static func write(
        _ files: [(name: String, bytes: [UInt8])], to target: FilePath, swapIfPossible: Bool = true
    ) throws(FileError) {
        let draft = try Draft(target, names: files.map(\.name), swapIfPossible: swapIfPossible)
        for file in files { try draft.write(file.bytes, name: file.name) }
        try draft.commit()
    }

    /// A folder being written: every name is declared up front (the manifest lists them before any
    /// file exists), files are written into the hidden folder (`write`, or any writer given
    /// `path(of:)`), and `commit()` puts the folder in place. A draft not committed is deleted when
    /// it goes away, so a failed write leaves nothing.
    package final class Draft {
        let target: FilePath
        let swapIfPossible: Bool
        let replacing: Bool
        /// The hidden folder the files are written into.
        let folder: FilePath
        private let lock: Int32
        private var finished = false

        package init(_ target: FilePath, names: [String], swapIfPossible: Bool = true) throws(FileError) {
            for name in names where !isPlainName(Array(name.utf8)) {
                throw FileError(target, .invalidPath("'\(escapedForDisplay(name))' cannot name a file inside the folder"))
            }
            let parent = target.parent
            guard isFolder(parent) else { throw FileError(target, .missingParentFolder(parent)) }
            recoverFromKilledWriters(of: target)
            replacing = try checkReplaceable(target)
            (folder, lock) = try makeLockedFolder(prefix: hiddenPrefix(target, "out"))
            self.target = target
            self.swapIfPossible = swapIfPossible
            // The manifest first: whoever finds this folder, after a kill at any point, knows what
            // in it is ours to delete.
            do {
                let manifest = Array((names.map { $0 + "\n" }.joined()).utf8)
                try manifest.withUnsafeBytes { bytes in
                    Result { () throws(FileError) in try writeFile(bytes, to: folder.appending(manifestName)) }
                }.get()
            } catch {
                removeOwnedFolder(folder)
                close(lock)
                finished = true
                throw error
            }
        }

        deinit {
            if !finished { removeOwnedFolder(folder) }
            close(lock)
        }

        /// Where the file `name` goes until the commit.
        package func path(of name: String) -> FilePath { folder.appending(name) }

        /// Files written but not yet flushed to disk: `commit` flushes them all first.
        private var unflushed: [FilePath] = []

        /// Writes the file `name` and starts writing it to disk; `commit` waits for it. Flushing
        /// each file as it is written would leave the disk idle while the next one is made and
        /// the writer idle while the disk works (a packaging writes hundreds of segments).
        package func write(_ bytes: [UInt8], name: String) throws(FileError) {
            try bytes.withUnsafeBytes { buffer in Result { () throws(FileError) in try write(buffer, name: name) } }.get()
        }

        package func write(_ bytes: OutputBytes, name: String) throws(FileError) {
            try bytes.withUnsafeBytes { buffer in Result { () throws(FileError) in try write(buffer, name: name) } }.get()
        }

        private func write(_ bytes: UnsafeRawBufferPointer, name: String) throws(FileError) {
            let path = path(of: name)
            try writeFile(bytes, to: path, flush: false)
            unflushed.append(path)
        }

        /// Flushes every file and the folder, then puts the folder in place of the target, in one
        /// step where the system can.
        package func commit() throws(FileError) {
            finished = true
            do {
                for path in unflushed { try flush(path) }
                unflushed = []
                syncFolder(folder)
                try moveIntoPlace(folder, target, replacing: replacing, swap: swapIfPossible)
            } catch {
                removeOwnedFolder(folder)
                throw error
            }
            syncFolder(target.parent)
        }
    }

    // MARK: - Replacing

    /// Whether `target` exists, to be replaced. Throws when it is not a folder, or holds anything
    /// its manifest does not list as a regular file.
    private static func checkReplaceable(_ target: FilePath) throws(FileError) -> Bool {
        var status = stat()
        guard try target.withCPath({ lstat($0, &status) }) == 0 else { return false }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw FileError(target, .notFolder(fileKindName(status.st_mode)))
        }
        let entries = folderEntries(target)
        let listed = Set(manifest(of: target))
        // A manifest is ours only if every entry names a file inside its folder: a folder handed
        // over with `../victim.txt` in its manifest must not make the next write delete that file.
        if let foreign = listed.first(where: { !isPlainName($0) }) {
            throw FileError(target, .foreignManifest(escapedForDisplay(foreign)))
        }
        let manifestBytes = Array(manifestName.utf8)
        let others = entries.filter { name in
            !((name == manifestBytes || listed.contains(name)) && isRegularFile(FilePath(bytes: target.bytes + [UInt8(ascii: "/")] + name)))
        }
        guard others.isEmpty else {
            throw FileError(target, .holdsOtherFiles(others.map { escapedForDisplay($0) }.sorted()))
        }
        return true
    }

    /// The names `folder`'s manifest lists (none when it has no readable manifest).
    private static func manifest(of folder: FilePath) -> [[UInt8]] {
        guard let bytes = try? ReadableFile.contents(of: folder.appending(manifestName), limit: 1 << 20) else { return [] }
        return bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    /// Whether `name` names a file directly inside a folder, other than the manifest: not empty,
    /// `.` or `..`, and without `/`, NUL or a line break (the manifest's separator).
    package static func isPlainName(_ name: [UInt8]) -> Bool {
        !(name.isEmpty || name == [UInt8(ascii: ".")] || name == Array("..".utf8) || name == Array(manifestName.utf8)
            || name.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 || $0 == UInt8(ascii: "\n") }))
    }

    /// Puts `fresh` at `target`: a swap when `target` exists and the system can, else renames.
    private static func moveIntoPlace(_ fresh: FilePath, _ target: FilePath, replacing: Bool, swap: Bool) throws(FileError) {
        guard replacing else {
            guard try renamePath(fresh, target) == 0 else { throw .system(target, "put the new folder in place") }
            return
        }
        switch swap ? try exchange(fresh, target) : ENOSYS {
        case 0:
            // `fresh` now holds the previous output.
            removeOwnedFolder(fresh)
            return
        case let code where code == EINVAL || code == ENOSYS || code == ENOTSUP:
            break
        case let code:
            throw .system(target, "swap the new folder into place", code: code)
        }
        let aside = try unusedName(prefix: hiddenPrefix(target, "old"))
        // Locked before it moves (the lock goes with the folder), so a concurrent writer's
        // recovery never takes it for a killed writer's and puts it back.
        let lock = try target.withCPath { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { if lock >= 0 { close(lock) } }
        if lock >= 0 { while flock(lock, LOCK_EX) != 0, errno == EINTR {} }
        guard try renamePath(target, aside) == 0 else { throw .system(target, "move the previous output aside") }
        guard try renamePath(fresh, target) == 0 else {
            let error = FileError.system(target, "put the new folder in place")
            _ = try? renamePath(aside, target)
            throw error
        }
        removeOwnedFolder(aside)
    }

    /// Swaps two paths in one step; 0, or the `errno` of the failure.
    private static func exchange(_ a: FilePath, _ b: FilePath) throws(FileError) -> Int32 {
        try a.withCPath { (from) throws(FileError) -> Int32 in
            try b.withCPath { to -> Int32 in
                #if os(Linux)
                guard let renameat2 = LinuxCalls.renameat2 else { return ENOSYS }
                return renameat2(AT_FDCWD, from, AT_FDCWD, to, LinuxCalls.renameExchange) == 0 ? 0 : errno
                #elseif canImport(Darwin)
                return renamex_np(from, to, UInt32(RENAME_SWAP)) == 0 ? 0 : errno
                #else
                return ENOSYS
                #endif
            }
        }
    }

    // MARK: - Hidden folders

    /// `PARENT/.NAME.KIND-`: what the hidden folders of writes to `target` start with.
    private static func hiddenPrefix(_ target: FilePath, _ kind: String) -> FilePath {
        FilePath(bytes: target.parent.bytes + Array("/.".utf8) + target.lastComponent.bytes + Array(".\(kind)-".utf8))
    }

    /// A new `PREFIX` + 6 random characters folder, held locked (the descriptor is returned).
    private static func makeLockedFolder(prefix: FilePath) throws(FileError) -> (FilePath, Int32) {
        for _ in 0..<100 {
            let name = randomlySuffixed(prefix)
            guard try name.withCPath({ mkdir($0, 0o777) }) == 0 else {
                if errno == EEXIST { continue }
                throw .system(name, "create a folder beside \(prefix.parent)")
            }
            let fd = try name.withCPath { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            guard fd >= 0 else {
                let error = FileError.system(name, "open the new folder")
                _ = try? name.withCPath { rmdir($0) }
                throw error
            }
            while flock(fd, LOCK_EX) != 0, errno == EINTR {}
            return (name, fd)
        }
        throw FileError(prefix, .system(operation: "create a folder", message: "every name tried was taken"))
    }

    /// A `PREFIX` + 6 random characters name that nothing has yet.
    private static func unusedName(prefix: FilePath) throws(FileError) -> FilePath {
        for _ in 0..<100 {
            let name = randomlySuffixed(prefix)
            var status = stat()
            if try name.withCPath({ lstat($0, &status) }) != 0 { return name }
        }
        throw FileError(prefix, .system(operation: "find a free name", message: "every name tried was taken"))
    }

    /// Deletes the hidden folders killed writers of `target` left, after putting back a previous
    /// output one of them had moved aside and not replaced. Live writers' folders are locked, and kept.
    private static func recoverFromKilledWriters(of target: FilePath) {
        let parent = target.parent, entries = folderEntries(parent)
        for kind in ["old", "out"] {
            let namePrefix = hiddenPrefix(target, kind).lastComponent.bytes
            for name in entries where name.count == namePrefix.count + 6 && name.starts(with: namePrefix) {
                let folder = FilePath(bytes: parent.bytes + [UInt8(ascii: "/")] + name)
                guard let fd = try? folder.withCPath({ open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) }), fd >= 0 else { continue }
                defer { close(fd) }
                guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
                var status = stat()
                if kind == "old", (try? target.withCPath({ lstat($0, &status) })) != 0, (try? renamePath(folder, target)) == 0 {
                    continue
                }
                removeOwnedFolder(folder)
            }
        }
    }

    // MARK: - Files

    /// Creates `path` with `bytes`, flushed to disk, or (`flush: false`) with their writing to
    /// disk started, for `flush(_:)` to wait for.
    private static func writeFile(_ bytes: UnsafeRawBufferPointer, to path: FilePath, flush: Bool = true) throws(FileError) {
        let fd = try path.withCPath { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard fd >= 0 else { throw .system(path, "create") }
        defer { close(fd) }
        try reserveSpace(UInt64(bytes.count), for: fd, path: path)
        try writeAll(bytes, to: fd, path: path)
        if flush {
            guard fsync(fd) == 0 else { throw .system(path, "flush to disk") }
        } else {
            #if os(Linux)
            if let syncFileRange = LinuxCalls.syncFileRange { _ = syncFileRange(fd, 0, 0, LinuxCalls.startWriteback) }
            #endif
        }
    }

    /// Waits until the file at `path` is on disk.
    private static func flush(_ path: FilePath) throws(FileError) {
        let fd = try path.withCPath { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .system(path, "open to flush") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .system(path, "flush to disk") }
    }

    /// Deletes a folder a write made: the regular files its manifest lists (plain names only:
    /// never a path out of the folder), the manifest, then the folder itself if that emptied it.
    /// Anything else in it stays.
    private static func removeOwnedFolder(_ folder: FilePath) {
        for name in manifest(of: folder).filter(isPlainName) + [Array(manifestName.utf8)] {
            let path = FilePath(bytes: folder.bytes + [UInt8(ascii: "/")] + name)
            if isRegularFile(path) { _ = try? path.withCPath { unlink($0) } }
        }
        _ = try? folder.withCPath { rmdir($0) }
    }
}
