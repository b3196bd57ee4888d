import CompositorCore

/// A four-character code: a box type (`moov`), a sample format (`avc1`), a handler (`vide`).
package struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The four bytes, big-endian, as they appear in the file.
    package let rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `text` must be exactly four ASCII characters. A `StaticString`: its bytes are read in place
    /// (literals are compared against every box a file has; decoding a `String` for each was a
    /// tenth of a walk's time).
    package init(stringLiteral text: StaticString) {
        precondition(text.hasPointerRepresentation && text.utf8CodeUnitCount == 4,
                     "a FourCC has four ASCII characters, got '\(text)'")
        let bytes = text.utf8Start
        self.rawValue = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
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

/// A byte as two upper-case hexadecimal digits.
func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

extension FourCC {
    // The types compared against every header of a walk, made once.
    static let moov: FourCC = "moov"
    static let moof: FourCC = "moof"
    static let mfra: FourCC = "mfra"
    static let trak: FourCC = "trak"
    static let uuid: FourCC = "uuid"
}

/// A fixed set of box types, searched without hashing (a sorted array, binary-searched): a walk
/// asks it about every header of a file, 8 million for 64 MB of 8-byte boxes, where hashing for a
/// `Set` took a third of the time.
struct FourCCSet: Sendable, ExpressibleByArrayLiteral {
    private let sorted: [UInt32]

    init(arrayLiteral types: FourCC...) {
        sorted = Set(types.map(\.rawValue)).sorted()
    }

    func contains(_ type: FourCC) -> Bool {
        let index = sorted.partitioningIndex { $0 >= type.rawValue }
        return index < sorted.count && sorted[index] == type.rawValue
    }
}
