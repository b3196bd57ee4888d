/// Big-endian bit fields (an RBSP, an AudioSpecificConfig), most significant first, with
/// Exp-Golomb codes (ITU-T H.264, 9.1). Reading past the end throws; it never traps.
package struct BitReader {
    private let bytes: [UInt8]
    private var position = 0  // in bits

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package struct End: Error {}

    mutating func bit() throws(End) -> UInt32 {
        guard position < bytes.count * 8 else { throw End() }
        let value = (bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
        position += 1
        return UInt32(value)
    }

    /// `count` bits (at most 32) as a number.
    package mutating func bits(_ count: Int) throws(End) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    mutating func flag() throws(End) -> Bool { try bit() == 1 }

    /// ue(v); values beyond 32 bits are refused as the end of the data (no valid field needs them).
    mutating func unsignedGolomb() throws(End) -> UInt32 {
        var zeros = 0
        while try bit() == 0 {
            zeros += 1
            if zeros > 31 { throw End() }
        }
        return UInt32((UInt64(1) << UInt64(zeros)) - 1 + UInt64(try bits(zeros)))
    }

    /// se(v).
    mutating func signedGolomb() throws(End) -> Int64 {
        let code = Int64(try unsignedGolomb())
        return code & 1 == 1 ? (code + 1) / 2 : -(code / 2)
    }
}
