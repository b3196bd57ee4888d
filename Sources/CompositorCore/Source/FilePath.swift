/// A file system path as the bytes the system uses.
///
/// Paths are bytes, not text: a name that is not valid UTF-8 keeps its bytes, so the file is
/// opened (or written) under the name it has. `description` shows such bytes as `\xE9` and
/// escapes control characters, so a path can never forge a line of output.
///
/// ```swift
/// let path: FilePath = "media/ad1.mp4"
/// path.resolved(against: "/srv/schedules")   // "/srv/schedules/media/ad1.mp4"
/// FilePath(bytes: Array("caf".utf8) + [0xE9]).description   // "caf\xE9"
/// ```
public struct FilePath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// Text when the bytes are valid UTF-8 (a short path then needs no allocation, as a small
    /// `String`), the bytes otherwise. Equality and hashing are by bytes in both cases: two paths
    /// are the same file name only when their bytes are (not when their text is canonically equal).
    private enum Storage: Sendable {
        case text(String)
        case bytes([UInt8])
    }

    private let storage: Storage

    /// A path of the bytes the system uses.
    ///
    /// - Parameter bytes: The path's bytes, UTF-8 or not.
    public init(bytes: [UInt8]) {
        storage = String(validatingUTF8Bytes: bytes).map(Storage.text) ?? .bytes(bytes)
    }

    /// A path written as text.
    ///
    /// - Parameter string: The path; its UTF-8 bytes name the file.
    public init(_ string: String) { storage = .text(string) }
    public init(stringLiteral string: String) { self.init(string) }

    /// The path's bytes, as given to `open(2)`.
    public var bytes: [UInt8] {
        switch storage {
        case .text(let text): return Array(text.utf8)
        case .bytes(let bytes): return bytes
        }
    }

    /// The path as text, when its bytes are valid UTF-8.
    public var string: String? {
        if case .text(let text) = storage { return text }
        return nil
    }

    public static func == (lhs: FilePath, rhs: FilePath) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.text(var a), .text(var b)):
            // Bytes in one comparison: sources are looked up by path once per piece.
            guard a.utf8.count == b.utf8.count else { return false }
            return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
        case (.bytes(let a), .bytes(let b)): return a == b
        default: return false   // valid UTF-8 is always stored as text, so the bytes differ
        }
    }

    /// The bytes in one call, as `String` hashes its UTF-8.
    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .text(var text):
            hasher.combine(text.utf8.count)
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .bytes(let bytes):
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Whether the path starts at the root (`/…`); a relative one is read against the working folder.
    public var isAbsolute: Bool {
        if case .text(let text) = storage { return text.utf8.first == UInt8(ascii: "/") }
        return bytes.first == UInt8(ascii: "/")
    }

    /// This path read from `folder` when it is relative (`./` prefixes dropped); an absolute path as it is.
    ///
    /// - Parameter folder: The folder a relative path is read from.
    /// - Returns: `folder`'s path joined with this one, or this path when it is absolute.
    public func resolved(against folder: FilePath) -> FilePath {
        let folderBytes = folder.bytes
        guard !isAbsolute, !folderBytes.isEmpty else { return self }
        var relative = bytes[...]
        while relative.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) { relative = relative.dropFirst(2) }
        let separator: [UInt8] = folderBytes.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]
        return FilePath(bytes: folderBytes + separator + relative)
    }

    /// The folder that holds this path's last component (`.` for a bare name).
    public var parent: FilePath {
        let (bytes, _, slash) = splitAtLastComponent()
        guard let slash else { return "." }
        return slash == 0 ? "/" : FilePath(bytes: Array(bytes[..<slash]))
    }

    /// The last component (`stitched.m3u8` of `out/stitched.m3u8`).
    public var lastComponent: FilePath {
        let (bytes, end, slash) = splitAtLastComponent()
        return FilePath(bytes: Array(bytes[(slash.map { $0 + 1 } ?? 0)..<end]))
    }

    /// The bytes, where the last component ends (trailing slashes dropped), and the slash before it.
    private func splitAtLastComponent() -> (bytes: [UInt8], end: Int, slash: Int?) {
        let bytes = self.bytes
        var end = bytes.count
        while end > 1, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return (bytes, end, bytes[..<end].lastIndex(of: UInt8(ascii: "/")))
    }

    /// `name` inside this folder.
    ///
    /// - Parameter name: A name or relative path; an absolute one is returned as it is.
    /// - Returns: The path of `name` in this folder.
    public func appending(_ name: String) -> FilePath {
        FilePath(name).resolved(against: self)
    }

    public var description: String {
        switch storage {
        case .text(let text): return escapedForDisplay(text)
        case .bytes(let bytes): return escapedForDisplay(bytes)
        }
    }
}

extension String {
    /// `bytes` as a string when they are valid UTF-8, `nil` otherwise (no repair). Decoding
    /// repairs invalid bytes to U+FFFD, so the text holds the same bytes only when they were valid.
    /// (`String(validating:as:)` does this too, but needs macOS 15 / iOS 18.)
    @inlinable
    package init?(validatingUTF8Bytes bytes: some Collection<UInt8>) {
        // ASCII, the common case, is valid as it is; anything else is checked scalar by scalar
        // (the decoder refuses overlong forms, surrogates and truncated sequences).
        if !bytes.allSatisfy({ $0 < 0x80 }) {
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: break decoding
                case .error: return nil
                }
            }
        }
        self = String(decoding: bytes, as: UTF8.self)
    }
}

/// `bytes` decoded as UTF-8 for a message or a terminal: invalid bytes become `\xNN`, control
/// characters (a newline, an escape sequence) `\n`, `\t`, `\u{1B}`, bidirectional controls
/// (U+202E reverses what follows on a terminal) `\u{202E}`, and a backslash `\\`, so the text is
/// one line that shows what the bytes are, in the order they are.
package func escapedForDisplay(_ bytes: some Collection<UInt8>) -> String {
    var text = ""
    var rest = Array(bytes)[...]
    while let first = rest.first {
        var decoder = UTF8()
        var iterator = rest.makeIterator()
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar):
            rest = rest.dropFirst(UTF8.width(scalar))
            text += escapedScalar(scalar)
        case .emptyInput:
            rest = []
        case .error:
            text += "\\x" + String(first, radix: 16, uppercase: true).leftPadded(to: 2)
            rest = rest.dropFirst()
        }
    }
    return text
}

/// `'text'` for a message, escaped as `escapedForDisplay` does (`'a\\nb'`): an ID or URL from a
/// schedule can never break a message's line or send a terminal escape sequence.
package func quoted(_ text: String) -> String { "'" + escapedForDisplay(text) + "'" }

/// `text` with control characters and backslashes escaped as `escapedForDisplay` does.
package func escapedForDisplay(_ text: String) -> String {
    // Printable ASCII without a backslash (nearly every ID and path) needs nothing escaped.
    if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "\\") }) { return text }
    return text.unicodeScalars.map(escapedScalar).joined()
}

private func escapedScalar(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\n": return "\\n"
    case "\r": return "\\r"
    case "\t": return "\\t"
    case "\\": return "\\\\"
    case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        || scalar.value == 0x2028 || scalar.value == 0x2029 || isBidirectionalControl(scalar.value):
        return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    default: return String(scalar)
    }
}

/// The Unicode bidirectional formatting characters (UAX #9): marks, embeddings, overrides and
/// isolates, which reorder the text around them where a terminal honours them.
private func isBidirectionalControl(_ value: UInt32) -> Bool {
    value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
