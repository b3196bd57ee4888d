#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened read-only for positioned reads (`pread`): no shared cursor, nothing buffered.
/// Not `Sendable`: it owns a descriptor and closes it in `deinit`.
final class ReadableFile {
    let path: String
    let size: UInt64
    let descriptor: Int32

    init(path: String) throws(MP4Error) {
        self.path = path
        // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; anything but a
        // regular file is refused below. On a regular file the flag changes nothing.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw .fileNotFound(file: path) }
            throw .io(file: path, operation: "open", reason: systemErrorMessage(code))
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            close(fd)
            throw .io(file: path, operation: "stat", reason: systemErrorMessage(code))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .io(file: path, operation: "read", reason: "not a regular file")
        }
        self.descriptor = fd
        self.size = UInt64(status.st_size)
    }

    deinit { close(descriptor) }

    /// Exactly `count` bytes at `offset`; a short read means the file is shorter than claimed.
    func read(at offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(MP4Error) -> Int in try read(into: buffer, at: offset) }
        }
        let got = try result.get()
        guard got == count else {
            throw .malformed(file: path, boxPath: "", offset: offset,
                             reason: "needed \(count) bytes, the file ends after \(got)")
        }
        return bytes
    }

    /// Fills as much of `buffer` as the file holds from `offset`; returns the count read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(MP4Error) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(file: path, operation: "read", reason: systemErrorMessage(errno))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}

func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}
