#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines read from a file descriptor, each held to `limit` bytes: a longer line is skipped to its
/// end as it arrives, never held whole, and reported by its length. `readLine()` holds a line
/// whatever its length (a 20 MB line on `live`'s stdin was read, then echoed into an error).
///
/// ```swift
/// var lines = BoundedLines(descriptor: STDIN_FILENO, limit: 4096)
/// while let line = lines.next() { … }
/// ```
struct BoundedLines {
    enum Line: Equatable {
        /// A line, without its line feed (a carriage return before it dropped too).
        case text(String)
        /// A line longer than the limit, skipped: how many bytes it had.
        case tooLong(bytes: Int)
    }

    let descriptor: Int32
    let limit: Int
    private var buffered: [UInt8] = []
    /// Bytes of the current line already dropped for being past the limit.
    private var dropped = 0
    private var ended = false

    init(descriptor: Int32, limit: Int) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next line, or nil at the end of the input (or a read error).
    mutating func next() -> Line? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffered[..<newline]
                defer { buffered.removeSubrange(...newline) }
                return finish(line)
            }
            if ended {
                guard !buffered.isEmpty || dropped > 0 else { return nil }
                defer { buffered.removeAll() }
                return finish(buffered[...])
            }
            if buffered.count > limit {
                dropped += buffered.count
                buffered.removeAll(keepingCapacity: true)
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { ended = true; continue }
            buffered += chunk[..<count]
        }
    }

    private mutating func finish(_ line: ArraySlice<UInt8>) -> Line {
        let length = dropped + line.count
        dropped = 0
        if length > limit { return .tooLong(bytes: length) }
        let text = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        return .text(String(decoding: text, as: UTF8.self))
    }
}
