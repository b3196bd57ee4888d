#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Linux calls that move file bytes without passing them through user space, looked up at run
/// time (the Glibc module does not export them): `copy_file_range` copies between descriptors in
/// the kernel, `sync_file_range` starts writing dirty pages back early so the final `fsync` has
/// little left to wait for. Either may be missing (old kernels, other C libraries); callers then
/// fall back to `pread`/`write`.
enum KernelCopy {
    typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
    typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    static let copyFileRange: CopyFileRange? = lookup("copy_file_range")
    static let syncFileRange: SyncFileRange? = lookup("sync_file_range")
    /// `SYNC_FILE_RANGE_WRITE`: start writeback of the range, do not wait.
    static let startWriteback: UInt32 = 2

    private static func lookup<T>(_ name: String) -> T? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: T.self)
    }
}
#endif
