import CompositorCore
import CompositorIO
#if os(Linux)
import Glibc
#endif

/// Files the fuzz harnesses hand to the library, in a scratch folder of the caller's.
package enum FuzzScratch {
    #if os(Linux)
    /// A new folder `/dev/shm/NAME-XXXXXX` (memory: no disk I/O per input) for a fuzz target's
    /// files, removed when the process exits; `nil` when none can be made there. (The fuzz targets
    /// run on Linux.)
    package static func makeFolder(named name: String) -> FilePath? {
        var template = Array("/dev/shm/\(name)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else { return nil }
        let folder = String(cString: made)
        folders.append(folder)
        if folders.count == 1 { atexit { for folder in FuzzScratch.folders { _ = system("rm -rf '\(folder)'") } } }
        return FilePath(folder)
    }

    nonisolated(unsafe) private static var folders: [String] = []
    #endif

    /// Replaces the file at `path` with `bytes`; a failure is the harness's own, said as a line.
    static func write(_ bytes: [UInt8], to path: FilePath) -> String? {
        do {
            let file = try AtomicOutputFile(path: path)
            try file.write(bytes)
            try file.commit()
            return nil
        } catch {
            return "could not write \(bytes.count) bytes to \(path): \(error)"
        }
    }
}
