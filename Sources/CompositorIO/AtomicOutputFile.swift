import CompositorCore
import Dispatch
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
///   dies, so nothing is left. At commit a new output is linked in under its own name in one step
///   (`linkat` through `/proc/self/fd`); one replacing a file gets a hidden name for the instant
///   before the rename.
/// - Elsewhere, or where the file system refuses `O_TMPFILE`, it is named `.NAME.partial-XXXXXX`
///   (`mkstemp`), and so is the linked file of the Linux path during that instant.
/// A named temporary file is held under an exclusive `flock` by its writer, and each new
/// `AtomicOutputFile` for a destination deletes that destination's named temporaries whose lock
/// nobody holds: those of writers that died. Live writers (concurrent renders) are never touched.
///
/// One write may run on a thread of its own (`startWrite`) while the caller makes the next bytes;
/// every other call waits for it first, so the file's state is only ever touched by one thread
/// at a time (hence `@unchecked Sendable`).
package final class AtomicOutputFile: @unchecked Sendable {
    package let path: FilePath
    /// Where the bytes are until `commit()`: the named temporary file, or, for an unnamed one,
    /// the `/proc/self/fd` path that names it.
    package private(set) var temporaryPath: FilePath
    private var descriptor: Int32
    private var committed = false
    /// Bytes written so far, and how far writeback to disk has been started.
    private var written: Int64 = 0
    private var writebackStarted: Int64 = 0
    /// Writeback is started in steps of this size, so `commit`'s `fsync` finds little left to do.
    private static let writebackStep: Int64 = 8 << 20
    /// What Linux moves in one step of `copy_file_range` between files: a pipe's 16 pages.
    private static let spliceStep: UInt64 = 64 << 10
    /// Whether the temporary file has a name in the folder that `discard()` must remove.
    private var isNamed: Bool
    /// The write `startWrite` began, if it has not been waited for.
    private var backgroundWrite: BackgroundWrite?
    private lazy var writingQueue = DispatchQueue(label: "Compositor.AtomicOutputFile")

    /// Refuses a `path` that is not a new name or a regular file, or that is one of `inputs`
    /// (`OutputDestination`). `unnamedIfPossible: false` forces the named temporary file (for
    /// tests of that path).
    package init(
        path: FilePath, inputs: [(path: FilePath, identity: FileIdentity)] = [], unnamedIfPossible: Bool = true
    ) throws(FileError) {
        self.path = path
        let folder = path.parent
        try OutputDestination.check(path, against: inputs)
        let prefix = Self.temporaryPrefix(for: path)
        Self.removeStaleTemporaryFiles(prefix: prefix)

        #if os(Linux)
        // Unnamed: a killed process leaves nothing. Mode 0666 less the umask, as for any new file.
        let unnamed = unnamedIfPossible
            ? try folder.withCPath { open($0, Self.linuxTemporaryFileFlag | O_WRONLY | O_CLOEXEC, 0o666) } : -1
        if unnamed >= 0 {
            descriptor = unnamed
            temporaryPath = FilePath("/proc/self/fd/\(unnamed)")
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

    /// Sets aside `count` bytes of disk for what is to be written (see `reserveSpace`).
    package func reserve(_ count: UInt64) throws(FileError) {
        try reserveSpace(count, for: descriptor, path: path)
    }

    /// Appends all of `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        try waitForWrite()
        try writeNow(bytes)
    }

    /// Writes `bytes` at the end, on the calling thread (see `startWrite`).
    private func writeNow(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        try writeAll(bytes, to: descriptor, path: path)
        advance(by: Int64(bytes.count))
    }

    /// Starts appending `bytes` on another thread and returns; the next call on this file waits
    /// until they are written (and throws if they could not be). `bytes` must stay as they are
    /// until then. The kernel's copy into the file then runs beside the making of the next bytes
    /// (a transport stream source's demuxing, in a render).
    package func startWrite(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        try waitForWrite()
        let write = BackgroundWrite()
        backgroundWrite = write
        let address = UInt(bitPattern: bytes.baseAddress), count = bytes.count
        writingQueue.async { [self] in
            do throws(FileError) {
                try writeNow(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count))
            } catch {
                write.failure = error
            }
            write.done.signal()
        }
    }

    /// Waits for the write `startWrite` began; throws its error.
    private func waitForWrite() throws(FileError) {
        guard let write = backgroundWrite else { return }
        backgroundWrite = nil
        write.done.wait()
        if let failure = write.failure { throw failure }
    }

    /// A write on the writing thread: its error is set before `done` is signalled, and read after.
    private final class BackgroundWrite: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var failure: FileError?
    }

    /// Appends `length` bytes of `source` from `offset`: in the kernel where it can
    /// (`copy_file_range` on Linux), otherwise through `buffer`.
    package func append(from source: ReadableFile, offset: UInt64, length: UInt64, buffer: UnsafeMutableRawBufferPointer) throws(FileError) {
        try waitForWrite()
        // A remote source's bytes a render streams are written from memory (see `SpoolFiller`).
        let staged = try source.copyStaged(offset..<(offset + length)) { (bytes) throws(FileError) in try writeNow(bytes) }
        guard staged < length else { return }
        let offset = offset + staged, length = length - staged
        try source.prepare(offset: offset, length: length)
        var done: UInt64 = 0
        #if os(Linux)
        if let copyFileRange = LinuxCalls.copyFileRange {
            // Linux copies 16 pages a step. When the source and the output are at the same page
            // phase (the stitcher's layout sees to it), a first call ending on a multiple of
            // 64 KiB of the output makes every later step fill 64 KiB of it whole: with the
            // phase, copying takes about 0.7 times as long (`Benchmarks/render`).
            let toBoundary = Self.spliceStep - UInt64(written) % Self.spliceStep
            var count = length > Self.spliceStep && toBoundary < Self.spliceStep ? toBoundary : min(length, 1 << 30)
            while done < length {
                var inputOffset = Int64(offset + done)
                let n = copyFileRange(source.descriptor, &inputOffset, descriptor, nil, Int(count), 0)
                if n < 0 {
                    if errno == EINTR { continue }
                    // Not possible between these files (other file systems on old kernels...): copy below.
                    if [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP, EBADF].contains(errno) { break }
                    throw .system(path, "copy from \(source.path)")
                }
                if n == 0 { throw Self.sourceEnded(source, at: offset + done) }
                done += UInt64(n)
                advance(by: Int64(n))
                count = min(length - done, 1 << 30)
            }
        }
        #endif
        while done < length {
            let count = Int(min(UInt64(buffer.count), length - done))
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            let got = try source.read(into: slice, at: offset + done)
            guard got == count else { throw Self.sourceEnded(source, at: offset + done + UInt64(got)) }
            try write(UnsafeRawBufferPointer(slice))
            done += UInt64(count)
        }
    }

    private static func sourceEnded(_ source: ReadableFile, at offset: UInt64) -> FileError {
        FileError(source.path, .system(operation: "copy samples", message: "the file ended at byte \(offset), before the samples it lists"))
    }

    /// Counts written bytes and, on Linux, starts writing full steps back to disk.
    private func advance(by count: Int64) {
        written += count
        #if os(Linux)
        if let syncFileRange = LinuxCalls.syncFileRange, written - writebackStarted >= Self.writebackStep {
            _ = syncFileRange(descriptor, writebackStarted, written - writebackStarted, LinuxCalls.startWriteback)
            writebackStarted = written
        }
        #endif
    }

    package func write(_ bytes: [UInt8]) throws(FileError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileError) in try write(buffer) }
        }
        try result.get()
    }

    /// Flushes the data to disk and renames the temporary file to `path`, replacing what was there.
    package func commit() throws(FileError) {
        try waitForWrite()
        guard fsync(descriptor) == 0 else {
            throw .system(path, "flush to disk")
        }
        // A new output gets its name in one step: no hidden copy can be left between a link and
        // a rename. Linking fails when the destination exists (or appeared meanwhile): replace it.
        var linkedInPlace = false
        if !isNamed { linkedInPlace = try linkUnnamedFile(to: path) == 0 }
        if !linkedInPlace {
            if !isNamed { try giveTemporaryFileAName() }
            guard try renamePath(temporaryPath, path) == 0 else {
                throw .system(path, "rename the finished file into place")
            }
        }
        committed = true
        let closed = close(descriptor)
        descriptor = -1
        syncFolder(path.parent)
        guard closed == 0 else {
            throw .system(path, "close")
        }
    }

    /// Closes and deletes the temporary file, unless it was committed.
    package func discard() {
        try? waitForWrite()
        if !committed, isNamed { _ = try? temporaryPath.withCPath { unlink($0) } }
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
    package static func temporaryPrefix(for path: FilePath) -> FilePath {
        let folder = path.parent
        let name = path.lastComponent.bytes
        let location: [UInt8] = folder == "." && !path.bytes.starts(with: Array("./".utf8)) ? []
            : (folder == "/" ? Array("/".utf8) : folder.bytes + Array("/".utf8))
        return FilePath(bytes: location + Array(".".utf8) + name + Array(".partial-".utf8))
    }

    /// A new `PREFIX` + 6 random characters file, locked: the lock is what tells a stale temporary
    /// file (its writer died) from a live one. A cleaner may delete the file between `mkstemp` and
    /// `flock`; the name is then checked to still be this file, and another is made if not. On a
    /// file system without locks the file stays unlocked, and cleaners, unable to lock it either,
    /// leave it alone.
    private static func createNamedTemporaryFile(prefix: FilePath, destination: FilePath) throws(FileError) -> (Int32, FilePath) {
        guard !prefix.bytes.contains(0) else { throw FileError(destination, .invalidPath("the path contains a NUL byte")) }
        for _ in 0..<100 {
            var template = (prefix.bytes + Array("XXXXXX".utf8)).map { CChar(bitPattern: $0) } + [0]
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw .system(destination, "create a temporary file in \(destination.parent)") }
            let name = FilePath(bytes: template.dropLast().map { UInt8(bitPattern: $0) })
            while flock(fd, LOCK_EX) != 0, errno == EINTR {}
            var opened = stat(), named = stat()
            if fstat(fd, &opened) == 0, try name.withCPath({ stat($0, &named) }) == 0,
               opened.st_dev == named.st_dev, opened.st_ino == named.st_ino {
                return (fd, name)
            }
            close(fd)
        }
        throw FileError(destination, .system(operation: "create a temporary file in \(destination.parent)",
                                             message: "each one made was removed at once by another process"))
    }

    /// Links the unnamed temporary file into the folder under a locked `.NAME.partial-XXXXXX`
    /// name, ready to be renamed over the destination.
    private func giveTemporaryFileAName() throws(FileError) {
        let prefix = Self.temporaryPrefix(for: path)
        // Locked before it has a name, so no cleaner can ever take it for a dead writer's (where
        // the file system has no locks, cleaners cannot lock it either).
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        var attempts = 0
        while true {
            let name = randomlySuffixed(prefix)
            if try linkUnnamedFile(to: name) == 0 {
                temporaryPath = name
                isNamed = true
                return
            }
            let code = errno
            attempts += 1
            guard code == EEXIST, attempts < 100 else {
                throw .system(path, "name the finished file in \(path.parent)", code: code)
            }
        }
    }

    /// Gives the unnamed temporary file the name `name` (`linkat` through `/proc/self/fd`); 0, or -1
    /// with `errno` set.
    private func linkUnnamedFile(to name: FilePath) throws(FileError) -> Int32 {
        try temporaryPath.withCPath { (from) throws(FileError) in
            try name.withCPath { linkat(AT_FDCWD, from, AT_FDCWD, $0, AT_SYMLINK_FOLLOW) }
        }
    }

    /// Deletes `PREFIX` + 6 characters files that no live writer holds locked. Best effort: a
    /// file that cannot be opened or locked is left alone.
    package static func removeStaleTemporaryFiles(prefix: FilePath) {
        let slash = prefix.bytes.lastIndex(of: UInt8(ascii: "/"))
        let location = slash.map { Array(prefix.bytes[...$0]) } ?? []
        let namePrefix = slash.map { Array(prefix.bytes[($0 + 1)...]) } ?? prefix.bytes
        let stale = folderEntries(FilePath(bytes: location.isEmpty ? Array(".".utf8) : location))
            .filter { $0.starts(with: namePrefix) && $0.count == namePrefix.count + 6 }
            .map { FilePath(bytes: location + $0) }
        for candidate in stale {
            guard let fd = try? candidate.withCPath({ open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW) }), fd >= 0 else { continue }
            var status = stat()
            if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 {
                _ = try? candidate.withCPath { unlink($0) }
            }
            close(fd)
        }
    }
}
