#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An output that appears all at once or not at all: bytes go to a hidden temporary file in the
/// destination's folder, which `commit()` flushes to disk (`fsync`) and renames over the
/// destination. Until then, and after any failure, the temporary file is deleted by `discard()`
/// or `deinit`, so a failed write leaves nothing behind.
final class AtomicOutputFile {
    let path: String
    let temporaryPath: String
    private var descriptor: Int32
    private var committed = false
    /// Bytes written so far, and how far writeback to disk has been started.
    private var written: Int64 = 0
    private var writebackStarted: Int64 = 0
    /// Writeback is started in steps of this size, so `commit`'s `fsync` finds little left to do.
    private static let writebackStep: Int64 = 32 << 20

    init(path: String) throws(MP4Error) {
        self.path = path
        let folder = parentFolder(of: path)
        var status = stat()
        guard stat(folder, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw .missingOutputFolder(path: folder)
        }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? "output"
        // mkstemp picks a unique name, so concurrent renders to one folder cannot collide.
        let prefix = folder == "." && !path.hasPrefix("./") ? "" : folder + "/"
        var template = Array((prefix + ".\(name).partial-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw .io(file: path, operation: "create a temporary file in \(folder)", reason: systemErrorMessage(errno))
        }
        self.descriptor = fd
        self.temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
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
        guard close(descriptor) == 0 else {
            descriptor = -1
            throw .io(file: path, operation: "close", reason: systemErrorMessage(errno))
        }
        descriptor = -1
        guard rename(temporaryPath, path) == 0 else {
            throw .io(file: path, operation: "rename the finished file into place", reason: systemErrorMessage(errno))
        }
        committed = true
        // The rename itself is durable only once the folder is flushed too.
        let folder = open(parentFolder(of: path), O_RDONLY | O_CLOEXEC)
        if folder >= 0 { fsync(folder); close(folder) }
    }

    /// Closes and deletes the temporary file, unless it was committed.
    func discard() {
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        if !committed { unlink(temporaryPath) }
        committed = true
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
