import CompositorCore

/// A window `[start, end)` on borrowed UTF-8 bytes: what the parsers read lines and values from
/// without making a `String` until one is needed.
struct HLSByteView {
    let buffer: UnsafeBufferPointer<UInt8>
    var start: Int
    var end: Int

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
        start = 0
        end = buffer.count
    }

    init(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        self.buffer = buffer
        self.start = start
        self.end = end
    }

    var count: Int { end - start }
    /// The window's bytes.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: buffer[start..<end]) }
    var isEmpty: Bool { start >= end }

    @inline(__always) subscript(index: Int) -> UInt8 { buffer[index] }

    /// The same buffer, narrowed to `[from, to)`.
    @inline(__always) func slice(_ from: Int, _ to: Int) -> HLSByteView { HLSByteView(buffer, from, to) }

    /// Whether the window starts with `prefix` (ASCII).
    @inline(__always) func hasPrefix(_ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard count >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where buffer[start + k] != p[k] { return false }
        return true
    }

    /// Whether `[from, to)` equals `text` (ASCII).
    @inline(__always) func equals(_ from: Int, _ to: Int, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard to - from == n else { return false }
        let p = text.utf8Start
        for k in 0..<n where buffer[from + k] != p[k] { return false }
        return true
    }

    /// The index of the first `\n` at or after `from`, or `end`. Eight bytes at a time: a
    /// playlist is read line by line, and this is where its every byte is looked at.
    func firstNewline(from: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var i = from
        if let base = buffer.baseAddress {
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) ^ (ones &* 10)
                // A zero byte of `word` is a newline; the lowest flagged byte is always a true one.
                let flags = (word &- ones) & ~word & (ones &* 0x80)
                if flags != 0 { return i &+ flags.trailingZeroBitCount / 8 }
                i &+= 8
            }
        }
        while i < end, buffer[i] != 10 { i += 1 }
        return i
    }

    /// `[from, to)` as a string; invalid UTF-8 is repaired (use for text already validated or ASCII-checked).
    func string(_ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[from..<to]), as: UTF8.self)
    }

    /// `[from, to)` as a string, or `nil` when it is not valid UTF-8.
    func validatedString(_ from: Int, _ to: Int) -> String? {
        let bytes = UnsafeBufferPointer(rebasing: buffer[from..<to])
        var ascii = true
        for byte in bytes where byte >= 0x80 { ascii = false; break }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        return String(validatingUTF8Bytes: bytes)
    }

    var string: String { string(start, end) }
}

extension String {
    /// Runs `body` over the string's UTF-8 bytes without copying when the storage is contiguous.
    func withHLSByteView<R>(_ body: (HLSByteView) -> R) -> R {
        var copy = self
        return copy.withUTF8 { body(HLSByteView($0)) }
    }
}
