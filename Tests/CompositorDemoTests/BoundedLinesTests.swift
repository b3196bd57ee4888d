import Foundation
import Testing
@testable import CompositorDemo

/// `live` reads `insert ID` lines from stdin; a 20 MB line was held whole and echoed into an error
/// (21 MB of stderr, 118 MB RSS in the fourth hostile campaign).
@Suite("Bounded lines (live's stdin)")
struct BoundedLinesTests {
    /// The lines `input` gives, written into a pipe by another thread (a pipe holds 64 KiB).
    static func lines(_ input: [UInt8], limit: Int) -> [BoundedLines.Line] {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return [] }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        Thread.detachNewThread {
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writeEnd)
        }
        defer { close(readEnd) }
        var reader = BoundedLines(descriptor: readEnd, limit: limit)
        var lines: [BoundedLines.Line] = []
        while let line = reader.next() { lines.append(line) }
        return lines
    }

    @Test("a line over the limit is skipped by its length; the lines around it are read, CRLF or not, the last without its line feed")
    func longLineSkipped() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 20 << 20)
        let input = Array("insert a\r\n".utf8) + long + Array("\ninsert b\n\n".utf8) + Array(repeating: UInt8(ascii: "y"), count: 4096)
            + Array("\ninsert c".utf8)
        #expect(Self.lines(input, limit: 4096) == [
            .text("insert a"), .tooLong(bytes: 20 << 20), .text("insert b"), .text(""), .text(String(repeating: "y", count: 4096)),
            .text("insert c"),
        ])
        #expect(Self.lines(Array(repeating: UInt8(ascii: "z"), count: 5000), limit: 4096) == [.tooLong(bytes: 5000)])
        #expect(Self.lines([], limit: 4096) == [])
    }
}
