import CompositorCore
import CompositorIO

/// Lays the placed tracks out as a file: chunks, their order in `mdat`, the copy list, and the
/// `ftyp` + `moov` + `mdat` header bytes that go before the samples.
struct StitchLayoutBuilder {
    let tracks: [PlacedTrack]
    let sources: [(path: FilePath, store: MP4SampleStore)]
    let syntheticPayloads: [[UInt8]]
    let movieTimescale: Int32
    let movieDuration: UInt64

    /// A chunk stays under this size, so tracks interleave finely enough for streaming players.
    static let chunkSizeLimit: UInt64 = 1 << 20

    /// A run of consecutive samples of one track whose bytes are consecutive, while its piece is
    /// laid out (see `layOut`).
    struct Chunk {
        var bytes: SampleBytes
        var track: Int
        var firstSample: Int
        var sampleCount: Int
        var byteCount: UInt64
        var description: Int
        /// 0: lead-in silence, 1: copied samples, 2: silence after them. Orders a piece's data.
        var group: UInt8
    }

    /// A chunk as the tables keep it: a source may hold one sample per chunk, so what is kept for
    /// every chunk until the moov is written is small. Sample counts and description indices
    /// are 32-bit in the tables (the plan checks each track's sample count).
    struct PlacedChunk {
        /// Offset in the mdat payload.
        var position: UInt64
        var sampleCount: UInt32
        var description: UInt32
    }

    /// Where every chunk goes in the mdat payload, and the copies that fill it.
    struct Layout {
        var chunksOfTrack: [[PlacedChunk]]
        var segments: [CopySegment] = []
        var payloadSize: UInt64 = 0
    }

    func build() throws(MP4Error) -> StitchLayout {
        let file = sources.first?.path.description ?? ""
        let layout = try layOut(file: file)
        let payloadSize = layout.payloadSize
        let segments = layout.segments

        // Chunk offsets are written relative to the mdat payload, then moved by where it starts
        // (known once the moov is): the moov's size depends only on the offsets' width.
        let tables = try tracks.indices.map { (index) throws(MP4Error) in
            try trackTables(index, chunks: layout.chunksOfTrack[index], file: file)
        }
        let ftyp = Self.fileTypeBox()
        let mdatHeaderSize: UInt64 = payloadSize + 8 <= UInt64(UInt32.max) ? 8 : 16
        // Offsets within a payload that fits 32 bits fit them too; whether the payload's start
        // does is known once the moov is written.
        var wide = mdatHeaderSize + payloadSize > UInt64(UInt32.max)
        // Room for the whole header at once: growing it by doubling would hold two copies.
        let capacity = tables.reduce(4096) { $0 + $1.largestSize }
        var header = ByteWriter(capacity: capacity)
        header.write(ftyp)
        var chunkTables = writeMovie(tables, wide: wide, to: &header)
        if !wide, UInt64(header.count) + mdatHeaderSize + payloadSize > UInt64(UInt32.max) {
            wide = true
            header = ByteWriter(capacity: capacity)
            header.write(ftyp)
            chunkTables = writeMovie(tables, wide: true, to: &header)
        }
        let base = UInt64(header.count) + mdatHeaderSize
        let width = wide ? 8 : 4
        for table in chunkTables {
            for at in stride(from: table.start, to: table.start + width * table.count, by: width) {
                header.patch(header.value(at: at, width: width) + base, at: at, width: width)
            }
        }
        header.writeBoxHeader("mdat", payloadSize: payloadSize)

        return StitchLayout(sources: sources, movieTimescale: movieTimescale, movieDuration: movieDuration,
                            segments: segments, syntheticPayloads: syntheticPayloads,
                            mdatPayloadSize: payloadSize, headerBytes: header.bytes)
    }

    /// Lays the chunks out piece by piece (each track's samples are in piece order): a piece's
    /// lead-in, its copied chunks in source order (so copying reads each source forwards, in long
    /// runs), then its synthetic tail. Only one piece's chunks are held whole at a time.
    private func layOut(file: String) throws(MP4Error) -> Layout {
        var layout = Layout(chunksOfTrack: Array(repeating: [], count: tracks.count))
        var cursors = tracks.map { $0.samples() }
        var pending: [(sample: TrackSample, piece: Int)?] = []
        var sampleNumbers = Array(repeating: 0, count: tracks.count)
        for index in tracks.indices { pending.append(try next(of: index, &cursors, file: file)) }

        var pieceChunks: [Chunk] = []
        while let piece = pending.compactMap({ $0?.piece }).min() {
            pieceChunks.removeAll(keepingCapacity: true)
            for track in tracks.indices {
                var current: Chunk?
                while let (sample, samplePiece) = pending[track], samplePiece == piece {
                    pending[track] = try next(of: track, &cursors, file: file)
                    defer { sampleNumbers[track] += 1 }
                    let group: UInt8
                    if case .synthetic = sample.bytes { group = sample.isLeadIn ? 0 : 2 } else { group = 1 }
                    if var chunk = current, chunk.description == sample.description, chunk.group == group,
                       chunk.byteCount + UInt64(sample.size) <= Self.chunkSizeLimit, follows(chunk, sample) {
                        chunk.sampleCount += 1
                        chunk.byteCount += UInt64(sample.size)
                        current = chunk
                        continue
                    }
                    if let chunk = current { pieceChunks.append(chunk) }
                    current = Chunk(bytes: sample.bytes, track: track, firstSample: sampleNumbers[track], sampleCount: 1,
                                    byteCount: UInt64(sample.size), description: sample.description, group: group)
                }
                if let chunk = current { pieceChunks.append(chunk) }
            }
            // The piece's chunks of each track follow the track's earlier ones, in sample order.
            var indexInTrack: [Int] = []
            for chunk in pieceChunks {
                indexInTrack.append(layout.chunksOfTrack[chunk.track].count)
                layout.chunksOfTrack[chunk.track].append(PlacedChunk(position: 0, sampleCount: UInt32(chunk.sampleCount),
                                                                    description: UInt32(chunk.description)))
            }
            let order = pieceChunks.indices.sorted { a, b in
                let x = pieceChunks[a], y = pieceChunks[b]
                if x.group != y.group { return x.group < y.group }
                if let a = x.bytes.sourcePosition, let b = y.bytes.sourcePosition, a != b { return a < b }
                return (x.track, x.firstSample) < (y.track, y.firstSample)
            }
            for index in order {
                let chunk = pieceChunks[index]
                layout.chunksOfTrack[chunk.track][indexInTrack[index]].position = layout.payloadSize
                layout.payloadSize += chunk.byteCount
                layout.append(chunk)
            }
        }
        return layout
    }

    /// The next sample of track `index` and its piece.
    private func next(of index: Int, _ cursors: inout [SampleCursor], file: String) throws(MP4Error) -> (sample: TrackSample, piece: Int)? {
        guard let sample = try exact(file, { () throws(MediaTimeError) in try cursors[index].next() }) else { return nil }
        return (sample, tracks[index].pieceOfSpan[cursors[index].span])
    }

    /// Whether `sample`'s bytes come right after the chunk's in their source. A prefixed sample
    /// starts a chunk: the copy list puts its prefix between the source's bytes.
    private func follows(_ chunk: Chunk, _ sample: TrackSample) -> Bool {
        switch (chunk.bytes, sample.bytes) {
        case (.source(let file, let offset), .source(let sampleFile, let sampleOffset)):
            return file == sampleFile && offset + chunk.byteCount == sampleOffset
        case (.prefixed(_, let length, let file, let offset), .source(let sampleFile, let sampleOffset)):
            return file == sampleFile && offset + chunk.byteCount - UInt64(length) == sampleOffset
        case (.synthetic(let payload), .synthetic(let samplePayload)):
            return payload == samplePayload
        default:
            return false
        }
    }

    // MARK: - Boxes

    /// The tables of one track, with chunk positions relative to the mdat payload.
    struct TrackTables {
        var track: PlacedTrack
        var trackID: UInt32
        var timeToSample = TimeToSampleBox(entries: [])
        var compositionOffsets: CompositionOffsetBox?
        var syncSamples: [UInt32]?
        var sizes: [UInt32] = []
        var chunks: [PlacedChunk]

        /// At least the size of the track's box, with wide chunk offsets.
        var largestSize: Int {
            1024 + track.edits.count * 20 + track.descriptions.reduce(0) { $0 + $1.bytes.count } + timeToSample.entries.count * 8
                + (compositionOffsets?.entries.count ?? 0) * 8 + (syncSamples?.count ?? 0) * 4 + sizes.count * 4 + chunks.count * 20
        }
    }

    /// One pass over the track's samples: durations (the gap to the next sample's decode time,
    /// for the last the gap to `mediaEnd`), composition offsets, sync samples and sizes.
    private func trackTables(_ index: Int, chunks: [PlacedChunk], file: String) throws(MP4Error) -> TrackTables {
        let track = tracks[index]
        var tables = TrackTables(track: track, trackID: UInt32(index + 1), chunks: chunks)
        var offsets = CompositionOffsetBox(version: 0, entries: [])
        var sync: [UInt32] = []
        tables.sizes.reserveCapacity(track.sampleCount)
        var samples = track.samples()
        var next = try exact(file) { () throws(MediaTimeError) in try samples.next() }
        var number: UInt32 = 0
        while let sample = next {
            next = try exact(file) { () throws(MediaTimeError) in try samples.next() }
            number += 1
            let duration = (next?.decode ?? track.mediaEnd) - sample.decode
            guard duration >= 0, duration <= Int64(UInt32.max) else {
                throw .timeOverflow(file: file, reason: "a \(track.kind) sample would last \(duration) ticks of 1/\(track.timescale) s, outside 0...\(UInt32.max)")
            }
            tables.timeToSample.append(UInt32(duration))
            let offset = sample.composition - sample.decode
            guard let offset = Int32(exactly: offset) else {
                throw .timeOverflow(file: file, reason: "a composition offset of \(offset) ticks does not fit 32 bits")
            }
            offsets.append(offset)
            if sample.isSync { sync.append(number) }
            tables.sizes.append(sample.size)
        }
        if offsets.entries.contains(where: { $0.offset != 0 }) { tables.compositionOffsets = offsets }
        if sync.count != track.sampleCount { tables.syncSamples = sync }
        return tables
    }

    /// Writes the moov box with chunk offsets relative to the mdat payload; returns where each
    /// chunk offset table's entries start, and how many there are.
    private func writeMovie(_ tables: [TrackTables], wide: Bool, to writer: inout ByteWriter) -> [(start: Int, count: Int)] {
        var chunkTables: [(start: Int, count: Int)] = []
        writer.writeBox("moov") { moov in
            moov.write(box: MovieHeaderBox(timescale: UInt32(movieTimescale), duration: movieDuration,
                                           nextTrackID: UInt32(tables.count + 1)))
            for table in tables {
                writeTrack(table, wide: wide, to: &moov)
                // The entries end the track's box (co64 or stco is the last in stbl, stbl in minf...).
                chunkTables.append((start: moov.count - table.chunks.count * (wide ? 8 : 4), count: table.chunks.count))
            }
        }
        return chunkTables
    }

    private func writeTrack(_ table: TrackTables, wide: Bool, to writer: inout ByteWriter) {
        let track = table.track
        let isVideo = track.kind == .video
        let first = track.descriptions.first
        writer.writeBox("trak") { trak in
            trak.write(box: TrackHeaderBox(
                trackID: table.trackID, duration: track.edits.reduce(0) { $0 + $1.segmentDuration },
                volume: isVideo ? 0 : 0x0100, matrix: track.displayMatrix,
                width: UInt32(isVideo ? first?.width ?? 0 : 0) << 16, height: UInt32(isVideo ? first?.height ?? 0 : 0) << 16))
            trak.writeBox("edts") { $0.write(box: EditListBox(entries: track.edits)) }
            trak.writeBox("mdia") { mdia in
                mdia.write(box: MediaHeaderBox(timescale: UInt32(track.timescale), duration: UInt64(track.mediaEnd)))
                mdia.write(box: HandlerBox(handlerType: isVideo ? "vide" : "soun", name: isVideo ? "VideoHandler" : "SoundHandler"))
                mdia.writeBox("minf") { minf in
                    minf.writeMediaInformationHeaders(isVideo: isVideo)
                    minf.writeBox("stbl") { stbl in
                        stbl.writeBox(SampleDescriptionBox.type) {
                            SampleDescriptionBox(entries: track.descriptions).writePayload(to: &$0)
                        }
                        stbl.write(box: table.timeToSample)
                        if let offsets = table.compositionOffsets { stbl.write(box: offsets) }
                        if let sync = table.syncSamples { stbl.write(box: SyncSampleBox(sampleNumbers: sync)) }
                        stbl.write(box: SampleToChunkBox(chunks: table.chunks.map { ($0.sampleCount, $0.description + 1) }))
                        stbl.write(box: SampleSizeBox(sampleSizes: table.sizes))
                        let offsets = ChunkOffsetBox(offsets: table.chunks.map(\.position))
                        stbl.writeBox(wide ? ChunkOffsetBox.wideType : ChunkOffsetBox.type) { offsets.writePayload(to: &$0, wide: wide) }
                    }
                }
            }
        }
    }

    /// `ftyp`: ISO base media, compatible with the brands players check for.
    static func fileTypeBox() -> [UInt8] {
        var writer = ByteWriter()
        writer.writeBox("ftyp") { ftyp in
            ftyp.write(FourCC("isom"))
            ftyp.write(UInt32(0x200))
            for brand: FourCC in ["isom", "iso2", "avc1", "mp41"] { ftyp.write(brand) }
        }
        return writer.bytes
    }
}

extension StitchLayoutBuilder.Layout {
    /// Appends a chunk's bytes to the copy list: to the last copy when they follow it.
    mutating func append(_ chunk: StitchLayoutBuilder.Chunk) {
        switch chunk.bytes {
        case .source(let file, let offset):
            if case .source(let lastFile, let lastOffset, let lastLength)? = segments.last, lastFile == file, lastOffset + lastLength == offset {
                segments[segments.count - 1] = .source(file: file, offset: lastOffset, length: lastLength + chunk.byteCount)
            } else {
                segments.append(.source(file: file, offset: offset, length: chunk.byteCount))
            }
        case .synthetic(let payload):
            appendSynthetic(payload, count: chunk.sampleCount)
        case .prefixed(let payload, let length, let file, let offset):
            appendSynthetic(payload, count: 1)
            segments.append(.source(file: file, offset: offset, length: chunk.byteCount - UInt64(length)))
        }
    }

    private mutating func appendSynthetic(_ payload: Int, count: Int) {
        if case .synthetic(let lastPayload, let lastCount)? = segments.last, lastPayload == payload {
            segments[segments.count - 1] = .synthetic(payload: payload, repeatCount: lastCount + count)
        } else {
            segments.append(.synthetic(payload: payload, repeatCount: count))
        }
    }
}
