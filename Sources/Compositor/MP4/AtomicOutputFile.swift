#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An output that appears all at once or not at all: bytes go to a temporary file in the
/// destination's folder, which `commit()` flushes to disk (`fsync`) and renames over the
/// destination. Until then, and after any failure, the temporary file is deleted by `discard()`
/// or `deinit`, so a failed write leaves nothing behind and what was at the destination stays.
///
/// A process can also die without a chance to clean up (SIGKILL, a crash, power loss):
/// - On Linux the temporary file is unnamed (`O_TMPFILE`): the kernel frees it when the process
///   dies, so nothing is left. At commit it gets a name (`linkat` through `/proc/self/fd`) for the
///   instant before the rename.
/// - Elsewhere, or where the file system refuses `O_TMPFILE`, it is named `.NAME.partial-XXXXXX`
///   (`mkstemp`), and so is the linked file of the Linux path during that instant.
/// A named temporary file is held under an exclusive `flock` by its writer, and each new
/// `AtomicOutputFile` for a destination deletes that destination's named temporaries whose lock
/// nobody holds: those of writers that died. Live writers (concurrent renders) are never touched.
final class AtomicOutputFile {
    let path: String
    /// Where the bytes are until `commit()`: the named temporary file, or, for an unnamed one,
    /// the `/proc/self/fd` path that names it.
    private(set) var temporaryPath: String
    private var descriptor: Int32
    private var committed = false
    /// Bytes written so far, and how far writeback to disk has been started.
    private var written: Int64 = 0
    private var writebackStarted: Int64 = 0
    /// Writeback is started in steps of this size, so `commit`'s `fsync` finds little left to do.
    private static let writebackStep: Int64 = 32 << 20
    /// Whether the temporary file has a name in the folder that `discard()` must remove.
    private var isNamed: Bool

    /// `unnamedIfPossible: false` forces the named temporary file (for tests of that path).
    init(path: String, unnamedIfPossible: Bool = true) throws(MP4Error) {
        self.path = path
        let folder = parentFolder(of: path)
        var status = stat()
        guard stat(folder, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw .missingOutputFolder(path: folder)
        }
        let prefix = Self.temporaryPrefix(for: path)
        Self.removeStaleTemporaryFiles(prefix: prefix)

        #if os(Linux)
        // Unnamed: a killed process leaves nothing. Mode 0666 less the umask, as for any new file.
        let unnamed = unnamedIfPossible ? open(folder, Self.linuxTemporaryFileFlag | O_WRONLY | O_CLOEXEC, 0o666) : -1
        if unnamed >= 0 {
            descriptor = unnamed
            temporaryPath = "/proc/self/fd/\(unnamed)"
            isNamed = false
            return
        }
        // EOPNOTSUPP, EISDIR or EINVAL: this file system (or kernel) has no O_TMPFILE.
        #endif

        let (fd, name) = try Self.createNamedTemporaryFile(prefix: prefix, destination: path)
        descriptor = fd
        temporaryPath = name
        isNamed = true
        // mkstemp creates 0600; give the result the permissions an ordinary new file gets.
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
    }

    deinit { discard() }

    /// Appends all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(MP4Error) {
        var done = 0
        while done < bytes.count {
            let n = Glibc_write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(file: path, operation: "write", reason: systemErrorMessage(errno))
            }
            done += n
        }
        advance(by: Int64(done))
    }

    /// Appends `length` bytes of `source` from `offset`: in the kernel where it can
    /// (`copy_file_range` on Linux), otherwise through `buffer`.
    func append(from source: ReadableFile, offset: UInt64, length: UInt64, buffer: UnsafeMutableRawBufferPointer) throws(MP4Error) {
        var done: UInt64 = 0
        #if os(Linux)
        if let copyFileRange = KernelCopy.copyFileRange {
            while done < length {
                var inputOffset = Int64(offset + done)
                let n = copyFileRange(source.descriptor, &inputOffset, descriptor, nil, Int(min(length - done, 1 << 30)), 0)
                if n < 0 {
                    if errno == EINTR { continue }
                    // Not possible between these files (other file systems on old kernels...): copy below.
                    if [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP, EBADF].contains(errno) { break }
                    throw .io(file: path, operation: "copy from \(source.path)", reason: systemErrorMessage(errno))
                }
                if n == 0 {
                    throw .io(file: source.path, operation: "copy samples",
                              reason: "the file ended at byte \(offset + done), before the samples it lists")
                }
                done += UInt64(n)
                advance(by: Int64(n))
            }
        }
        #endif
        while done < length {
            let count = Int(min(UInt64(buffer.count), length - done))
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            let got = try source.read(into: slice, at: offset + done)
            guard got == count else {
                throw .io(file: source.path, operation: "copy samples",
                          reason: "the file ended at byte \(offset + done + UInt64(got)), before the samples it lists")
            }
            try write(UnsafeRawBufferPointer(slice))
            done += UInt64(count)
        }
    }

    /// Counts written bytes and, on Linux, starts writing full steps back to disk.
    private func advance(by count: Int64) {
        written += count
        #if os(Linux)
        if let syncFileRange = KernelCopy.syncFileRange, written - writebackStarted >= Self.writebackStep {
            _ = syncFileRange(descriptor, writebackStarted, written - writebackStarted, KernelCopy.startWriteback)
            writebackStarted = written
        }
        #endif
    }

    func write(_ bytes: [UInt8]) throws(MP4Error) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(MP4Error) in try write(buffer) }
        }
        try result.get()
    }

    /// Flushes the data to disk and renames the temporary file to `path`, replacing what was there.
    func commit() throws(MP4Error) {
        guard fsync(descriptor) == 0 else {
            throw .io(file: path, operation: "flush to disk", reason: systemErrorMessage(errno))
        }
        if !isNamed {
            try giveTemporaryFileAName()
        }
        guard rename(temporaryPath, path) == 0 else {
            throw .io(file: path, operation: "rename the finished file into place", reason: systemErrorMessage(errno))
        }
        committed = true
        let closed = close(descriptor)
        descriptor = -1
        // The rename itself is durable only once the folder is flushed too.
        let folder = open(parentFolder(of: path), O_RDONLY | O_CLOEXEC)
        if folder >= 0 { fsync(folder); close(folder) }
        guard closed == 0 else {
            throw .io(file: path, operation: "close", reason: systemErrorMessage(errno))
        }
    }

    /// Closes and deletes the temporary file, unless it was committed.
    func discard() {
        if !committed, isNamed { unlink(temporaryPath) }
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        committed = true
    }

    // MARK: - Temporary files

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift's Glibc module does not export;
    /// `__O_TMPFILE` is 020000000 on every architecture Swift runs on.
    #if os(Linux)
    private static let linuxTemporaryFileFlag: Int32 = 0o20000000 | O_DIRECTORY
    #endif

    /// `folder/.NAME.partial-`: what this destination's named temporary files start with.
    static func temporaryPrefix(for path: String) -> String {
        let folder = parentFolder(of: path)
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? "output"
        let location = folder == "." && !path.hasPrefix("./") ? "" : (folder == "/" ? "/" : folder + "/")
        return location + ".\(name).partial-"
    }

    /// A new `PREFIX` + 6 random characters file, locked: the lock is what tells a stale temporary
    /// file (its writer died) from a live one. A cleaner may delete the file between `mkstemp` and
    /// `flock`; the name is then checked to still be this file, and another is made if not. On a
    /// file system without locks the file stays unlocked, and cleaners, unable to lock it either,
    /// leave it alone.
    private static func createNamedTemporaryFile(prefix: String, destination: String) throws(MP4Error) -> (Int32, String) {
        for _ in 0..<100 {
            var template = Array((prefix + "XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else {
                throw .io(file: destination, operation: "create a temporary file in \(parentFolder(of: destination))",
                          reason: systemErrorMessage(errno))
            }
            let name = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            while flock(fd, LOCK_EX) != 0, errno == EINTR {}
            var opened = stat(), named = stat()
            if fstat(fd, &opened) == 0, stat(name, &named) == 0, opened.st_dev == named.st_dev, opened.st_ino == named.st_ino {
                return (fd, name)
            }
            close(fd)
        }
        throw .io(file: destination, operation: "create a temporary file in \(parentFolder(of: destination))",
                  reason: "each one made was removed at once by another process")
    }

    /// Links the unnamed temporary file into the folder under a locked `.NAME.partial-XXXXXX`
    /// name, ready to be renamed over the destination.
    private func giveTemporaryFileAName() throws(MP4Error) {
        let prefix = Self.temporaryPrefix(for: path)
        // Locked before it has a name, so no cleaner can ever take it for a dead writer's (where
        // the file system has no locks, cleaners cannot lock it either).
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        var attempts = 0
        while true {
            var suffix = ""
            for _ in 0..<6 { suffix.append(Self.nameCharacters.randomElement()!) }
            let name = prefix + suffix
            if linkat(AT_FDCWD, temporaryPath, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 {
                temporaryPath = name
                isNamed = true
                return
            }
            let code = errno
            attempts += 1
            guard code == EEXIST, attempts < 100 else {
                throw .io(file: path, operation: "name the finished file in \(parentFolder(of: path))",
                          reason: systemErrorMessage(code))
            }
        }
    }

    private static let nameCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// Deletes `PREFIX` + 6 characters files that no live writer holds locked. Best effort: a
    /// file that cannot be opened or locked is left alone.
    static func removeStaleTemporaryFiles(prefix: String) {
        let slash = prefix.lastIndex(of: "/")
        let location = slash.map { String(prefix[...$0]) } ?? ""
        let namePrefix = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        guard let directory = opendir(location.isEmpty ? "." : location) else { return }
        var stale: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name.hasPrefix(namePrefix), name.utf8.count == namePrefix.utf8.count + 6 else { continue }
            stale.append(location + name)
        }
        closedir(directory)
        for candidate in stale {
            let fd = open(candidate, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            var status = stat()
            if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(candidate)
            }
            close(fd)
        }
    }
}

/// The folder part of a path: `"out/a.mp4"` -> `"out"`, `"a.mp4"` -> `"."`, `"/a.mp4"` -> `"/"`.
func parentFolder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
}

// `write` is shadowed inside the class by the method of the same name.
@inline(__always)
private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #else
    return Glibc.write(fd, buffer, count)
    #endif
}
