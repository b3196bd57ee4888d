import CompositorCore
import CompositorIO

/// Files the fuzz harnesses hand to the library, in a scratch folder of the caller's.
enum FuzzScratch {
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
