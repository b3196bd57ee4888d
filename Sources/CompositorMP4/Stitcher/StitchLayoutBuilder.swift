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

    /// A run of consecutive samples of one track whose bytes are consecutive.
    struct Chunk {
        var track: Int
        var firstSample: Int
        var sampleCount: Int
        var description: Int
        var bytes: SampleBytes
        var byteCount: UInt64
        var piece: Int
        /// 0: lead-in silence, 1: copied samples, 2: silence after them. Orders a piece's data.
        var group: Int
        /// Offset in the mdat payload, once laid out.
        var position: UInt64 = 0
    }

    func build() throws(MP4Error) -> StitchLayout {
        var chunks = makeChunks()
        // A piece's data: its lead-in, its copied chunks in source order (so copying reads each
        // source forwards, in long runs), then its synthetic tail.
        let order = chunks.indices.sorted { a, b in
            let x = chunks[a], y = chunks[b]
            if x.piece != y.piece { return x.piece < y.piece }
            if x.group != y.group { return x.group < y.group }
            if case .source(let fx, let ox) = x.bytes, case .source(let fy, let oy) = y.bytes, (fx, ox) != (fy, oy) {
                return (fx, ox) < (fy, oy)
            }
            return (x.track, x.firstSample) < (y.track, y.firstSample)
        }
        var position: UInt64 = 0
        var segments: [CopySegment] = []
        for index in order {
            chunks[index].position = position
            position += chunks[index].byteCount
            switch chunks[index].bytes {
            case .source(let file, let offset):
                if case .source(let lastFile, let lastOffset, let lastLength)? = segments.last,
                   lastFile == file, lastOffset + lastLength == offset {
                    segments[segments.count - 1] = .source(file: file, offset: lastOffset, length: lastLength + chunks[index].byteCount)
                } else {
                    segments.append(.source(file: file, offset: offset, length: chunks[index].byteCount))
                }
            case .synthetic(let payload):
                if case .synthetic(let lastPayload, let count)? = segments.last, lastPayload == payload {
                    segments[segments.count - 1] = .synthetic(payload: payload, repeatCount: count + chunks[index].sampleCount)
                } else {
                    segments.append(.synthetic(payload: payload, repeatCount: chunks[index].sampleCount))
                }
            }
        }
        let payloadSize = position

        let ftyp = Self.fileTypeBox()
        let mdatHeaderSize: UInt64 = payloadSize + 8 <= UInt64(UInt32.max) ? 8 : 16
        let boxes = try tracks.indices.map { (index) throws(MP4Error) in try trackTables(index, chunks: chunks) }
        // The moov's size does not depend on the offsets' values, only on their width.
        var wide = false
        var moovSize = UInt64(moov(boxes, chunkBase: nil, wide: false).count)
        if UInt64(ftyp.count) + moovSize + mdatHeaderSize + payloadSize > UInt64(UInt32.max) {
            wide = true
            moovSize = UInt64(moov(boxes, chunkBase: nil, wide: true).count)
        }
        let base = UInt64(ftyp.count) + moovSize + mdatHeaderSize
        var header = ByteWriter(capacity: Int(base))
        header.write(ftyp)
        header.write(moov(boxes, chunkBase: base, wide: wide))
        header.writeBoxHeader("mdat", payloadSize: payloadSize)
        precondition(UInt64(header.count) == base, "moov size changed with its offsets")

        return StitchLayout(sources: sources, movieTimescale: movieTimescale, movieDuration: movieDuration,
                            segments: segments, syntheticPayloads: syntheticPayloads,
                            mdatPayloadSize: payloadSize, headerBytes: header.bytes)
    }

    private func makeChunks() -> [Chunk] {
        var chunks: [Chunk] = []
        for (trackIndex, track) in tracks.enumerated() {
            var current: Chunk?
            for (index, sample) in track.samples.enumerated() {
                let piece = track.pieceOfSample[index]
                let group: Int
                if case .synthetic = sample.bytes { group = sample.isLeadIn ? 0 : 2 } else { group = 1 }
                if var chunk = current, chunk.piece == piece, chunk.description == sample.description, chunk.group == group,
                   chunk.byteCount + UInt64(sample.size) <= Self.chunkSizeLimit, follows(chunk, sample) {
                    chunk.sampleCount += 1
                    chunk.byteCount += UInt64(sample.size)
                    current = chunk
                    continue
                }
                if let chunk = current { chunks.append(chunk) }
                current = Chunk(track: trackIndex, firstSample: index, sampleCount: 1, description: sample.description,
                                bytes: sample.bytes, byteCount: UInt64(sample.size), piece: piece, group: group)
            }
            if let chunk = current { chunks.append(chunk) }
        }
        return chunks
    }

    /// Whether `sample`'s bytes come right after the chunk's in their source.
    private func follows(_ chunk: Chunk, _ sample: TrackRun.Sample) -> Bool {
        switch (chunk.bytes, sample.bytes) {
        case (.source(let file, let offset), .source(let sampleFile, let sampleOffset)):
            return file == sampleFile && offset + chunk.byteCount == sampleOffset
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
        var durations: [UInt32]
        var compositionOffsets: [Int32]?
        var syncSamples: [UInt32]?
        var chunks: [(samples: UInt32, descriptionIndex: UInt32)]
        var chunkPositions: [UInt64]
    }

    private func trackTables(_ index: Int, chunks: [Chunk]) throws(MP4Error) -> TrackTables {
        let track = tracks[index]
        let file = sources.first?.path.description ?? ""
        let durations = try track.durations(file: file)
        var offsets: [Int32] = []
        offsets.reserveCapacity(track.samples.count)
        for sample in track.samples {
            let offset = sample.composition - sample.decode
            guard offset >= Int64(Int32.min), offset <= Int64(Int32.max) else {
                throw .timeOverflow(file: file, reason: "a composition offset of \(offset) ticks does not fit 32 bits")
            }
            offsets.append(Int32(offset))
        }
        let sync = track.samples.enumerated().filter(\.element.isSync).map { UInt32($0.offset + 1) }
        let own = chunks.filter { $0.track == index }.sorted { $0.firstSample < $1.firstSample }
        return TrackTables(
            track: track, trackID: UInt32(index + 1), durations: durations,
            compositionOffsets: offsets.allSatisfy { $0 == 0 } ? nil : offsets,
            syncSamples: sync.count == track.samples.count ? nil : sync,
            chunks: own.map { (UInt32($0.sampleCount), UInt32($0.description + 1)) },
            chunkPositions: own.map(\.position))
    }

    /// The moov box; with `chunkBase` nil, chunk offsets are written as zeros (to measure its size).
    private func moov(_ tables: [TrackTables], chunkBase: UInt64?, wide: Bool) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeBox("moov") { moov in
            moov.write(box: MovieHeaderBox(timescale: UInt32(movieTimescale), duration: movieDuration,
                                           nextTrackID: UInt32(tables.count + 1)))
            for table in tables { writeTrack(table, chunkBase: chunkBase, wide: wide, to: &moov) }
        }
        return writer.bytes
    }

    private func writeTrack(_ table: TrackTables, chunkBase: UInt64?, wide: Bool, to writer: inout ByteWriter) {
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
                        stbl.write(box: TimeToSampleBox(durations: table.durations))
                        if let offsets = table.compositionOffsets { stbl.write(box: CompositionOffsetBox(offsets: offsets)) }
                        if let sync = table.syncSamples { stbl.write(box: SyncSampleBox(sampleNumbers: sync)) }
                        stbl.write(box: SampleToChunkBox(chunks: table.chunks))
                        stbl.write(box: SampleSizeBox(sampleSizes: track.samples.map(\.size)))
                        let offsets = ChunkOffsetBox(offsets: table.chunkPositions.map { position in chunkBase.map { $0 + position } ?? 0 })
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
