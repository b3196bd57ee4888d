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

    /// A copy the kernel makes (`MP4Stitcher.smallCopy` and longer) from an MP4 file is placed at
    /// the same offset modulo this as in its source, after up to `pageSize - 1` zeros, and the
    /// payload then starts on a multiple of it (a `free` box ends the header): Linux then copies
    /// whole pages (see `AtomicOutputFile.append`), in about 0.7 times the time. 4 KiB whatever
    /// the machine's page size, so a plan's bytes do not depend on the machine.
    static let pageSize: UInt64 = 4096

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

    /// Where every chunk goes in the mdat payload, and the copies that fill it.
    struct Layout {
        var chunksOfTrack: [ChunkList]
        /// What each track's tables will hold.
        var tables: [SampleTables]
        var segments = CopySegmentList()
        var payloadSize: UInt64 = 0
        /// Whether a copy was placed at its page phase, which takes the payload to start on a page.
        var startsOnPage = false
        /// Whether each source's positions are a file's offsets, whose page phase a copy can keep.
        let pageAlignedSources: [Bool]
    }

    func build() throws(MP4Error) -> StitchLayout {
        let file = sources.first?.path.description ?? ""
        let layout = try layOut(file: file)
        // Offsets within a payload that fits 32 bits fit them too; whether the payload's start
        // does is known once the header's size is.
        var header = makeHeader(layout, wide: false, file: file)
        if header.size + layout.payloadSize > UInt64(UInt32.max) {
            header = makeHeader(layout, wide: true, file: file)
        }
        return StitchLayout(sources: sources, movieTimescale: movieTimescale, movieDuration: movieDuration,
                            segments: layout.segments, syntheticPayloads: syntheticPayloads,
                            mdatPayloadSize: layout.payloadSize, header: header)
    }

    /// Lays the chunks out piece by piece (each track's samples are in piece order): a piece's
    /// lead-in, its copied chunks in source order (so copying reads each source forwards, in long
    /// runs), then its synthetic tail. Only one piece's chunks are held whole at a time.
    private func layOut(file: String) throws(MP4Error) -> Layout {
        var layout = Layout(chunksOfTrack: Array(repeating: ChunkList(), count: tracks.count),
                            tables: Array(repeating: SampleTables(), count: tracks.count),
                            pageAlignedSources: sources.map { if case .file = $0.store { true } else { false } })
        var entries = tracks.map { SampleTableEntryMaker($0, file: file) }
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
                    if let entry = try entries[track].add(sample) { layout.tables[track].add(entry) }
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
            let order = pieceChunks.indices.sorted { a, b in
                let x = pieceChunks[a], y = pieceChunks[b]
                if x.group != y.group { return x.group < y.group }
                if let a = x.bytes.sourcePosition, let b = y.bytes.sourcePosition, a != b { return a < b }
                return (x.track, x.firstSample) < (y.track, y.firstSample)
            }
            var positions = Array(repeating: UInt64(0), count: pieceChunks.count)
            for (step, index) in order.enumerated() {
                let chunk = pieceChunks[index]
                if let padding = pagePadding(before: order[step...], of: pieceChunks, in: layout) {
                    layout.startsOnPage = true
                    if padding > 0 { layout.segments.append(.padding(length: padding)) }
                    layout.payloadSize += padding
                }
                positions[index] = layout.payloadSize
                layout.payloadSize += chunk.byteCount
                layout.append(chunk, payloads: syntheticPayloads)
            }
            // The piece's chunks of each track follow the track's earlier ones, in sample order.
            for (chunk, position) in zip(pieceChunks, positions) {
                layout.chunksOfTrack[chunk.track].append(PlacedChunk(position: position, sampleCount: UInt32(chunk.sampleCount),
                                                                    description: UInt32(chunk.description)))
            }
        }
        for track in tracks.indices {
            if let entry = try entries[track].finish() { layout.tables[track].add(entry) }
            layout.tables[track].finish()
        }
        return layout
    }

    /// The zeros that put the copy starting with chunk `order.first` at its source's page phase,
    /// or `nil` where that copy is not aligned: it is short, from a store that lays files back to
    /// back (HLS segments), or it goes on from the copy before.
    private func pagePadding(before order: ArraySlice<Int>, of chunks: [Chunk], in layout: Layout) -> UInt64? {
        guard let first = order.first else { return nil }
        let lead: UInt64
        let file: Int, start: UInt64
        switch chunks[first].bytes {
        case .source(let source, let offset): (lead, file, start) = (0, source, offset)
        case .prefixed(let payload, let source, let offset): (lead, file, start) = (UInt64(syntheticPayloads[payload].count), source, offset)
        case .synthetic: return nil
        }
        guard layout.pageAlignedSources[file] else { return nil }
        if lead == 0, case .source(file, let offset, let length)? = layout.segments.last, offset + length == start { return nil }
        var end = start + chunks[first].byteCount - lead
        for index in order.dropFirst() {
            guard end - start < MP4Stitcher.smallCopy, case .source(file, end) = chunks[index].bytes else { break }
            end += chunks[index].byteCount
        }
        guard end - start >= MP4Stitcher.smallCopy else { return nil }
        // Page-size arithmetic modulo 2^64 is exact: the page size divides it.
        return (start &- layout.payloadSize &- lead) % Self.pageSize
    }

    /// The next sample of track `index` and its piece.
    private func next(of index: Int, _ cursors: inout [SampleCursor], file: String) throws(MP4Error) -> (sample: TrackSample, piece: Int)? {
        guard let sample = try exact(file, { () throws(MediaTimeError) in try cursors[index].next() }) else { return nil }
        return (sample, cursors[index].piece)
    }

    /// Whether `sample`'s bytes come right after the chunk's in their source. A prefixed sample
    /// starts a chunk: the copy list puts its prefix between the source's bytes.
    private func follows(_ chunk: Chunk, _ sample: TrackSample) -> Bool {
        switch (chunk.bytes, sample.bytes) {
        case (.source(let file, let offset), .source(let sampleFile, let sampleOffset)):
            return file == sampleFile && offset + chunk.byteCount == sampleOffset
        case (.prefixed(let payload, let file, let offset), .source(let sampleFile, let sampleOffset)):
            return file == sampleFile && offset + chunk.byteCount - UInt64(syntheticPayloads[payload].count) == sampleOffset
        case (.synthetic(let payload), .synthetic(let samplePayload)):
            return payload == samplePayload
        default:
            return false
        }
    }

    // MARK: - Boxes

    /// The header, chunk offset tables `wide` (`co64`) or not (`stco`).
    private func makeHeader(_ layout: Layout, wide: Bool, file: String) -> StitchHeader {
        typealias Part = StitchHeader.Part
        let movieHeader = ByteWriter.bytes {
            $0.write(box: MovieHeaderBox(timescale: UInt32(movieTimescale), duration: movieDuration, nextTrackID: UInt32(tracks.count + 1)))
        }
        let moov: [Part] = [.bytes(movieHeader)] + tracks.indices.map { index in
            trackPart(index, sampleTables: layout.tables[index], chunks: layout.chunksOfTrack[index], wide: wide)
        }
        let mdat = Part.bytes(ByteWriter.bytes { $0.writeBoxHeader("mdat", payloadSize: layout.payloadSize) })
        var parts: [Part] = [.bytes(Self.fileTypeBox()), .box("moov", moov), mdat]
        if layout.startsOnPage {
            let size = StitchHeader.size(of: parts)
            // A free box is 8 bytes at least.
            var padding = (Self.pageSize - size % Self.pageSize) % Self.pageSize
            if padding > 0, padding < 8 { padding += Self.pageSize }
            if padding > 0 { parts.insert(.bytes(Self.freeBox(size: padding)), at: 2) }
        }
        return StitchHeader(kinds: tracks.map(\.kind), tables: layout.tables, chunksOfTrack: layout.chunksOfTrack, parts: parts, file: file)
    }

    private func trackPart(_ index: Int, sampleTables counts: SampleTables, chunks: ChunkList, wide: Bool) -> StitchHeader.Part {
        let track = tracks[index]
        let isVideo = track.kind == .video
        let first = track.descriptions.first
        let headers = ByteWriter.bytes { trak in
            trak.write(box: TrackHeaderBox(
                trackID: UInt32(index + 1), duration: track.edits.reduce(0) { $0 + $1.segmentDuration },
                volume: isVideo ? 0 : 0x0100, matrix: track.displayMatrix,
                width: UInt32(isVideo ? first?.width ?? 0 : 0) << 16, height: UInt32(isVideo ? first?.height ?? 0 : 0) << 16))
            trak.writeBox("edts") { $0.write(box: EditListBox(entries: track.edits)) }
        }
        let mediaHeaders = ByteWriter.bytes { mdia in
            mdia.write(box: MediaHeaderBox(timescale: UInt32(track.timescale), duration: UInt64(track.mediaEnd)))
            mdia.write(box: HandlerBox(handlerType: isVideo ? "vide" : "soun", name: isVideo ? "VideoHandler" : "SoundHandler"))
        }
        let tables = Self.sampleTableParts(track: index, descriptions: track.descriptions, counts: counts, chunks: chunks, wide: wide)
        return .box("trak", [
            .bytes(headers),
            .box("mdia", [
                .bytes(mediaHeaders),
                .box("minf", [.bytes(ByteWriter.bytes { $0.writeMediaInformationHeaders(isVideo: isVideo) }), .box("stbl", tables)]),
            ]),
        ])
    }

    /// The boxes of track `index`'s `stbl`: `stsd`, `stts`, `ctts` when a sample presents off its
    /// decode time (version 1 when an offset is negative), `stss` unless every sample is a sync
    /// sample, `stsc`, `stsz` (a size all samples share given once) and the chunk offsets, `wide`
    /// (`co64`) or not (`stco`).
    static func sampleTableParts(track index: Int, descriptions: [MP4SampleDescription], counts: SampleTables,
                                 chunks: ChunkList, wide: Bool) -> [StitchHeader.Part] {
        typealias Part = StitchHeader.Part
        /// A table box: its fields, then `count` entries.
        func table(_ type: FourCC, version: UInt8 = 0, _ kind: StitchHeader.Table, count: Int) -> Part {
            .box(type, [.bytes(ByteWriter.bytes { $0.writeVersion(version); $0.write(UInt32(count)) }), .entries(kind, track: index, count: count)])
        }
        var tables: [Part] = [
            .bytes(ByteWriter.bytes { stbl in
                stbl.writeBox(SampleDescriptionBox.type) { SampleDescriptionBox(entries: descriptions).writePayload(to: &$0) }
            }),
            table("stts", .timeToSample, count: counts.timeToSampleEntries),
        ]
        if counts.hasCompositionOffsets {
            tables.append(table("ctts", version: counts.hasNegativeCompositionOffsets ? 1 : 0, .compositionOffsets, count: counts.compositionOffsetEntries))
        }
        if !counts.allSync { tables.append(table("stss", .syncSamples, count: counts.syncSamples)) }
        var chunkRuns = 0
        StitchHeader.forEachSampleToChunkEntry(chunks) { _ in chunkRuns += 1 }
        tables.append(table("stsc", .sampleToChunk, count: chunkRuns))
        // Samples all of one size are given once, not listed.
        let sizeFields = ByteWriter.bytes { $0.writeVersion(0); $0.write(counts.commonSize ?? 0); $0.write(UInt32(counts.samples)) }
        tables.append(.box("stsz", [.bytes(sizeFields)] + (counts.commonSize == nil ? [.entries(.sizes, track: index, count: counts.samples)] : [])))
        tables.append(table(wide ? ChunkOffsetBox.wideType : ChunkOffsetBox.type, .chunkOffsets(wide: wide), count: chunks.count))
        return tables
    }

    /// `free` of `size` bytes (8 at least), its payload zeros: the padding that puts the samples
    /// on a page.
    static func freeBox(size: UInt64) -> [UInt8] {
        ByteWriter.bytes { $0.writeBox("free") { $0.write(Array(repeating: 0, count: Int(size - 8))) } }
    }

    /// `ftyp`: ISO base media, compatible with the brands players check for.
    static func fileTypeBox() -> [UInt8] {
        ByteWriter.bytes { writer in
            writer.writeBox("ftyp") { ftyp in
                ftyp.write(FourCC("isom"))
                ftyp.write(UInt32(0x200))
                for brand: FourCC in ["isom", "iso2", "avc1", "mp41"] { ftyp.write(brand) }
            }
        }
    }
}

extension StitchLayoutBuilder.Layout {
    /// Appends a chunk's bytes to the copy list.
    mutating func append(_ chunk: StitchLayoutBuilder.Chunk, payloads: [[UInt8]]) {
        switch chunk.bytes {
        case .source(let file, let offset):
            segments.append(.source(file: file, offset: offset, length: chunk.byteCount))
        case .synthetic(let payload):
            segments.append(.synthetic(payload: payload, repeatCount: chunk.sampleCount))
        case .prefixed(let payload, let file, let offset):
            segments.append(.synthetic(payload: payload, repeatCount: 1))
            segments.append(.source(file: file, offset: offset, length: chunk.byteCount - UInt64(payloads[payload].count)))
        }
    }
}
