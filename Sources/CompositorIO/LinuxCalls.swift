#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Linux calls the Glibc module does not export, looked up at run time: `copy_file_range` copies
/// between descriptors in the kernel, `sync_file_range` starts writing dirty pages back early so
/// the final `fsync` has little left to wait for, `renameat2` swaps two paths in one step. Any may
/// be missing (old kernels, other C libraries); callers then fall back to `pread`/`write` and
/// plain renames.
enum LinuxCalls {
    typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
    typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    typealias Fallocate = @convention(c) (Int32, Int32, Int64, Int64) -> Int32

    static let copyFileRange: CopyFileRange? = lookup("copy_file_range")
    static let syncFileRange: SyncFileRange? = lookup("sync_file_range")
    static let renameat2: RenameAt2? = lookup("renameat2")
    static let fallocate: Fallocate? = lookup("fallocate")
    /// `FALLOC_FL_KEEP_SIZE`: allocate blocks past the end without changing the file's size.
    static let keepSize: Int32 = 1
    /// `SYNC_FILE_RANGE_WRITE`: start writeback of the range, do not wait.
    static let startWriteback: UInt32 = 2
    /// `RENAME_EXCHANGE`: swap the two paths.
    static let renameExchange: UInt32 = 2

    private static func lookup<T>(_ name: String) -> T? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: T.self)
    }
}
#endif
