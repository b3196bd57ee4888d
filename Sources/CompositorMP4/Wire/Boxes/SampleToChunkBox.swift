import CompositorCore

/// `stsc`: how many samples each chunk holds and which sample description they use, as runs
/// starting at 1-based chunk numbers (8.7.4).
struct SampleToChunkBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "stsc"
    struct Entry: Sendable, Equatable {
        var firstChunk: UInt32
        var samplesPerChunk: UInt32
        /// 1-based index into `stsd`.
        var sampleDescriptionIndex: UInt32
    }
    var entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    /// Run-length codes one (sample count, 1-based description index) pair per chunk.
    init(chunks: [(samples: UInt32, descriptionIndex: UInt32)]) {
        var entries: [Entry] = []
        Self.forEachEntry(ofChunks: chunks) { entries.append($0) }
        self.entries = entries
    }

    /// The entries for chunks given in order, one at a time: a new entry where a chunk's sample
    /// count or description differs from the chunk before.
    static func forEachEntry<Chunks: Sequence, Failure: Error>(
        ofChunks chunks: Chunks, _ body: (Entry) throws(Failure) -> Void
    ) throws(Failure) where Chunks.Element == (samples: UInt32, descriptionIndex: UInt32) {
        var last: (samples: UInt32, descriptionIndex: UInt32)?
        for (index, chunk) in chunks.enumerated() {
            defer { last = chunk }
            if let last, last == chunk { continue }
            try body(Entry(firstChunk: UInt32(index + 1), samplesPerChunk: chunk.samples, sampleDescriptionIndex: chunk.descriptionIndex))
        }
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        let count = try reader.readUInt32()
        try reader.requireTable(count: UInt64(count), entrySize: 12, "stsc")
        entries = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let entry = Entry(firstChunk: try reader.readUInt32(), samplesPerChunk: try reader.readUInt32(),
                              sampleDescriptionIndex: try reader.readUInt32())
            guard entry.firstChunk >= 1, entry.firstChunk > (entries.last?.firstChunk ?? 0) else {
                throw .malformed("stsc first chunk \(entry.firstChunk) does not increase from 1", at: reader.offset - 12)
            }
            entries.append(entry)
        }
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(UInt32(entries.count))
        for entry in entries {
            writer.write(entry.firstChunk)
            writer.write(entry.samplesPerChunk)
            writer.write(entry.sampleDescriptionIndex)
        }
    }
}
