import CompositorCore
/// H.264 / HEVC byte streams (ITU-T H.264 Annex B): NAL units separated by start codes
/// (`00 00 01`, or `00 00 00 01`), as a transport stream carries them.
package enum AnnexB {
    /// The NAL units of `bytes`, each without its start code and the zero bytes before the next
    /// one. Start codes are found a word at a time (`startCode(in:from:)`).
    ///
    ///     00 00 00 01 | 67 ... | 00 00 01 | 68 ... | 00 00 01 | 65 ...
    ///                   ^ unit 1            ^ unit 2            ^ unit 3
    package static func nalUnits(in bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WireFailure) -> [Range<Int>] {
        var units: [Range<Int>] = []
        guard bytes.count > 0 else { return units }
        var unitStart: Int?
        var search = 0
        while let code = startCode(in: bytes, from: search) {
            let one = code + 2
            search = one + 1
            if let start = unitStart {
                units.append(start..<trimmingZeros(bytes, start, one - 2))
            } else if let garbage = (0..<(one - 2)).first(where: { bytes[$0] != 0 }) {
                throw .malformed("\(one - 2 - garbage) bytes before the first start code of an access unit", at: offset)
            }
            unitStart = one + 1
        }
        guard let start = unitStart else {
            throw .malformed("an access unit without a start code (00 00 01)", at: offset)
        }
        units.append(start..<trimmingZeros(bytes, start, bytes.count))
        return units.filter { !$0.isEmpty }
    }

    /// Where the first `00 00 01` at or after `start` begins. Eight bytes are read at once and
    /// their zero bytes found with a few integer operations; only two zeros in a row, which
    /// emulation prevention keeps out of a NAL unit's payload but for `00 00 03`, are looked at
    /// further. (A `memchr` for the `01` stopped every 256 bytes or so of compressed data, and was
    /// a third of reading a transport stream source.)
    static func startCode(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start >= 0 else { return nil }
        let count = bytes.count
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var index = start
        // Words overlap by a byte (a step of 7), so each pair of neighbours is inside one of them.
        while index + 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // 0x80 in each byte that is zero, and in no other.
            let zeros = ~(((word & low) &+ low) | word | low)
            var pairs = zeros & (zeros >> 8)
            while pairs != 0 {
                let position = index + pairs.trailingZeroBitCount / 8
                if position + 2 < count, base.load(fromByteOffset: position + 2, as: UInt8.self) == 1 { return position }
                pairs &= pairs - 1
            }
            index += 7
        }
        while index + 3 <= count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 { return index }
            index += 1
        }
        return nil
    }

    /// `end` moved back over zero bytes (trailing_zero_8bits and a 4-byte start code's first byte).
    private static func trimmingZeros(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int {
        var end = end
        while end > start, bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    /// A NAL unit's payload with emulation prevention bytes removed (`00 00 03` -> `00 00`): the RBSP
    /// that parameter sets are parsed from.
    package static func rbsp(_ unit: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(unit.count)
        var zeros = 0
        for byte in unit {
            if zeros >= 2, byte == 3 { zeros = 0; continue }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Whether an Annex B stream carries `unit` whole behind its start code: no `00 00 01` inside
    /// it (emulation prevention keeps them out), and no zero byte at its end, which a reader
    /// takes for padding before the next start code.
    package static func canCarry(_ unit: some Collection<UInt8>) -> Bool {
        let bytes = Array(unit)
        return bytes.last != 0 && !bytes.indices.dropLast(2).contains { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 }
    }
}
