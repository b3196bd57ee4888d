import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The POSIX calls the readers and writers share, in the library's terms: paths are `FilePath`s,
// failures `FileError`s.

package func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// What kind of file a `stat` mode is, for messages.
package func fileKindName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFREG: return "a regular file"
    case S_IFDIR: return "a folder"
    case S_IFIFO: return "a FIFO"
    case S_IFCHR, S_IFBLK: return "a device"
    case S_IFSOCK: return "a socket"
    case S_IFLNK: return "a symbolic link"
    default: return "a special file"
    }
}

/// Whether `path` names a folder (following links).
package func isFolder(_ path: FilePath) -> Bool {
    var status = stat()
    return (try? path.withCPath({ stat($0, &status) })) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
}

/// Whether `path` names a regular file (not following a link).
package func isRegularFile(_ path: FilePath) -> Bool {
    var status = stat()
    return (try? path.withCPath({ lstat($0, &status) })) == 0 && (status.st_mode & S_IFMT) == S_IFREG
}

/// Deletes the regular files `names` (plain names, see `AtomicOutputFolder.isPlainName`) in
/// `folder`, then `folder` if that emptied it. Best effort: what cannot go stays.
package func removeRegularFiles(_ names: [String], folder: FilePath) {
    for name in names where AtomicOutputFolder.isPlainName(Array(name.utf8)) {
        let path = FilePath(bytes: folder.bytes + [UInt8(ascii: "/")] + Array(name.utf8))
        if isRegularFile(path) { _ = try? path.withCPath { unlink($0) } }
    }
    _ = try? folder.withCPath { rmdir($0) }
}

/// Writes all of `bytes` to `fd`, retrying `EINTR`; a failure names `path`.
package func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: FilePath) throws(FileError) {
    guard let base = bytes.baseAddress else { return }   // nothing to write
    var done = 0
    while done < bytes.count {
        let n = systemWrite(fd, base + done, bytes.count - done)
        if n < 0 {
            if errno == EINTR { continue }
            throw .system(path, "write")
        }
        done += n
    }
}

/// Sets aside `count` bytes of disk from the start of the file open at `fd`, its size unchanged,
/// where the system can (Linux's `fallocate`; elsewhere, or on file systems without it, nothing
/// happens). Throws when the disk has not that much space: a write that cannot fit fails before
/// it starts. On ext4 writing into blocks set aside costs the kernel about a quarter less than
/// allocating them as it goes (`Benchmarks/render`, the byte-heavy programmes).
package func reserveSpace(_ count: UInt64, for fd: Int32, path: FilePath) throws(FileError) {
    #if os(Linux)
    guard let fallocate = LinuxCalls.fallocate, count > 0, let length = Int64(exactly: count) else { return }
    while fallocate(fd, LinuxCalls.keepSize, 0, length) != 0 {
        if errno == EINTR { continue }
        if errno == ENOSPC || errno == EDQUOT || errno == EFBIG { throw .system(path, "set aside \(count) bytes on disk") }
        return
    }
    #endif
}

@inline(__always)
package func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #else
    return Glibc.write(fd, buffer, count)
    #endif
}

extension FilePath {
    /// Calls `body` with the path as a C string; a path with a NUL byte names no file.
    package func withCPath<R>(_ body: (UnsafePointer<CChar>) throws(FileError) -> R) throws(FileError) -> R {
        let bytes = self.bytes
        guard !bytes.contains(0) else { throw FileError(self, .invalidPath("the path contains a NUL byte")) }
        guard !bytes.isEmpty else { throw FileError(self, .invalidPath("an empty path")) }
        let cString = bytes.map { CChar(bitPattern: $0) } + [0]
        return try body(cString)
    }
}

/// The names in `folder` (without `.` and `..`), as bytes; empty when it cannot be listed.
package func folderEntries(_ folder: FilePath) -> [[UInt8]] {
    guard let directory = try? folder.withCPath({ opendir($0) }) else { return [] }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    // The name is read in place, up to its NUL: glibc allocates each entry only as long as its
    // name needs, so copying the whole `dirent` (`entry.pointee`) reads past it.
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
    while let entry = readdir(directory) {
        let start = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
        let name = Array(UnsafeRawBufferPointer(start: start, count: strlen(start)))
        if name != Array(".".utf8), name != Array("..".utf8) { names.append(name) }
    }
    return names
}

/// `prefix` + 6 random letters and digits: a name for a temporary file or folder.
package func randomlySuffixed(_ prefix: FilePath) -> FilePath {
    let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    return FilePath(bytes: prefix.bytes + (0..<6).map { _ in characters[Int.random(in: 0..<characters.count)] })
}

/// Flushes `folder`'s entries to disk: a rename into it is durable only once it is. Best effort.
package func syncFolder(_ folder: FilePath) {
    if let fd = try? folder.withCPath({ open($0, O_RDONLY | O_CLOEXEC) }), fd >= 0 { fsync(fd); close(fd) }
}

/// `rename(2)` between two paths.
package func renamePath(_ from: FilePath, _ to: FilePath) throws(FileError) -> Int32 {
    try from.withCPath { (source) throws(FileError) in try to.withCPath { rename(source, $0) } }
}

/// The working folder, as the bytes the system gives (`.` when it cannot be read): what relative
/// paths are opened against.
package func currentFolder() -> FilePath {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return FilePath(bytes: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
}
