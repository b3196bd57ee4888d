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
        /// An output folder's path names something else: "a regular file", "a FIFO".
        case notFolder(String)
        /// An output folder to replace holds files the writer would not replace (their names).
        case holdsOtherFiles([String])
        /// The folder an output would be made in does not exist.
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
        /// The file changed since it was read (how), so what was planned from it no longer holds.
        case changed(String)
        /// An output path that names something a rename must not replace: "a FIFO", "a device".
        case cannotReplace(String)
        /// An output path that names one of the run's inputs (that input's path, as given).
        case isAnInput(FilePath)
        /// An output folder whose manifest lists an entry that is not a plain name inside it
        /// (`../x`, `a/b`): no writer made it, so nothing of it is taken for an output.
        case foreignManifest(String)
    }

    package let path: FilePath
    package let reason: Reason

    package init(_ path: FilePath, _ reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// A few of `names`, for a message.
    package func listed(_ names: [String]) -> String {
        names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", ..." : "")
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
        case .notFolder(let kind): return "exists and is \(kind), not a folder"
        case .holdsOtherFiles(let names): return "holds files it may not replace (\(listed(names)))"
        case .missingParentFolder(let parent): return "the folder it would go in, \(parent), does not exist"
        case .notRegularFile(let kind): return "\(kind), not a regular file"
        case .tooLarge(let bytes, let limit): return "\(bytes) bytes, more than the limit of \(limit)"
        case .truncated(let needed, let got, let offset):
            return "needed \(needed) bytes at byte \(offset), the file ends after \(got)"
        case .system(let operation, let message): return "cannot \(operation): \(message)"
        case .invalidPath(let why): return why
        case .changed(let how): return "changed since it was read (\(how)); run again on a file nobody is writing"
        case .cannotReplace(let kind): return "exists and is \(kind); an output may only replace a regular file"
        case .foreignManifest(let entry):
            return "its manifest lists '\(entry)', which is not a file inside the folder: no output wrote it, so the folder is not replaced"
        case .isAnInput(let input):
            return input == path ? "is an input of this run; an output never replaces its inputs"
                : "is the same file as the input \(input); an output never replaces its inputs"
        }
    }
}
