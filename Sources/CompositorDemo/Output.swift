import Compositor
import CompositorIO
import Foundation

/// The demo's two streams. Output that cannot be written (a full disk, `> /dev/full`, a closed
/// pipe) is an error: the demo says so on stderr and exits 1 instead of reporting success.
enum Output {
    static func out(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO, name: "standard output")
    }

    static func err(_ text: String) {
        write(text + "\n", to: STDERR_FILENO, name: "standard error")
    }

    private static func write(_ text: String, to descriptor: Int32, name: String) {
        var text = text
        let failure = text.withUTF8 { bytes -> FileError? in
            do throws(FileError) { try writeAll(UnsafeRawBufferPointer(bytes), to: descriptor, path: FilePath(name)) } catch { return error }
            return nil
        }
        guard let failure else { return }
        if descriptor != STDERR_FILENO { err("error: \(failure)") }
        exit(1)
    }
}
