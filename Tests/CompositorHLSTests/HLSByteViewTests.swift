import Testing
@testable import CompositorHLS

@Suite("HLS byte view")
struct HLSByteViewTests {
    /// `firstNewline` reads eight bytes at a time: every start, every window end and every byte
    /// value around a newline (`0x0B`, `0x8A`, `0xFF` differ from `\n` by one bit or in the top bit)
    /// must give what a byte-by-byte scan gives.
    @Test("firstNewline finds what a byte-by-byte scan finds")
    func firstNewlineMatchesScan() {
        var bytes: [UInt8] = []
        let fillers: [UInt8] = [0x0B, 0x8A, 0xFF, 0x00, 0x09, 0x0D, UInt8(ascii: "a"), 0x80, 0x7F]
        for run in 0..<40 {
            for k in 0..<(run % 19) { bytes.append(fillers[(run + k) % fillers.count]) }
            bytes.append(10)
        }
        bytes += [0x0B, 0x8A, 0xFF]  // no newline after the last one
        bytes.withUnsafeBufferPointer { buffer in
            for end in stride(from: 0, through: buffer.count, by: 7) {
                let view = HLSByteView(buffer, 0, end)
                for start in 0...end {
                    var expected = start
                    while expected < end, buffer[expected] != 10 { expected += 1 }
                    #expect(view.firstNewline(from: start) == expected, "start \(start), end \(end)")
                }
            }
        }
    }
}
