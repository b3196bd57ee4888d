import Testing
import CompositorTestSupport
import CompositorCore

/// A buffer kept from segment to segment: what was written is what it holds, whatever the
/// storage held before.
@Suite("Output bytes")
struct OutputBytesTests {
    @Test("room is written in place; growing keeps what was written; removeAll forgets it")
    func reuse() {
        var bytes = OutputBytes()
        bytes.append(contentsOf: [1, 2, 3])
        bytes.append(room: 2) { room in room.copyBytes(from: [4, 5] as [UInt8]) }
        #expect(bytes.array == [1, 2, 3, 4, 5])
        // Far past the storage: it grows, and the first bytes stay.
        let large = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        large.withUnsafeBytes { bytes.append(contentsOf: $0) }
        #expect(bytes.array == [1, 2, 3, 4, 5] + large)
        // A second use: only what it writes, though the storage still holds the first's bytes.
        bytes.removeAll()
        #expect(bytes.count == 0 && bytes.array.isEmpty)
        bytes.append(contentsOf: [9])
        bytes.append(contentsOf: [])
        #expect(bytes.array == [9])
    }

    struct Refused: Error {}

    @Test("room whose writer throws is taken back")
    func thrownRoom() {
        var bytes = OutputBytes()
        bytes.append(contentsOf: [1, 2])
        #expect(throws: Refused.self) {
            try bytes.append(room: 100) { (room) throws(Refused) in
                room.initializeMemory(as: UInt8.self, repeating: 7)
                throw Refused()
            }
        }
        #expect(bytes.array == [1, 2])
    }
}
