import CompositorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What fills a spool file: a local, sparse file standing for a remote one at the same offsets,
/// whose bytes are fetched the first time they are read.
///
/// The layers that read media (MP4 boxes, samples, transport stream segments) read files by path.
/// A remote source is given to them as its spool's path; `ReadableFile` finds the spool's filler
/// here when it opens the path, and asks it for every range before reading it, so those layers
/// read a remote source exactly as a local one, and never see a byte that was not fetched.
package protocol SpoolFiller: AnyObject, Sendable {
    /// Makes `ranges` of the spool hold the remote resource's bytes, fetching what they lack
    /// (several ranges at once).
    ///
    /// - Parameter ranges: Offsets in the resource (within its length).
    /// - Throws: `FileError` naming the remote resource: it could not be fetched, or changed.
    func fill(_ ranges: [Range<UInt64>]) throws(FileError)

    /// Hands `write` the bytes of `range`, from its start, that the filler holds in memory for
    /// a copy under way (a render streaming remote sources), so they need not go through the
    /// spool file.
    ///
    /// - Returns: How many bytes from `range`'s start were handed over (0: none; the rest is
    ///   read through the spool file).
    /// - Throws: `FileError` naming the remote resource; what `write` threw.
    func copyStaged(_ range: Range<UInt64>, into write: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) -> UInt64
}

/// The spool files open in this process, by path, with what fills each.
package enum SpoolFiles {
    private static let table = SpoolTable()

    /// Makes `path` (a sparse file of the remote resource's length) read through `filler`.
    package static func register(_ path: FilePath, filler: any SpoolFiller) { table.set(path, filler) }

    /// Forgets `path` (the spool is being deleted).
    package static func unregister(_ path: FilePath) { table.set(path, nil) }

    /// What fills `path`, when it is a registered spool.
    package static func filler(for path: FilePath) -> (any SpoolFiller)? { table.get(path) }
}

/// A dictionary under a mutex. (`Synchronization.Mutex` needs iOS 18.)
private final class SpoolTable: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var fillers: [FilePath: any SpoolFiller] = [:]

    init() { pthread_mutex_init(mutex, nil) }

    func set(_ path: FilePath, _ filler: (any SpoolFiller)?) {
        pthread_mutex_lock(mutex)
        fillers[path] = filler
        pthread_mutex_unlock(mutex)
    }

    func get(_ path: FilePath) -> (any SpoolFiller)? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return fillers.isEmpty ? nil : fillers[path]
    }
}
