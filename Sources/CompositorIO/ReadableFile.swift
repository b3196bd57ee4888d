import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way this library reads a file: opened read-only for positioned reads (`pread`, no
/// shared cursor, nothing buffered), regular files only (a FIFO or a device could block or never
/// end), `EINTR` retried. Not `Sendable`: it owns a descriptor and closes it in `deinit`.
package final class ReadableFile {
    package let path: FilePath
    package let size: UInt64
    /// The file as it was opened, to notice it being replaced or modified later.
    package let version: FileVersion
    package let descriptor: Int32
    /// For a spool file (a remote source read through a local sparse copy), what fetches its
    /// bytes before they are read; `nil` for a plain file.
    private let spool: (any SpoolFiller)?

    package init(path: FilePath) throws(FileError) {
        self.path = path
        self.spool = SpoolFiles.filler(for: path)
        // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; anything but a
        // regular file is refused below. On a regular file the flag changes nothing.
        let fd = try path.withCPath { (cPath) throws(FileError) -> Int32 in
            var fd: Int32
            repeat { fd = open(cPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } while fd < 0 && errno == EINTR
            guard fd >= 0 else { throw .system(path, "open") }
            return fd
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = FileError.system(path, "stat")
            close(fd)
            throw error
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileError(path, .notRegularFile(fileKindName(status.st_mode)))
        }
        self.descriptor = fd
        self.size = UInt64(status.st_size)
        self.version = FileVersion(status)
    }

    /// Opens `path` and checks it is still the file `expected` describes: the same file (not
    /// another one renamed into its place), with the same size and modification time.
    package convenience init(path: FilePath, expecting expected: FileVersion) throws(FileError) {
        try self.init(path: path)
        // A spool is written as its bytes arrive (its time changes); its filler checks the
        // remote resource instead, on every fetch.
        if spool == nil { try version.check(against: expected, path: path) }
    }

    /// Throws when the open file was modified since it was opened (its size or modification time).
    package func checkUnchanged() throws(FileError) {
        guard spool == nil else { return }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system(path, "stat") }
        try FileVersion(status).check(against: version, path: path)
    }

    deinit { close(descriptor) }

    /// Exactly `count` bytes at `offset`; a short read means the file is shorter than claimed.
    package func read(at offset: UInt64, count: Int) throws(FileError) -> [UInt8] {
        var bytes: [UInt8] = []
        try read(at: offset, count: count, into: &bytes)
        return bytes
    }

    /// Exactly `count` bytes at `offset`, into `bytes` (replacing what it held; empty after a
    /// failure): a reader of one block after another reuses its storage, where a new array each
    /// time would make the system hand over (and zero) fresh pages for every block.
    package func read(at offset: UInt64, count: Int, into bytes: inout [UInt8]) throws(FileError) {
        if bytes.count != count {
            bytes.removeAll(keepingCapacity: true)
            bytes.appendZeros(count)
        }
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(FileError) in try read(exactly: buffer, at: offset) }
        }
        // After a failure `bytes` is empty, so no reader mistakes it for the block it asked for.
        do { try result.get() } catch { bytes.removeAll(keepingCapacity: true); throw error }
    }

    /// Fills all of `buffer` from `offset`; a short read means the file is shorter than claimed.
    package func read(exactly buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FileError) {
        let got = try read(into: buffer, at: offset)
        guard got == buffer.count else { throw FileError(path, .truncated(needed: buffer.count, got: got, offset: offset)) }
    }

    /// Makes sure `length` bytes at `offset` (as far as the file holds) are there to read: for a
    /// spool file, fetched. A plain file has them.
    package func prepare(offset: UInt64, length: UInt64) throws(FileError) {
        guard let spool, offset < size else { return }
        try spool.fill([offset..<(offset + min(length, size - offset))])
    }

    /// Hands `write` what of `range` a spool file's filler holds in memory (see
    /// `SpoolFiller.copyStaged`); 0 for a plain file.
    package func copyStaged(_ range: Range<UInt64>, into write: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) -> UInt64 {
        guard let spool, range.lowerBound < size else { return 0 }
        return try spool.copyStaged(range.lowerBound..<min(range.upperBound, size), into: write)
    }

    /// Says that `ranges` will be read soon: a spool file fetches them now, together (a plain
    /// file needs nothing). Only a hint: a fetch that fails is left for the read to report.
    package func prefetch(_ ranges: [Range<UInt64>]) {
        guard let spool else { return }
        let within = ranges.compactMap { $0.lowerBound < size ? $0.lowerBound..<min($0.upperBound, size) : nil }
        try? spool.fill(within)
    }

    /// Fills as much of `buffer` as the file holds from `offset`; returns the count read.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FileError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }   // an empty buffer
        try prepare(offset: offset, length: UInt64(buffer.count))
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(path, "read")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// The whole file, refused before reading when it is larger than `limit` bytes (and when it
    /// grows while being read).
    package func readAll(limit: Int) throws(FileError) -> [UInt8] {
        guard size <= UInt64(limit) else { throw FileError(path, .tooLarge(bytes: size, limit: UInt64(limit))) }
        // One byte more than the size, to notice a file that grew while being read.
        var bytes = [UInt8](repeating: 0, count: Int(size) + 1)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(FileError) -> Int in try read(into: buffer, at: 0) }
        }
        let filled = try result.get()
        guard filled <= size else {
            throw FileError(path, .system(operation: "read", message: "the file grew while it was being read"))
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Reads the whole file at `path`, at most `limit` bytes.
    package static func contents(of path: FilePath, limit: Int) throws(FileError) -> [UInt8] {
        try ReadableFile(path: path).readAll(limit: limit)
    }
}

/// A file's device and inode: two paths (through links) name the same file when these agree.
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    package init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of the file `path` names (following links), or `nil` when there is none.
    package init?(of path: FilePath) {
        var status = stat()
        guard (try? path.withCPath({ stat($0, &status) })) == 0 else { return nil }
        self.init(status)
    }
}

/// What a file was when it was read: which file, how long, last modified when. A plan made from a
/// source is only valid for the same version of it.
package struct FileVersion: Hashable, Sendable {
    package let identity: FileIdentity
    package let size: UInt64
    /// Modification time in nanoseconds since 1970.
    package let modified: Int64

    package init(identity: FileIdentity, size: UInt64, modified: Int64) {
        self.identity = identity
        self.size = size
        self.modified = modified
    }

    package init(_ status: stat) {
        identity = FileIdentity(status)
        size = UInt64(clamping: status.st_size)
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        let (scaled, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        modified = overflow ? Int64(time.tv_sec) : scaled &+ Int64(time.tv_nsec)
    }

    /// Throws `.changed` naming what differs from `expected`.
    package func check(against expected: FileVersion, path: FilePath) throws(FileError) {
        if identity != expected.identity {
            throw FileError(path, .changed("another file has taken its name"))
        }
        if size != expected.size {
            throw FileError(path, .changed("\(expected.size) bytes then, \(size) now"))
        }
        if modified != expected.modified {
            throw FileError(path, .changed("it was modified"))
        }
    }
}
