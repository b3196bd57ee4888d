import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be read or written, in the user's terms: the path and what went wrong.
package struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Reason: Hashable, Sendable {
        /// Nothing at the path.
        case notFound
        /// The folder a file would be written into does not exist.
        case missingFolder
        /// An output folder's path names something else: "a regular file", "a FIFO".
        case notFolder(String)
        /// An output folder to replace holds files the writer did not make (a few names listed).
        case holdsOtherFiles(String)
        /// The folder an output folder would be made in does not exist.
        case missingParentFolder(FilePath)
        /// Something other than a regular file: "a folder", "a FIFO", "a device".
        case notRegularFile(String)
        /// Larger than the reader accepts, checked before anything is read.
        case tooLarge(bytes: UInt64, limit: UInt64)
        /// Shorter than the reader needed.
        case truncated(needed: Int, got: Int, offset: UInt64)
        /// The system refused `operation` (`open`, `read`, `rename the finished file into place`).
        case system(operation: String, message: String)
        /// The path cannot name a file (a NUL byte).
        case invalidPath(String)
    }

    package let path: FilePath
    package let reason: Reason

    package init(_ path: FilePath, _ reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// `operation` failed with the current `errno`.
    package static func system(_ path: FilePath, _ operation: String, code: Int32 = errno) -> FileError {
        if code == ENOENT, operation == "open" { return FileError(path, .notFound) }
        return FileError(path, .system(operation: operation, message: systemErrorMessage(code)))
    }

    package var description: String { "\(path): \(reasonText)" }

    /// What went wrong, without the path.
    package var reasonText: String {
        switch reason {
        case .notFound: return "no such file"
        case .missingFolder: return "output folder does not exist"
        case .notFolder(let kind): return "exists and is \(kind), not a folder"
        case .holdsOtherFiles(let names):
            return "holds files that are not from a previous stitch (\(names)); give a new or empty folder, or one a previous stitch wrote"
        case .missingParentFolder(let parent): return "the folder it would go in, \(parent), does not exist"
        case .notRegularFile(let kind): return "\(kind), not a regular file"
        case .tooLarge(let bytes, let limit): return "\(bytes) bytes, more than the limit of \(limit)"
        case .truncated(let needed, let got, let offset):
            return "needed \(needed) bytes at byte \(offset), the file ends after \(got)"
        case .system(let operation, let message): return "cannot \(operation): \(message)"
        case .invalidPath(let why): return why
        }
    }
}

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

extension FilePath {
    /// Calls `body` with the path as a C string; a path with a NUL byte names no file.
    package func withCPath<R>(_ body: (UnsafePointer<CChar>) throws(FileError) -> R) throws(FileError) -> R {
        guard !bytes.contains(0) else { throw FileError(self, .invalidPath("the path contains a NUL byte")) }
        guard !bytes.isEmpty else { throw FileError(self, .invalidPath("an empty path")) }
        let cString = bytes.map { CChar(bitPattern: $0) } + [0]
        return try cString.withUnsafeBufferPointer { (buffer) throws(FileError) -> R in try body(buffer.baseAddress!) }
    }
}
