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
