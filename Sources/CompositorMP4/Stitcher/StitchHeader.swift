import CompositorCore

/// Where header bytes go: the output's buffer when writing, memory in tests.
protocol HeaderSink {
    mutating func write(_ bytes: [UInt8]) throws(MP4Error)
    mutating func write(_ value: UInt32) throws(MP4Error)
    mutating func write(_ value: UInt64) throws(MP4Error)
}

extension ByteWriter: HeaderSink {}

/// The bytes before the samples, `ftyp` + `moov` + the `mdat` header: sized when the stitch is
/// planned, made as they are written. Small boxes are kept as bytes; the sample tables are written
/// entry by entry from what planning kept of them (`SampleTables`, a few bytes a sample), so no
/// table is ever held whole in memory.
struct StitchHeader: Sendable {
    indirect enum Part: Sendable {
        case bytes([UInt8])
        case box(FourCC, [Part])
        /// `count` entries of one of track `track`'s tables.
        case entries(Table, track: Int, count: Int)
    }

    enum Table: Sendable {
        case timeToSample, compositionOffsets, syncSamples, sizes, sampleToChunk
        case chunkOffsets(wide: Bool)

        var entrySize: Int {
            switch self {
            case .timeToSample, .compositionOffsets: 8
            case .syncSamples, .sizes: 4
            case .sampleToChunk: 12
            case .chunkOffsets(let wide): wide ? 8 : 4
            }
        }
    }

    /// Each track's kind (for messages), tables and chunks (positions relative to the mdat payload).
    let kinds: [TrackKind]
    let tables: [SampleTables]
    let chunksOfTrack: [ChunkList]
    let parts: [Part]
    /// The file errors name.
    let file: String

    init(kinds: [TrackKind], tables: [SampleTables], chunksOfTrack: [ChunkList], parts: [Part], file: String) {
        self.kinds = kinds
        self.tables = tables
        self.chunksOfTrack = chunksOfTrack
        self.parts = parts
        self.file = file
        size = Self.size(of: parts)
    }

    /// Bytes in all: where the mdat payload starts.
    let size: UInt64

    static func size(of parts: [Part]) -> UInt64 {
        var total: UInt64 = 0
        for part in parts {
            switch part {
            case .bytes(let bytes): total += UInt64(bytes.count)
            case .box(_, let parts):
                let payload = size(of: parts)
                total += boxHeaderSize(payloadSize: payload) + payload
            case .entries(let table, _, let count): total += UInt64(count) * UInt64(table.entrySize)
            }
        }
        return total
    }

    static func boxHeaderSize(payloadSize: UInt64) -> UInt64 { payloadSize + 8 <= UInt64(UInt32.max) ? 8 : 16 }

    func write<Sink: HeaderSink>(to sink: inout Sink) throws(MP4Error) {
        for part in parts { try write(part, to: &sink) }
    }

    private func write<Sink: HeaderSink>(_ part: Part, to sink: inout Sink) throws(MP4Error) {
        switch part {
        case .bytes(let bytes):
            try sink.write(bytes)
        case .box(let type, let parts):
            var header = ByteWriter()
            header.writeBoxHeader(type, payloadSize: Self.size(of: parts))
            try sink.write(header.bytes)
            for part in parts { try write(part, to: &sink) }
        case .entries(let table, let track, let count):
            let written = try writeEntries(table, of: track, to: &sink)
            guard written == count else {
                throw .io(file: file, operation: "write", reason: "the \(kinds[track]) track's \(table) table has \(written) entries, \(count) planned")
            }
        }
    }

    /// Writes the entries; returns how many.
    private func writeEntries<Sink: HeaderSink>(_ table: Table, of index: Int, to sink: inout Sink) throws(MP4Error) -> Int {
        var written = 0
        switch table {
        case .timeToSample:
            try tables[index].forEachTimeToSample { (count, duration) throws(MP4Error) in
                try sink.write(count)
                try sink.write(duration)
                written += 1
            }
        case .compositionOffsets:
            try tables[index].forEachCompositionOffset { (count, offset) throws(MP4Error) in
                try sink.write(count)
                try sink.write(UInt32(bitPattern: offset))
                written += 1
            }
        case .syncSamples:
            try tables[index].forEachSyncSample { (number) throws(MP4Error) in
                try sink.write(number)
                written += 1
            }
        case .sizes:
            try tables[index].forEachSize { (size) throws(MP4Error) in
                try sink.write(size)
                written += 1
            }
        case .sampleToChunk:
            try Self.forEachSampleToChunkEntry(chunksOfTrack[index]) { (entry) throws(MP4Error) in
                try sink.write(entry.firstChunk)
                try sink.write(entry.samplesPerChunk)
                try sink.write(entry.sampleDescriptionIndex)
                written += 1
            }
        case .chunkOffsets(let wide):
            for chunk in chunksOfTrack[index] {
                if wide { try sink.write(chunk.position + size) } else { try sink.write(UInt32(truncatingIfNeeded: chunk.position + size)) }
                written += 1
            }
        }
        return written
    }

    /// `stsc`'s entries for a track's chunks, in order.
    static func forEachSampleToChunkEntry<Failure: Error>(_ chunks: ChunkList, _ body: (SampleToChunkBox.Entry) throws(Failure) -> Void) throws(Failure) {
        try SampleToChunkBox.forEachEntry(ofChunks: chunks.lazy.map { ($0.sampleCount, $0.description + 1) }, body)
    }
}
