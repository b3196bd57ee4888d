import CompositorCore

/// A four-character code: a box type (`moov`), a sample format (`avc1`), a handler (`vide`).
package struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The four bytes, big-endian, as they appear in the file.
    package let rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `text` must be exactly four ASCII characters.
    package init(stringLiteral text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.count == 4, "a FourCC has four ASCII characters, got '\(text)'")
        self.rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    package var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// Whether all four bytes are printable ASCII, as every registered box type is.
    var isPrintable: Bool { bytes.allSatisfy { (0x20...0x7E).contains($0) } }

    /// The code as text; bytes that are not printable ASCII are shown as `\xNN`.
    package var description: String {
        bytes.map { (0x20...0x7E).contains($0) ? String(UnicodeScalar($0)) : "\\x" + hex2($0) }.joined()
    }
}

private func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
