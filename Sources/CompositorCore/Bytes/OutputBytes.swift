/// Bytes written front to back into storage kept from one use to the next, such as each segment
/// of a packaging in turn.
///
/// Room made at the end (`append(room:_:)`) is handed out as the storage holds it, not cleared:
/// whoever asks for room writes every byte of it. A `[UInt8]` must be given its new bytes first
/// (`append(contentsOf: repeatElement(0xFF, count: n))`) and they are then written again in place;
/// for a transport stream segment that was every byte twice. `removeAll()` keeps the storage, so
/// growing it is paid once.
///
/// ```
/// var segment = OutputBytes()
/// segment.append(room: 188) { packet in ... }   // writes all 188 bytes of `packet`
/// segment.withUnsafeBytes { bytes in ... }      // what was written since `removeAll()`
/// segment.removeAll()                            // the next segment, in the same storage
/// ```
package struct OutputBytes: Sendable {
    /// Never shorter than `count`; what lies past `count` is left from earlier uses.
    private var storage: [UInt8] = []
    package private(set) var count = 0

    package init() {}

    /// Forgets the bytes written; the storage stays for the next ones.
    package mutating func removeAll() { count = 0 }

    /// Makes `size` more bytes at the end and hands them to `body`, which must write them all;
    /// when it throws, the room is taken back.
    package mutating func append<T, E: Error>(room size: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> T) throws(E) -> T {
        let start = count
        let end = start + size
        if end > storage.count {
            // Doubling, so that a segment larger than any before costs its growth once.
            storage.appendZeros(max(end, 2 * storage.count) - storage.count)
        }
        let result = storage.withUnsafeMutableBytes { bytes in
            Result { () throws(E) -> T in try body(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end])) }
        }
        let value = try result.get()
        count = end
        return value
    }

    package mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        append(room: bytes.count) { $0.copyMemory(from: bytes) }
    }

    package mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// The bytes written since the last `removeAll()`.
    package func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}
