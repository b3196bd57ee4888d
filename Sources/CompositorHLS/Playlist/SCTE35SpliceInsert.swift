/// An SCTE 35 `splice_info_section()` carrying one `splice_insert()` (SCTE 35 2022, sections 9.6
/// and 9.7.3), as `EXT-X-DATERANGE` carries one in `SCTE35-OUT` and `SCTE35-IN` (RFC 8216
/// 4.3.2.7.1): not encrypted, no PTS adjustment, `tier` 0xFFF (all tiers), the whole program spliced.
///
/// ```swift
/// SCTE35SpliceInsert(eventID: 1, outOfNetwork: true, breakDuration: 270_000).hexDigits
/// // "FC302500...": leave the network now, for 3 s (270,000 ticks of 90 kHz), then return
/// ```
package struct SCTE35SpliceInsert: Hashable, Sendable {
    package var eventID: UInt32
    /// True where a break starts (leaving the network), false where it ends.
    package var outOfNetwork: Bool
    /// When to splice, in 90 kHz ticks (33 bits, wrapped); `nil` splices immediately.
    package var spliceTime: UInt64?
    /// How long the break lasts, in 90 kHz ticks (33 bits, wrapped).
    package var breakDuration: UInt64?
    /// Whether the network returns by itself after `breakDuration`.
    package var autoReturn: Bool
    package var uniqueProgramID: UInt16
    package var availNum: UInt8
    package var availsExpected: UInt8
    /// The `provider_avail_id` of an `avail_descriptor` (identifier `CUEI`), when one is carried.
    package var providerAvailID: UInt32?

    package init(
        eventID: UInt32, outOfNetwork: Bool, spliceTime: UInt64? = nil, breakDuration: UInt64? = nil, autoReturn: Bool = true,
        uniqueProgramID: UInt16 = 0, availNum: UInt8 = 0, availsExpected: UInt8 = 0, providerAvailID: UInt32? = nil
    ) {
        self.eventID = eventID
        self.outOfNetwork = outOfNetwork
        self.spliceTime = spliceTime
        self.breakDuration = breakDuration
        self.autoReturn = autoReturn
        self.uniqueProgramID = uniqueProgramID
        self.availNum = availNum
        self.availsExpected = availsExpected
        self.providerAvailID = providerAvailID
    }

    /// 33 bits: one flag bit and six reserved ones before the top bit, then 32 bits.
    private static func time(_ ticks: UInt64, flag: Bool) -> [UInt8] {
        let wrapped = ticks & 0x1_FFFF_FFFF
        return [(flag ? 0x80 : 0) | 0x7E | UInt8(wrapped >> 32)] + bigEndian(UInt32(truncatingIfNeeded: wrapped))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// The section's bytes, CRC included.
    package var bytes: [UInt8] {
        var command = Self.bigEndian(eventID)
        command.append(0x7F)  // splice_event_cancel_indicator 0, reserved
        let immediate = spliceTime == nil
        command.append((outOfNetwork ? 0x80 : 0) | 0x40 | (breakDuration != nil ? 0x20 : 0) | (immediate ? 0x10 : 0) | 0x0F)
        if let spliceTime { command += Self.time(spliceTime, flag: true) }
        if let breakDuration { command += Self.time(breakDuration, flag: autoReturn) }
        command += [UInt8(uniqueProgramID >> 8), UInt8(truncatingIfNeeded: uniqueProgramID), availNum, availsExpected]

        var descriptors: [UInt8] = []
        if let providerAvailID { descriptors = [0x00, 0x08] + Array("CUEI".utf8) + Self.bigEndian(providerAvailID) }

        // From protocol_version to the CRC: 1 + 5 + 1 + 3 + 1 + command + 2 + descriptors + 4.
        let sectionLength = 17 + command.count + descriptors.count
        var section: [UInt8] = [0xFC, 0x30 | UInt8(sectionLength >> 8), UInt8(truncatingIfNeeded: sectionLength)]
        section += [0x00, 0x00, 0x00, 0x00, 0x00, 0x00]  // protocol_version, not encrypted, pts_adjustment 0
        section += [0xFF, 0xFF, 0xF0 | UInt8(command.count >> 8), UInt8(truncatingIfNeeded: command.count)]  // cw_index, tier, length
        section.append(0x05)  // splice_insert
        section += command
        section += [UInt8(descriptors.count >> 8), UInt8(truncatingIfNeeded: descriptors.count)] + descriptors
        return section + Self.bigEndian(Self.crc32(section))
    }

    /// `bytes` as upper-case hexadecimal digits (an HLS hexadecimal-sequence after its `0x`).
    package var hexDigits: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// CRC-32/MPEG-2 (polynomial 0x04C11DB7, initial 0xFFFFFFFF, not reflected, no final XOR).
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
