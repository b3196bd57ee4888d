import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks every output path passes before any work starts, so a mistyped path costs nothing:
/// an output is a new name or an existing regular file, never a FIFO, a device (`/dev/stdout`,
/// `/dev/null`) or a folder, which a rename would replace by a plain file; and never one of the
/// run's inputs, through any symbolic or hard link (compared by device and inode).
package enum OutputDestination {
    /// Throws when writing `output` could destroy something; `inputs` are the run's input files.
    package static func check(_ output: FilePath, inputs: [FilePath]) throws(FileError) {
        try check(output, against: inputs.compactMap { path in FileIdentity(of: path).map { (path, $0) } })
    }

    /// As `check(_:inputs:)`, with the inputs' identities already known.
    package static func check(_ output: FilePath, against inputs: [(path: FilePath, identity: FileIdentity)]) throws(FileError) {
        var status = stat()
        guard try output.withCPath({ stat($0, &status) }) == 0 else {
            // Nothing there (or a dangling link): the folder it goes in must exist.
            let parent = output.parent
            guard isFolder(parent) else { throw FileError(output, .missingParentFolder(parent)) }
            return
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw FileError(output, .cannotReplace(fileKindName(status.st_mode)))
        }
        let identity = FileIdentity(status)
        if let input = inputs.first(where: { $0.identity == identity }) {
            throw FileError(output, .isAnInput(input.path))
        }
    }
}
