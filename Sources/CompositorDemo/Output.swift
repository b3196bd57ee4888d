import Compositor
import CompositorIO
import Foundation

/// The demo's two streams. Output that cannot be written (a full disk, `> /dev/full`, a closed
/// pipe) is an error: the demo says so on stderr and exits 1 instead of reporting success.
enum Output {
    static func out(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO, name: "standard output")
    }

    /// Text already encoded, as it is (no newline added).
    static func out(bytes: UnsafeRawBufferPointer) {
        write(bytes, to: STDOUT_FILENO, name: "standard output")
    }

    static func err(_ text: String) {
        write(text + "\n", to: STDERR_FILENO, name: "standard error")
    }

    private static func write(_ text: String, to descriptor: Int32, name: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: descriptor, name: name) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, name: String) {
        let failure: FileError?
        do throws(FileError) {
            try writeAll(bytes, to: descriptor, path: FilePath(name))
            failure = nil
        } catch { failure = error }
        guard let failure else { return }
        if descriptor != STDERR_FILENO { err("error: \(failure)") }
        // At once, from here: every write is a write(2) (nothing is buffered) and spool files
        // are unlinked when made, so no exit handler has work to do. `exit` would run
        // LeakSanitizer's while the command's values are still live on this stack, and it
        // takes some of them (those reached through an enum's tagged pointer) for leaks.
        _exit(1)
    }
}
