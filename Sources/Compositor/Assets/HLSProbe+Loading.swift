#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads playlist bytes for a URL. The built-in loader reads `file:` URLs and plain paths; callers
/// that fetch over HTTP supply their own `load`.
public struct HLSPlaylistLoader: Sendable {
    /// The limits applied to what is loaded and parsed.
    public let limits: HLSParseLimits
    public let load: @Sendable (String) throws -> [UInt8]

    public init(limits: HLSParseLimits = .default, load: @escaping @Sendable (String) throws -> [UInt8]) {
        self.limits = limits
        self.load = load
    }

    /// Reads `file:` URLs and plain paths from the local file system; the size is checked against
    /// `limits.maximumPlaylistBytes` before anything is read.
    public static func fileSystem(limits: HLSParseLimits = .default) -> HLSPlaylistLoader {
        HLSPlaylistLoader(limits: limits) { url in try readPlaylistFile(url, limit: limits.maximumPlaylistBytes) }
    }

    /// Bytes for fixed URLs, for tests and in-memory sources.
    public static func inMemory(_ files: [String: String], limits: HLSParseLimits = .default) -> HLSPlaylistLoader {
        HLSPlaylistLoader(limits: limits) { url in
            guard let text = files[url] else { throw HLSLoadError(path: url, reason: "no such playlist") }
            return Array(text.utf8)
        }
    }
}

/// Why a playlist file could not be read.
public struct HLSLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

extension HLSPlaylistLoader {
    /// The local path a `file:` URL (or a plain path) names, percent-escapes decoded; `nil` for other schemes.
    static func localPath(fromURL url: String) -> String? {
        let reference = URIReference(parsing: url)
        switch reference.scheme?.lowercased() {
        case nil: return url
        case "file":
            guard reference.authority == nil || reference.authority == "" || reference.authority == "localhost" else { return nil }
            return percentDecoded(reference.path)
        default: return nil
        }
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }
        while let c = utf8.popFirst() {
            if c == UInt8(ascii: "%"), utf8.count >= 2, let h = hex(utf8[utf8.startIndex]), let l = hex(utf8[utf8.startIndex + 1]) {
                bytes.append(h << 4 | l)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a whole file with POSIX calls, refusing files larger than `limit` before reading them.
    static func readPlaylistFile(_ url: String, limit: Int) throws -> [UInt8] {
        guard let path = localPath(fromURL: url) else {
            throw HLSLoadError(path: url, reason: "only file: URLs and paths can be read without a custom loader")
        }
        // O_NONBLOCK: opening a FIFO must not wait for a writer; only regular files are read.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw HLSLoadError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw HLSLoadError(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw HLSLoadError(path: path, reason: "not a regular file") }
        let size = Int(info.st_size)
        guard size <= limit else {
            throw HLSLoadError(path: path, reason: "\(size) bytes is more than the playlist limit of \(limit)")
        }
        // One byte more than the size, to notice a file that grew past the limit while being read.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 { throw HLSLoadError(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            filled += n
        }
        guard filled <= limit else { throw HLSLoadError(path: path, reason: "more than the playlist limit of \(limit) bytes") }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }
}
