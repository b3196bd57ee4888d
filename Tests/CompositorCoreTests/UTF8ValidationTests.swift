import Testing
@testable import CompositorCore

/// The one UTF-8 check behind schedule strings, playlist text and file paths: ASCII passes as it
/// is; anything else is decoded scalar by scalar, and every ill-formed sequence refuses.
@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    @Test("well-formed text is kept", arguments: [
        ([], ""),
        (Array("ad-break 7.mp4".utf8), "ad-break 7.mp4"),
        ([0x63, 0x61, 0x66, 0xC3, 0xA9], "café"),                 // two-byte scalar
        ([0xE2, 0x82, 0xAC], "€"),                                // three bytes
        ([0xF0, 0x9F, 0x8E, 0xAC], "🎬"),                          // four bytes
    ] as [([UInt8], String)])
    func wellFormed(bytes: [UInt8], text: String) {
        #expect(String(validatingUTF8Bytes: bytes) == text)
    }

    @Test("ill-formed bytes are refused", arguments: [
        [0x80],                     // a continuation byte alone
        [0xC0, 0xAF],               // overlong '/'
        [0xE0, 0x80, 0xAF],         // overlong, three bytes
        [0xED, 0xA0, 0x80],         // a UTF-16 surrogate
        [0xE2, 0x82],               // truncated at the end
        [0x61, 0xE2, 0x82, 0x61],   // truncated before ASCII
        [0xF4, 0x90, 0x80, 0x80],   // past U+10FFFF
        [0xFF],
    ] as [[UInt8]])
    func illFormed(bytes: [UInt8]) {
        #expect(String(validatingUTF8Bytes: bytes) == nil)
    }
}
