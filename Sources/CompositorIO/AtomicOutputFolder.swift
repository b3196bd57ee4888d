import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of outputs that appears whole or not at all.
///
/// Every file is written and flushed into a new hidden folder beside the target
/// (`.NAME.out-PID-new`), which then takes the target's name; a previous output is first moved
/// aside and deleted last, and put back if the new one cannot take its place. An existing target is
/// replaced only when every name in it is one `isReplaceable` accepts (files an earlier write of the
/// same kind made); anything else is refused, untouched.
package enum AtomicOutputFolder {
    package static func write(
        _ files: [(name: String, bytes: [UInt8])], to target: FilePath, isReplaceable: (String) -> Bool
    ) throws(FileError) {
        for file in files where file.name.isEmpty || file.name == "." || file.name == ".."
            || file.name.utf8.contains(UInt8(ascii: "/")) || file.name.utf8.contains(0) {
            throw FileError(target, .invalidPath("'\(escapedForDisplay(file.name))' cannot name a file inside the folder"))
        }
        let parent = target.parent
        guard isFolder(parent) else { throw FileError(target, .missingParentFolder(parent)) }
        let replacing = try checkReplaceable(target, isReplaceable: isReplaceable)
        let base = FilePath(bytes: parent.bytes + Array("/.".utf8) + target.lastComponent.bytes + Array(".out-\(getpid())".utf8))
        let fresh = FilePath(bytes: base.bytes + Array("-new".utf8)), previous = FilePath(bytes: base.bytes + Array("-old".utf8))
        removeFolder(fresh)
        guard try fresh.withCPath({ mkdir($0, 0o777) }) == 0 else { throw .system(fresh, "create a folder beside \(target)") }
        do {
            for file in files { try writeFile(file.bytes, to: fresh.appending(file.name)) }
        } catch {
            removeFolder(fresh)
            throw error
        }
        if replacing, try renamePath(target, previous) != 0 {
            let error = FileError.system(target, "move the previous output aside")
            removeFolder(fresh)
            throw error
        }
        guard try renamePath(fresh, target) == 0 else {
            let error = FileError.system(target, "put the new folder in place")
            if replacing { _ = try? renamePath(previous, target) }
            removeFolder(fresh)
            throw error
        }
        if replacing { removeFolder(previous) }
        if let fd = try? parent.withCPath({ open($0, O_RDONLY | O_CLOEXEC) }), fd >= 0 { fsync(fd); close(fd) }
    }

    /// Whether `target` exists (and may be replaced); throws when it is not a folder, or holds
    /// anything `isReplaceable` refuses.
    private static func checkReplaceable(_ target: FilePath, isReplaceable: (String) -> Bool) throws(FileError) -> Bool {
        var status = stat()
        guard try target.withCPath({ lstat($0, &status) }) == 0 else { return false }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw FileError(target, .notFolder(fileKindName(status.st_mode)))
        }
        let others = folderEntries(target).filter { name in
            guard let text = String(validatingUTF8Bytes: name) else { return true }
            return !isReplaceable(text)
        }.map { escapedForDisplay($0) }.sorted()
        guard others.isEmpty else { throw FileError(target, .holdsOtherFiles(others)) }
        return true
    }

    private static func writeFile(_ bytes: [UInt8], to path: FilePath) throws(FileError) {
        let fd = try path.withCPath { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard fd >= 0 else { throw .system(path, "create") }
        defer { close(fd) }
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(FileError) in try writeAll(buffer, to: fd, path: path) } }
        try result.get()
        guard fsync(fd) == 0 else { throw .system(path, "flush to disk") }
    }

    /// Deletes a folder this writer made: its files, then itself (it holds no subfolders).
    private static func removeFolder(_ folder: FilePath) {
        for name in folderEntries(folder) {
            _ = try? FilePath(bytes: folder.bytes + Array("/".utf8) + name).withCPath { unlink($0) }
        }
        _ = try? folder.withCPath { rmdir($0) }
    }
}
