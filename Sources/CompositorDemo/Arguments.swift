import Compositor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command's remaining arguments: options are taken out by name, then positionals in order.
/// Arguments are kept as the bytes the system passed, so a path that is not UTF-8 names the file
/// it names (`pathOption`, `positionalPath`); other values are read as text.
struct Arguments {
    private var items: [[UInt8]]

    init(_ items: [[UInt8]]) { self.items = items }

    /// The process's arguments after the program name, byte for byte.
    static var processArguments: [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
        }
    }

    var isEmpty: Bool { items.isEmpty }

    /// Removes the first argument, whatever it is (the command name).
    mutating func takeFirst() -> String? {
        items.isEmpty ? nil : Self.text(items.removeFirst())
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Removes `--name` and reports whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = items.firstIndex(of: Array(name.utf8)) else { return false }
        items.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns the value's bytes.
    mutating func rawOption(_ name: String) throws(DemoError) -> [UInt8]? {
        let prefix = Array((name + "=").utf8)
        if let index = items.firstIndex(where: { $0.starts(with: prefix) }) {
            return Array(items.remove(at: index).dropFirst(prefix.count))
        }
        guard let index = items.firstIndex(of: Array(name.utf8)) else { return nil }
        guard index + 1 < items.count else { throw .usage("\(name) needs a value") }
        let value = items[index + 1]
        items.removeSubrange(index...index + 1)
        return value
    }

    /// Removes `--name VALUE` and returns the value as text.
    mutating func option(_ name: String) throws(DemoError) -> String? {
        try rawOption(name).map(Self.text)
    }

    /// Removes `--name PATH` and returns the path, bytes kept.
    mutating func pathOption(_ name: String) throws(DemoError) -> FilePath? {
        try rawOption(name).map { FilePath(bytes: $0) }
    }

    /// Removes `--name T` and parses it as a time.
    mutating func timeOption(_ name: String) throws(DemoError) -> MediaTime? {
        guard let text = try option(name) else { return nil }
        do { return try MediaTime(parsing: text) } catch { throw .usage("\(name): \(error)") }
    }

    /// Removes the next positional argument, as text.
    mutating func positional(_ what: String) throws(DemoError) -> String {
        Self.text(try rawPositional(what))
    }

    /// Removes the next positional argument as a path, bytes kept.
    mutating func positionalPath(_ what: String) throws(DemoError) -> FilePath {
        FilePath(bytes: try rawPositional(what))
    }

    private mutating func rawPositional(_ what: String) throws(DemoError) -> [UInt8] {
        guard let index = items.firstIndex(where: { !$0.starts(with: Array("--".utf8)) }) else { throw .usage("missing \(what)") }
        return items.remove(at: index)
    }

    /// Fails on anything left over.
    func finish() throws(DemoError) {
        if let extra = items.first { throw .usage("unexpected argument '\(FilePath(bytes: extra))'") }
    }
}
