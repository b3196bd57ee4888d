import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FilePath {
    /// Makes the folder at `path` when it is missing (its parent must exist); an existing folder
    /// is left as it is.
    ///
    /// - Throws: `FileError`: the parent is missing, or `path` is something other than a folder.
    package static func makeFolder(_ path: FilePath) throws(FileError) {
        if try path.withCPath({ mkdir($0, 0o777) }) == 0 { return }
        let code = errno
        if code == ENOENT { throw FileError(path, .missingParentFolder(path.parent)) }
        guard code == EEXIST else { throw .system(path, "create the folder", code: code) }
        var info = stat()
        guard try path.withCPath({ stat($0, &info) }) == 0 else { throw .system(path, "look at the folder") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw FileError(path, .notFolder("a file")) }
    }
}
