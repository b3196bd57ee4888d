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
    private var bytes = LEB128Pages()
    private(set) var count = 0
    private var lastPosition: UInt64 = 0

    mutating func append(_ chunk: PlacedChunk) {
        bytes.append(zigzag: chunk.position &- lastPosition)
        bytes.append(UInt64(chunk.sampleCount))
        bytes.append(UInt64(chunk.description))
        lastPosition = chunk.position
        count += 1
    }

    struct Iterator: IteratorProtocol {
        fileprivate var reader: LEB128Reader
        fileprivate var position: UInt64 = 0

        mutating func next() -> PlacedChunk? {
            guard !reader.isAtEnd else { return nil }
            position &+= reader.zigzag()
            return PlacedChunk(position: position, sampleCount: UInt32(truncatingIfNeeded: reader.number()),
                               description: UInt32(truncatingIfNeeded: reader.number()))
        }
    }

    func makeIterator() -> Iterator { Iterator(reader: LEB128Reader(bytes)) }
}

/// The mdat payload's copy list, a few bytes a copy: a render of 10,000 breaks, whose pieces each
/// copy their hidden lead-in frame by frame (the audio between them is not copied), makes
/// hundreds of thousands. Each copy is its kind (0: a synthetic payload, then its index and
/// repeat count; 1: padding, then its length; n + 2: source file n, then the offset as its change
/// from the last source copy's end, zigzag, and the length), in LEB128 numbers. The last copy
/// stays unencoded, so the next can join it.
struct CopySegmentList: Sequence, Sendable {
    private var bytes = LEB128Pages()
    private var lastEnd: UInt64 = 0
    private(set) var last: CopySegment?

    /// Appends a copy: to the last one when it follows on (the same file right after, or the
    /// same payload).
    mutating func append(_ segment: CopySegment) {
        switch (last, segment) {
        case (.source(let file, let offset, let length)?, .source(let next, let nextOffset, let nextLength))
            where file == next && offset + length == nextOffset:
            last = .source(file: file, offset: offset, length: length + nextLength)
        case (.synthetic(let payload, let count)?, .synthetic(let next, let nextCount)) where payload == next:
            last = .synthetic(payload: payload, repeatCount: count + nextCount)
        default:
            if let last { encode(last) }
            last = segment
        }
    }

    private mutating func encode(_ segment: CopySegment) {
        switch segment {
        case .source(let file, let offset, let length):
            bytes.append(UInt64(file) + 2)
            bytes.append(zigzag: offset &- lastEnd)
            bytes.append(length)
            lastEnd = offset + length
        case .synthetic(let payload, let repeatCount):
            bytes.append(0)
            bytes.append(UInt64(payload))
            bytes.append(UInt64(repeatCount))
        case .padding(let length):
            bytes.append(1)
            bytes.append(length)
        }
    }

    struct Iterator: IteratorProtocol {
        fileprivate var reader: LEB128Reader
        fileprivate var last: CopySegment?
        fileprivate var lastEnd: UInt64 = 0

        mutating func next() -> CopySegment? {
            guard !reader.isAtEnd else {
                defer { last = nil }
                return last
            }
            let kind = reader.number()
            switch kind {
            case 0: return .synthetic(payload: Int(truncatingIfNeeded: reader.number()), repeatCount: Int(truncatingIfNeeded: reader.number()))
            case 1: return .padding(length: reader.number())
            default:
                let offset = lastEnd &+ reader.zigzag()
                let length = reader.number()
                lastEnd = offset &+ length
                return .source(file: Int(truncatingIfNeeded: kind - 2), offset: offset, length: length)
            }
        }
    }

    func makeIterator() -> Iterator { Iterator(reader: LEB128Reader(bytes), last: last) }
}

/// LEB128 numbers in pages that are never copied: a list grows a page at a time (each up to
/// 64 KiB), so it holds at most a page more than it uses, where an array grown by doubling held up
/// to twice what it used. A number never straddles two pages. The page being filled is allocated
/// whole and held apart from the full ones, so a number is written with one uniqueness check, not
/// an array append (and its checks) per byte.
struct LEB128Pages: Sendable {
    fileprivate private(set) var full: [[UInt8]] = []
    fileprivate private(set) var current: [UInt8] = []
    /// Bytes of `current` written.
    fileprivate private(set) var used = 0
    private var total = 0
    private static let largestPage = 1 << 16
    private static let longestNumber = 10

    mutating func append(_ value: UInt64) {
        if used + Self.longestNumber > current.count { startPage() }
        let start = used
        used = current.withUnsafeMutableBufferPointer { page in
            var value = value
            var end = start
            while value >= 0x80 {
                page[end] = UInt8(truncatingIfNeeded: value) | 0x80
                value >>= 7
                end += 1
            }
            page[end] = UInt8(value)
            return end + 1
        }
        total += used - start
    }

    /// A difference of two unsigned values, taken as signed and zigzag coded (small either way).
    mutating func append(zigzag difference: UInt64) {
        let signed = Int64(bitPattern: difference)
        append(UInt64(bitPattern: signed << 1 ^ signed >> 63))
    }

    private mutating func startPage() {
        if used > 0 {
            current.removeLast(current.count - used)
            full.append(current)
        }
        // Small lists stay small: pages grow with the list up to the largest.
        current = Array(repeating: 0, count: min(Self.largestPage, max(256, total)))
        used = 0
    }
}

/// Reads what `LEB128Pages` holds: every number was written whole, so none is cut short.
struct LEB128Reader {
    private var pages: ArraySlice<[UInt8]>
    private var page: [UInt8]
    private var offset = 0

    init(_ numbers: LEB128Pages) {
        pages = (numbers.full + [Array(numbers.current[..<numbers.used])])[...]
        page = pages.popFirst() ?? []
    }

    var isAtEnd: Bool { offset >= page.count && pages.isEmpty }

    @inline(__always)
    mutating func number() -> UInt64 {
        if offset >= page.count {
            page = pages.popFirst() ?? []
            offset = 0
        }
        let (value, end) = page.withUnsafeBufferPointer { page in
            var value: UInt64 = 0
            var shift: UInt64 = 0
            var at = offset
            while true {
                let byte = page[at]
                at += 1
                // At most ten bytes a number: the shift stays under 64.
                value |= UInt64(byte & 0x7F) &<< shift
                if byte < 0x80 { return (value, at) }
                shift += 7
            }
        }
        offset = end
        return value
    }

    /// A zigzag-coded difference, to add (wrapping) to what it was taken from.
    mutating func zigzag() -> UInt64 {
        let coded = number()
        return UInt64(bitPattern: Int64(bitPattern: coded >> 1) ^ -Int64(bitPattern: coded & 1))
    }
}
