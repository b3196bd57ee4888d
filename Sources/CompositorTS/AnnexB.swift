#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// H.264 / HEVC byte streams (ITU-T H.264 Annex B): NAL units separated by start codes
/// (`00 00 01`, or `00 00 00 01`), as a transport stream carries them.
package enum AnnexB {
    /// The NAL units of `bytes`, each without its start code and the zero bytes before the next
    /// one. Start codes are found with `memchr` on their final `01`, so the scan costs about one
    /// call per 256 bytes of slice data rather than a Swift step per byte.
    ///
    ///     00 00 00 01 | 67 ... | 00 00 01 | 68 ... | 00 00 01 | 65 ...
    ///                   ^ unit 1            ^ unit 2            ^ unit 3
    package static func nalUnits(in bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(TSParseFailure) -> [Range<Int>] {
        var units: [Range<Int>] = []
        guard let base = bytes.baseAddress, bytes.count > 0 else { return units }
        var unitStart: Int?
        var search = 0
        while search < bytes.count {
            guard let found = memchr(base + search, 1, bytes.count - search) else { break }
            let one = base.distance(to: UnsafeRawPointer(found))
            search = one + 1
            guard one >= 2, bytes[one - 1] == 0, bytes[one - 2] == 0 else { continue }
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
}
