/// A chunk as the tables describe it. Sample counts and description indices are 32-bit in the
/// tables (the plan checks each track's sample count).
struct PlacedChunk: Equatable {
    /// Offset in the mdat payload.
    var position: UInt64
    var sampleCount: UInt32
    var description: UInt32
}

/// A track's chunks in order, a few bytes each until the `moov` is written: the position as its
/// change from the chunk before (zigzag), the sample count and the description, each as a LEB128
/// number. A source that interleaves every frame has a chunk per sample, so at 16 bytes a chunk
/// the list was most of a plan's memory.
struct ChunkList: Sequence, Sendable {
    private var bytes: [UInt8] = []
    private(set) var count = 0
    private var lastPosition: UInt64 = 0

    mutating func append(_ chunk: PlacedChunk) {
        let change = Int64(bitPattern: chunk.position &- lastPosition)
        appendNumber(UInt64(bitPattern: change << 1 ^ change >> 63))
        appendNumber(UInt64(chunk.sampleCount))
        appendNumber(UInt64(chunk.description))
        lastPosition = chunk.position
        count += 1
    }

    private mutating func appendNumber(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    struct Iterator: IteratorProtocol {
        fileprivate let bytes: [UInt8]
        fileprivate var offset = 0
        fileprivate var position: UInt64 = 0

        mutating func next() -> PlacedChunk? {
            guard offset < bytes.count else { return nil }
            let zigzag = number()
            position &+= UInt64(bitPattern: Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            return PlacedChunk(position: position, sampleCount: UInt32(truncatingIfNeeded: number()),
                               description: UInt32(truncatingIfNeeded: number()))
        }

        /// The list wrote every number it reads: none is cut short.
        private mutating func number() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
    }

    func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}
