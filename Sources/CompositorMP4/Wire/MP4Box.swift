import CompositorCore

/// A box header as it sits in the file: the wire layer under the typed boxes in `Boxes/`.
struct MP4BoxHeader: Sendable, Equatable {
    let type: FourCC
    /// File offset of the header's first byte.
    let offset: UInt64
    /// 8, or 16 with a 64-bit `largesize` (plus 16 more for a `uuid` box's user type).
    let headerSize: Int
    /// Header and payload together.
    let size: UInt64

    var payloadOffset: UInt64 { offset + UInt64(headerSize) }
    var payloadSize: UInt64 { size - UInt64(headerSize) }
    var end: UInt64 { offset + size }

    /// Reads a header at `reader`'s position. `available` is how many bytes the enclosing space
    /// (parent payload or file) has from this header on: a size past it is malformed, and a size of
    /// 0 means "to the end" of that space.
    static func read(from reader: inout ByteReader, available: UInt64) throws(WireFailure) -> MP4BoxHeader {
        let offset = reader.offset
        guard available >= 8 else {
            throw .malformed("\(available) stray bytes where a box header (8 bytes) should be", at: offset)
        }
        let size32 = try reader.readUInt32()
        let type = try reader.readFourCC()
        var headerSize = 8
        let size: UInt64
        switch size32 {
        case 0:
            size = available
        case 1:
            guard available >= 16 else { throw .malformed("box '\(type)' has a 64-bit size cut short", at: offset) }
            size = try reader.readUInt64()
            headerSize = 16
        default:
            size = UInt64(size32)
        }
        if type == .uuid { headerSize += 16 }
        guard size >= UInt64(headerSize) else {
            throw .malformed("box '\(type)' claims size \(size), smaller than its \(headerSize)-byte header", at: offset)
        }
        guard size <= available else {
            throw .malformed("box '\(type)' claims size \(size), past the end of its container (\(available) bytes left)", at: offset)
        }
        return MP4BoxHeader(type: type, offset: offset, headerSize: headerSize, size: size)
    }

    /// Reads a header and slices the payload after it, leaving `reader` after the box.
    static func readBox(from reader: inout ByteReader) throws(WireFailure) -> (header: MP4BoxHeader, payload: ByteReader) {
        let start = reader.offset
        let header = try read(from: &reader, available: UInt64(reader.remaining))
        // The read consumed 8 bytes, or 16 with a 64-bit size; a uuid's user type is the rest of
        // `headerSize`. The header's checks (its size covers its header and fits what is left)
        // make both steps succeed.
        try reader.skip(header.headerSize - Int(reader.offset - start))
        return (header, try reader.readSlice(Int(header.payloadSize)))
    }
}

/// A box read into memory: its header, its path from the top (`moov/trak[1]/mdia`), its payload
/// and, for container boxes, the children this library looks up.
struct MP4Box: Sendable {
    let header: MP4BoxHeader
    let path: String
    /// A reader over the payload (after the header).
    let payload: ByteReader
    /// The children kept (see `lookedUpTypes`), in file order.
    let children: [MP4Box]

    var type: FourCC { header.type }

    /// The deepest nesting of container boxes read (`moov` is depth 0). Real files stay under
    /// ten (`moov/trak/mdia/minf/stbl`, `moov/udta/meta/ilst/...`); a box nested deeper is
    /// malformed, so a file of nested headers cannot exhaust the stack.
    static let maximumDepth = 32

    /// Boxes whose payload is nothing but boxes.
    static let containerTypes: FourCCSet = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta", "mvex", "moof", "traf"]

    /// The child types anything looks up. Every child of a container is checked (header, size,
    /// nesting), but only these are kept, and of each only the first (what `child(_:)` returns),
    /// except the `repeatedTypes`. A `moov` of a million 8-byte boxes (free
    /// space, unknown types, repeats of a known one) so costs a walk over its bytes, not a
    /// million values in memory.
    static let lookedUpTypes: FourCCSet = [
        "mvhd", "mvex", "trak", "udta", "meta",          // moov, udta
        "tkhd", "edts", "elst", "mdia", "mdhd", "hdlr",  // trak, edts, mdia
        "minf", "stbl",                                  // mdia, minf
        "stsd", "stts", "ctts", "stss", "stsc", "stsz", "stz2", "stco", "co64",  // stbl
        "trex", "traf", "tfhd", "tfdt", "trun",          // mvex, moof, traf
    ]

    /// The looked-up types kept every time they occur, each numbered in its path (`traf[0]/trun[1]`).
    static let repeatedTypes: FourCCSet = ["trak", "trex", "traf", "trun"]

    /// The first child of `type`, if any; `type` must be one of `lookedUpTypes`.
    func child(_ type: FourCC) -> MP4Box? {
        assert(Self.lookedUpTypes.contains(type), "'\(type)' children are not kept: add it to MP4Box.lookedUpTypes")
        return children.first { $0.type == type }
    }

    /// Every child of `type`; only the `repeatedTypes` are kept more than once.
    func children(_ type: FourCC) -> [MP4Box] {
        assert(Self.lookedUpTypes.contains(type), "'\(type)' children are not kept: add it to MP4Box.lookedUpTypes")
        return children.filter { $0.type == type }
    }

    /// The child of `type`, or a malformed failure naming the missing box.
    func requiredChild(_ type: FourCC, file: String) throws(MP4Error) -> MP4Box {
        guard let box = child(type) else {
            throw .malformed(file: file, boxPath: path, offset: header.offset, reason: "missing required '\(type)' box")
        }
        return box
    }

    /// Reads the box at `reader`'s position (and, for containers, its children, recursively);
    /// `depth` is how many containers enclose it.
    static func read(from reader: inout ByteReader, parentPath: String, siblingIndex: Int?, file: String, depth: Int = 0) throws(MP4Error) -> MP4Box {
        let (header, payload) = try readHeader(from: &reader, parentPath: parentPath, file: file) {
            Self.path(parent: parentPath, type: $0, siblingIndex: siblingIndex)
        }
        let path = Self.path(parent: parentPath, type: header.type, siblingIndex: siblingIndex)
        var children: [MP4Box] = []
        if containerTypes.contains(header.type) {
            guard depth < maximumDepth else {
                throw .malformed(file: file, boxPath: path, offset: header.offset,
                                 reason: "boxes nested deeper than \(maximumDepth) levels")
            }
            children = try readChildren(of: payload, path: path, file: file, depth: depth + 1)
        }
        return MP4Box(header: header, path: path, payload: payload, children: children)
    }

    /// Reads consecutive boxes until `payload` is used up; repeated types get an index in their path.
    /// Returns the children to keep (see `lookedUpTypes`), none when `keep` is false (the
    /// children of a box that is not kept are checked all the same).
    static func readChildren(of payload: ByteReader, path: String, file: String, depth: Int, keep: Bool = true) throws(MP4Error) -> [MP4Box] {
        var reader = payload
        var children: [MP4Box] = []
        var keptTypes: [FourCC] = []  // at most the few looked-up types: searched, not hashed
        var repeatCounts: [(FourCC, Int)] = []  // likewise
        while !reader.isAtEnd {
            // Some writers pad containers with a 4-byte zero terminator (QuickTime's udta).
            if reader.remaining == 4 {
                var peek = reader
                if (try? peek.readUInt32()) == 0 { break }
            }
            let start = reader.offset
            let header: MP4BoxHeader
            do {
                header = try MP4BoxHeader.read(from: &reader, available: UInt64(reader.remaining))
            } catch {
                throw error.error(file: file, boxPath: path)
            }
            var siblingIndex: Int?
            if repeatedTypes.contains(header.type) {
                if let position = repeatCounts.firstIndex(where: { $0.0 == header.type }) {
                    siblingIndex = repeatCounts[position].1
                    repeatCounts[position].1 += 1
                } else {
                    siblingIndex = 0
                    repeatCounts.append((header.type, 1))
                }
            }
            let kept = keep && lookedUpTypes.contains(header.type) && (siblingIndex != nil || !keptTypes.contains(header.type))
            let isContainer = containerTypes.contains(header.type)
            // Most boxes of a file of tiny ones are neither kept nor have children: they are
            // stepped over, with no payload reader and no path (making those was most of the
            // cost of walking them). The header's checks (its size covers its header and fits
            // what is left) make the step succeed.
            guard kept || (isContainer && header.payloadSize > 0) else {
                do { try reader.skip(Int(header.end - reader.offset)) } catch {
                    throw error.error(file: file, boxPath: Self.path(parent: path, type: header.type, siblingIndex: siblingIndex))
                }
                continue
            }
            let childPath = Self.path(parent: path, type: header.type, siblingIndex: siblingIndex)
            let childPayload: ByteReader
            do {
                try reader.skip(header.headerSize - Int(reader.offset - start))
                childPayload = try reader.readSlice(Int(header.payloadSize))
            } catch {
                throw error.error(file: file, boxPath: childPath)
            }
            var grandchildren: [MP4Box] = []
            if isContainer {
                guard depth < maximumDepth else {
                    throw .malformed(file: file, boxPath: childPath, offset: start,
                                     reason: "boxes nested deeper than \(maximumDepth) levels")
                }
                grandchildren = try readChildren(of: childPayload, path: childPath, file: file, depth: depth + 1, keep: kept)
            }
            if kept {
                keptTypes.append(header.type)
                children.append(MP4Box(header: header, path: childPath, payload: childPayload, children: grandchildren))
            }
        }
        return children
    }

    /// Reads a header at `reader`'s position and slices its payload, leaving `reader` after the
    /// box. A header that does not parse is reported at `parentPath`; `path(type)` names the box
    /// for a failure past its header.
    private static func readHeader(from reader: inout ByteReader, parentPath: String, file: String,
                                   path: (FourCC) -> String) throws(MP4Error) -> (MP4BoxHeader, ByteReader) {
        let start = reader.offset
        let header: MP4BoxHeader
        do {
            header = try MP4BoxHeader.read(from: &reader, available: UInt64(reader.remaining))
        } catch {
            throw error.error(file: file, boxPath: parentPath)
        }
        do {
            // As in `MP4BoxHeader.readBox`: the header's checks make both steps succeed.
            try reader.skip(header.headerSize - Int(reader.offset - start))
            return (header, try reader.readSlice(Int(header.payloadSize)))
        } catch {
            throw error.error(file: file, boxPath: path(header.type))
        }
    }

    /// `parent/type`, or `parent/trak[index]` for a track.
    static func path(parent: String, type: FourCC, siblingIndex: Int?) -> String {
        let name = siblingIndex.map { "\(type)[\($0)]" } ?? type.description
        return parent.isEmpty ? name : parent + "/" + name
    }

    /// Parses the payload as the typed box `T`, naming this box's path in any failure.
    func parse<T: MP4ParsableBox>(_: T.Type, file: String) throws(MP4Error) -> T {
        do {
            var reader = payload
            return try T(parsing: &reader)
        } catch {
            throw error.error(file: file, boxPath: path)
        }
    }
}

/// A typed box: decoded from its payload, and written back (go-mp4 style; the box header is
/// written by `ByteWriter.writeBox`).
protocol MP4ParsableBox: Sendable {
    static var type: FourCC { get }
    /// Decodes the payload (for a full box, starting at its version byte).
    init(parsing payload: inout ByteReader) throws(WireFailure)
}

protocol MP4WritableBox: Sendable {
    static var type: FourCC { get }
    func writePayload(to writer: inout ByteWriter)
}

extension ByteWriter {
    mutating func write<B: MP4WritableBox>(box: B) {
        writeBox(B.type) { box.writePayload(to: &$0) }
    }
}

/// A full box's version byte and 24 bits of flags.
struct FullBoxHeader: Sendable, Equatable {
    var version: UInt8
    var flags: UInt32

    static func read(from reader: inout ByteReader) throws(WireFailure) -> FullBoxHeader {
        FullBoxHeader(version: try reader.readUInt8(), flags: try reader.readUInt24())
    }

    /// Throws unsupported unless the version is one of `known`.
    func require(versions known: ClosedRange<UInt8>, of type: FourCC, at offset: UInt64) throws(WireFailure) {
        guard known.contains(version) else {
            throw .unsupported("'\(type)' version \(version) (known: \(known.lowerBound)...\(known.upperBound))", at: offset)
        }
    }
}
