import CompositorCore
import CompositorIO

/// Reads an MP4 file's structure: the top-level boxes (headers only, so a multi-gigabyte `mdat`
/// is never loaded), the whole `moov` and each `moof`, into an `MP4Movie`.
package enum MP4Reader {
    /// The largest `moov` read into memory; a bigger one is reported as unsupported.
    static let moovSizeLimit: UInt64 = 512 << 20
    /// The most samples one movie may have, all tracks together: a guard against counts that
    /// would exhaust memory (each expanded sample takes about 30 bytes).
    static let sampleCountLimit = 50_000_000

    /// Box types that may start an ISO base media file; anything else is "not an MP4".
    private static let topLevelTypes: Set<FourCC> = [
        "ftyp", "styp", "moov", "mdat", "free", "skip", "wide", "pdin", "uuid", "meta", "sidx", "moof", "mfra", "prft",
    ]

    /// Reads the movie at `path`, charging its samples to `budget` before any table is expanded.
    package static func read(path filePath: FilePath) throws(MP4Error) -> MP4Movie {
        var budget = MP4SampleBudget.movie
        return try read(path: filePath, budget: &budget)
    }

    /// Reads the movie at `path`, charging its samples to `budget` (shared by several reads, such
    /// as a render's sources) before any table is expanded.
    package static func read(path filePath: FilePath, budget: inout MP4SampleBudget) throws(MP4Error) -> MP4Movie {
        let file = try mp4Errors { () throws(FileError) in try ReadableFile(path: filePath) }
        let path = filePath.description
        let topLevel = try findMovieBox(in: file)
        let moov = try readBox(topLevel.moov.header, of: file, limit: moovSizeLimit, bytes: topLevel.moov.bytes)
        let movie = try movie(from: moov, file: file, budget: &budget)
        guard let mvex = moov.child("mvex") else {
            if let fragment = topLevel.fragments.first {
                throw .malformed(file: path, boxPath: "moof", offset: fragment.header.offset, reason: "a movie fragment, but the moov has no mvex")
            }
            return movie
        }
        var fragments = try MovieFragments(movie: movie, mvex: mvex)
        let placement = MovieFragments.Placement(file: path, bytes: 0..<file.size, storeOffset: 0)
        for fragment in topLevel.fragments {
            let moof = try readBox(fragment.header, of: file, limit: fragmentSizeLimit, bytes: fragment.bytes)
            try fragments.add([moof], placement: placement, startsAfresh: false, budget: &budget)
        }
        return try fragments.movie(path: filePath, store: movie.store, zero: .earliestTrack).0
    }

    /// What a file that is not an MP4 is, by its first bytes, when it is something a user may
    /// give in its place: an HLS playlist, or an MPEG-2 transport stream.
    static func otherFormat(_ head: [UInt8]) -> String? {
        let text = head.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(head.dropFirst(3)) : head
        if text.starts(with: Array("#EXTM3U".utf8)) {
            return "it is an HLS playlist (it starts with #EXTM3U); give it as a schedule's source to render its segments"
        }
        if head.count >= 2 * 188 + 1, head[0] == 0x47, head[188] == 0x47, head[376] == 0x47 {
            return "it is an MPEG-2 transport stream (a 0x47 sync byte every 188 bytes); list it in an HLS playlist to render it"
        }
        return nil
    }

    /// Top-level headers are read in blocks: a file of tiny boxes costs one read per block, not
    /// one per box (a 64 MB file of 8-byte boxes took 8 million reads and 17 s). A block starts at
    /// `minimumBlockSize` and doubles, up to `topLevelBlockSize`, while each block holds more than
    /// one header; a block that held only one (the boxes are big: the walk jumps) starts again
    /// small, so a file of large boxes is not read whole to find their headers.
    static let topLevelBlockSize = 64 << 10
    static let minimumBlockSize = 4 << 10

    /// The top-level boxes a movie is read from: its `moov`, and its movie fragments in file order.
    struct TopLevel {
        let moov: TopLevelBox
        let fragments: [TopLevelBox]
    }

    /// A top-level box's header, and its bytes when the walk's block held all of them (a movie
    /// fragment, or a small file's `moov`, usually: it is then not read twice).
    struct TopLevelBox {
        let header: MP4BoxHeader
        let bytes: [UInt8]?

        /// `block` is the one the walk found `header` in (the header is within it).
        init(_ header: MP4BoxHeader, in block: ByteReader) {
            self.header = header
            var reader = block
            // A box past the block's end is not copied (readBytes checks before it allocates).
            bytes = (try? reader.skip(Int(header.offset - block.fileOffset))) != nil && header.size <= UInt64(Int.max)
                ? try? reader.readBytes(Int(header.size)) : nil
        }
    }

    /// Walks the top-level box headers for the `moov` and the `moof`s.
    static func findMovieBox(in file: ReadableFile) throws(MP4Error) -> TopLevel {
        let path = file.path.description
        var moov: TopLevelBox?
        var fragments: [TopLevelBox] = []
        try walkTopLevel(of: file, bytes: 0..<file.size) { (header, block) throws(MP4Error) in
            switch header.type {
            case .moov:
                guard moov == nil else {
                    throw .malformed(file: path, boxPath: "moov", offset: header.offset, reason: "a second moov box")
                }
                moov = TopLevelBox(header, in: block)
            case .moof:
                fragments.append(TopLevelBox(header, in: block))
            case "sidx":
                prefetchSubsegments(TopLevelBox(header, in: block), of: file)
            default:
                break
            }
        }
        guard let moov else {
            throw .malformed(file: path, boxPath: "", offset: file.size,
                             reason: "no moov box (the file may be truncated or still being written)")
        }
        return TopLevel(moov: moov, fragments: fragments)
    }

    /// A segment index says where the fragments start: their headers are asked for together
    /// now, before the walk comes to them one by one (for a remote file, requests at once instead
    /// of one after another). A `sidx` that cannot be read is passed over: the walk finds the
    /// fragments anyway.
    private static func prefetchSubsegments(_ box: TopLevelBox, of file: ReadableFile) {
        guard let bytes = box.bytes, bytes.count >= box.header.headerSize else { return }
        var reader = ByteReader(Array(bytes[box.header.headerSize...]))
        guard let index = try? SegmentIndexBox(parsing: &reader) else { return }
        // As much as the walk reads there: a block of the largest size.
        let block = UInt64(topLevelBlockSize)
        file.prefetch(index.referenceOffsets(boxEnd: box.header.end).map { $0..<($0 &+ block) })
    }

    /// Calls `body` with each top-level box header in `bytes` of `file`, in order, and the block
    /// of the file read to find it (which may hold the whole box).
    static func walkTopLevel(of file: ReadableFile, bytes: Range<UInt64>,
                             _ body: (MP4BoxHeader, ByteReader) throws(MP4Error) -> Void) throws(MP4Error) {
        let path = file.path.description
        guard bytes.count >= 8 else {
            throw .notMP4(file: path, reason: "\(bytes.count == Int(file.size) ? "the file" : "its byte range") is \(bytes.count) bytes, too short for a box")
        }
        var offset = bytes.lowerBound
        // The block read last, where it starts in the file, how many headers it held.
        var block = ByteReader([])
        var blockSize = minimumBlockSize
        var headersInBlock = 0
        while offset < bytes.upperBound {
            let available = bytes.upperBound - offset
            // A header is 8 bytes, or 16 with a 64-bit size.
            let needed = min(16, available)
            if offset < block.fileOffset || offset - block.fileOffset + needed > UInt64(block.remaining) {
                blockSize = headersInBlock > 1 ? min(2 * blockSize, topLevelBlockSize) : minimumBlockSize
                block = ByteReader(try file.readBytes(at: offset, count: Int(min(UInt64(blockSize), available))), fileOffset: offset)
                headersInBlock = 0
                // Other formats in the user's terms, not as boxes they do not have.
                if offset == bytes.lowerBound, let format = Self.otherFormat(block.remainingBytes) {
                    throw .notMP4(file: path, reason: format)
                }
            }
            headersInBlock += 1
            var reader = block
            let header: MP4BoxHeader
            do {
                // Within the block: checked just above.
                try reader.skip(Int(offset - block.fileOffset))
                header = try MP4BoxHeader.read(from: &reader, available: available)
            } catch {
                if offset == bytes.lowerBound { throw .notMP4(file: path, reason: error.reason) }
                throw error.error(file: path, boxPath: "")
            }
            if offset == bytes.lowerBound, !topLevelTypes.contains(header.type) {
                throw .notMP4(file: path, reason: "it starts with '\(header.type)', not an ISO base media box")
            }
            try body(header, block)
            offset = header.end
        }
    }

    /// The largest `moof` read into memory.
    static let fragmentSizeLimit: UInt64 = 64 << 20

    /// Reads the top-level box `header` (a `moov` or `moof`) of `file` whole, with its children;
    /// from `bytes` when the walk already read them.
    static func readBox(_ header: MP4BoxHeader, of file: ReadableFile, limit: UInt64, bytes known: [UInt8]? = nil) throws(MP4Error) -> MP4Box {
        let path = file.path.description
        guard header.size <= limit else {
            throw .unsupported(file: path, boxPath: "\(header.type)", offset: header.offset,
                               reason: "\(header.type) is \(header.size) bytes, more than the \(limit >> 20) MiB this reader loads")
        }
        let bytes: [UInt8]
        if let known { bytes = known } else { bytes = try file.readBytes(at: header.offset, count: Int(header.size)) }
        var reader = ByteReader(bytes, fileOffset: header.offset)
        return try MP4Box.read(from: &reader, parentPath: "", siblingIndex: nil, file: path)
    }

    static func movie(from moov: MP4Box, file: ReadableFile, budget: inout MP4SampleBudget) throws(MP4Error) -> MP4Movie {
        let path = file.path.description
        let header = try moov.requiredChild("mvhd", file: path).parse(MovieHeaderBox.self, file: path)
        guard header.timescale <= UInt32(Int32.max) else {
            throw .unsupported(file: path, boxPath: "moov/mvhd", offset: moov.header.offset,
                               reason: "movie timescale \(header.timescale) exceeds \(Int32.max)")
        }
        let movieTimescale = Int32(header.timescale)
        let gapless = ITunesGaplessInfo.find(in: moov)
        // Every track's sample count, before any table is expanded: each track may be within
        // the limit and all of them together far past it.
        for trak in moov.children("trak") {
            guard let stbl = trak.child("mdia")?.child("minf")?.child("stbl"),
                  let sizeBox = stbl.child("stsz") ?? stbl.child("stz2"),
                  let count = declaredSampleCount(sizeBox, fileSize: file.size) else { continue }
            try budget.charge(count, box: sizeBox, file: path)
        }
        var tracks: [MP4Track] = []
        for trak in moov.children("trak") {
            tracks.append(try track(from: trak, movieTimescale: movieTimescale, gapless: gapless, file: file))
        }
        return MP4Movie(path: file.path, store: .file(file.path, file.version), timescale: movieTimescale,
                        duration: MediaTime(value: Int64(clamping: header.duration), timescale: movieTimescale),
                        tracks: tracks, gaplessInfo: gapless)
    }

    /// The sample count a `stsz` or `stz2` box states, when its sizes are there (a table in the
    /// box, or constant sizes that fit the file); `nil` otherwise, which reading the track then
    /// reports as malformed.
    static func declaredSampleCount(_ box: MP4Box, fileSize: UInt64) -> Int? {
        var reader = box.payload
        guard (try? reader.skip(4)) != nil, let field = try? reader.readUInt32(), let count = try? reader.readUInt32() else {
            return nil
        }
        let tableBytes: UInt64
        if box.type == "stsz" {
            guard field == 0 else { return UInt64(field) * UInt64(count) <= fileSize ? Int(count) : nil }
            tableBytes = UInt64(count) * 4
        } else {
            tableBytes = (UInt64(count) * UInt64(field & 0xFF) + 7) / 8  // the low byte is the field size in bits
        }
        return tableBytes <= UInt64(reader.remaining) ? Int(count) : nil
    }

    static func track(from trak: MP4Box, movieTimescale: Int32, gapless: ITunesGaplessInfo?, file: ReadableFile) throws(MP4Error) -> MP4Track {
        let path = file.path.description
        let tkhd = try trak.requiredChild("tkhd", file: path).parse(TrackHeaderBox.self, file: path)
        let editList = try trak.child("edts")?.child("elst")?.parse(EditListBox.self, file: path).entries
        if let editList, let elst = trak.child("edts")?.child("elst") {
            for entry in editList where !entry.playsAtNormalRate && !entry.isDwell && !entry.isEmpty {
                let rate = Double(entry.rateInteger) + Double(UInt16(bitPattern: entry.rateFraction)) / 65536
                throw .unsupported(file: path, boxPath: elst.path, offset: elst.header.offset,
                                   reason: "an edit at media rate \(rate) (only 1, and 0 for a dwell, are supported)")
            }
            // The presentation is the edits' total: it must be a time (Int64 ticks).
            var total: UInt64 = 0
            for entry in editList {
                let (sum, overflow) = total.addingReportingOverflow(entry.segmentDuration)
                guard !overflow, sum <= UInt64(Int64.max) else {
                    throw .malformed(file: path, boxPath: elst.path, offset: elst.header.offset,
                                     reason: "edit durations add up past \(Int64.max) ticks")
                }
                total = sum
            }
        }
        let mdia = try trak.requiredChild("mdia", file: path)
        let mdhd = try mdia.requiredChild("mdhd", file: path).parse(MediaHeaderBox.self, file: path)
        let handler = try mdia.requiredChild("hdlr", file: path).parse(HandlerBox.self, file: path)
        let stbl = try mdia.requiredChild("minf", file: path).requiredChild("stbl", file: path)
        let stsdBox = try stbl.requiredChild("stsd", file: path)
        let descriptions: [MP4SampleDescription]
        do {
            var reader = stsdBox.payload
            descriptions = try SampleDescriptionBox(parsing: &reader, handler: handler.handlerType).entries
        } catch {
            throw error.error(file: path, boxPath: stsdBox.path)
        }
        let samples = try MPEG4VisualPictureOrder.repairing(try sampleTable(from: stbl, descriptionCount: descriptions.count, file: file),
                                                            descriptions: descriptions, stbl: stbl, file: file)
        return MP4Track(trackID: tkhd.trackID, kind: TrackKind(handler: handler.handlerType), handler: handler.handlerType,
                        isEnabled: tkhd.flags & 1 != 0, displayMatrix: tkhd.matrix, timescale: Int32(mdhd.timescale),
                        mediaDuration: Int64(clamping: mdhd.duration), movieTimescale: movieTimescale,
                        editList: editList, sampleDescriptions: descriptions, samples: samples,
                        boxPath: trak.path, boxOffset: trak.header.offset,
                        editListOffset: trak.child("edts")?.child("elst")?.header.offset,
                        gaplessInfo: handler.handlerType == "soun" ? gapless : nil)
    }

    /// Expands the sample tables, checking that their counts agree and that every sample lies
    /// inside the file.
    static func sampleTable(from stbl: MP4Box, descriptionCount: Int, file: ReadableFile) throws(MP4Error) -> MP4SampleTable {
        let path = file.path.description
        func malformed(_ box: MP4Box, _ reason: String) -> MP4Error {
            .malformed(file: path, boxPath: box.path, offset: box.header.offset, reason: reason)
        }

        // Sizes fix the sample count; everything else must agree with it.
        let sizeBox: SampleSizeBox
        let sizeSource: MP4Box
        if let stsz = stbl.child("stsz") {
            sizeBox = try stsz.parse(SampleSizeBox.self, file: path)
            sizeSource = stsz
        } else if let stz2 = stbl.child("stz2") {
            do {
                var reader = stz2.payload
                sizeBox = try SampleSizeBox(parsingCompact: &reader)
            } catch { throw error.error(file: path, boxPath: stz2.path) }
            sizeSource = stz2
        } else {
            throw malformed(stbl, "missing required 'stsz' (or 'stz2') box")
        }
        let count = sizeBox.count
        if case .constant(let size, _) = sizeBox.sizes, UInt64(size).multipliedReportingOverflow(by: UInt64(count)).partialValue > file.size
            || UInt64(size).multipliedReportingOverflow(by: UInt64(count)).overflow {
            throw malformed(sizeSource, "\(count) samples of \(size) bytes do not fit in a \(file.size)-byte file")
        }
        guard count <= sampleCountLimit else {
            throw .unsupported(file: path, boxPath: sizeSource.path, offset: sizeSource.header.offset,
                               reason: "\(count) samples, more than the \(sampleCountLimit) this reader expands")
        }

        // Decode times.
        let sttsBox = try stbl.requiredChild("stts", file: path)
        let stts = try sttsBox.parse(TimeToSampleBox.self, file: path)
        // Counts are checked against each other before anything of that size is allocated.
        let described = stts.entries.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        guard described == UInt64(count) else {
            throw malformed(sttsBox, "stts describes \(described) samples, stsz \(count)")
        }
        var end: Int64 = 0
        for entry in stts.entries {
            let (length, overflow) = Int64(entry.count).multipliedReportingOverflow(by: Int64(entry.delta))
            guard !overflow, Int64.max - end >= length else { throw malformed(sttsBox, "decode times overflow 64 bits") }
            end += length
        }
        let decodeTimes = SampleDecodeTimes(timeToSample: stts.entries)

        // Composition offsets.
        var compositionOffsets: [Int32] = []
        if let cttsBox = stbl.child("ctts") {
            let ctts = try cttsBox.parse(CompositionOffsetBox.self, file: path)
            compositionOffsets.reserveCapacity(count)
            for entry in ctts.entries {
                guard UInt64(entry.count) <= UInt64(count - compositionOffsets.count) else {
                    throw malformed(cttsBox, "ctts describes more samples than stsz's \(count)")
                }
                compositionOffsets.append(contentsOf: repeatElement(entry.offset, count: Int(entry.count)))
            }
            guard compositionOffsets.count == count else {
                throw malformed(cttsBox, "ctts describes \(compositionOffsets.count) samples, stsz \(count)")
            }
        }

        // Sync samples.
        var syncSamples: [UInt32]?
        if let stssBox = stbl.child("stss") {
            let stss = try stssBox.parse(SyncSampleBox.self, file: path)
            var previous: UInt32 = 0
            for number in stss.sampleNumbers {
                guard number > previous, number <= UInt32(count) else {
                    throw malformed(stssBox, "sync sample number \(number) is out of order or past the \(count) samples")
                }
                previous = number
            }
            syncSamples = stss.sampleNumbers.map { $0 - 1 }
        }

        // Chunks: offsets, and per chunk a sample count and description from stsc.
        let chunkBox: MP4Box
        let chunkOffsets: [UInt64]
        if let stco = stbl.child("stco") {
            chunkBox = stco
            chunkOffsets = try stco.parse(ChunkOffsetBox.self, file: path).offsets
        } else if let co64 = stbl.child("co64") {
            chunkBox = co64
            do {
                var reader = co64.payload
                chunkOffsets = try ChunkOffsetBox(parsing: &reader, wide: true).offsets
            } catch { throw error.error(file: path, boxPath: co64.path) }
        } else {
            throw malformed(stbl, "missing required 'stco' (or 'co64') box")
        }
        let stscBox = try stbl.requiredChild("stsc", file: path)
        let stsc = try stscBox.parse(SampleToChunkBox.self, file: path)
        var offsets = SampleOffsets()
        var descriptionIndices = SampleDescriptionIndices()
        offsets.reserveCapacity(count)
        var runIndex = 0
        for (chunk, chunkOffset) in chunkOffsets.enumerated() {
            while runIndex + 1 < stsc.entries.count, UInt64(stsc.entries[runIndex + 1].firstChunk) <= UInt64(chunk + 1) {
                runIndex += 1
            }
            guard runIndex < stsc.entries.count, UInt64(stsc.entries[runIndex].firstChunk) <= UInt64(chunk + 1) else {
                throw malformed(stscBox, "no stsc entry covers chunk \(chunk + 1)")
            }
            let run = stsc.entries[runIndex]
            // stsd holds at most `SampleDescriptionBox.maximumCount` descriptions, so an index
            // that names one of them fits 16 bits.
            guard run.sampleDescriptionIndex >= 1, run.sampleDescriptionIndex <= UInt32(descriptionCount),
                  let descriptionIndex = UInt16(exactly: run.sampleDescriptionIndex - 1) else {
                throw malformed(stscBox, "chunk \(chunk + 1) uses sample description \(run.sampleDescriptionIndex), stsd has \(descriptionCount)")
            }
            guard UInt64(run.samplesPerChunk) <= UInt64(count - offsets.count) else {
                throw malformed(stscBox, "chunks hold more samples than stsz's \(count)")
            }
            var position = chunkOffset
            for _ in 0..<run.samplesPerChunk {
                let index = offsets.count
                let size = UInt64(sizeBox.size(at: index))
                guard position <= file.size, size <= file.size - position else {
                    throw malformed(chunkBox, "sample \(index + 1) (\(size) bytes at byte \(position)) runs past the end of the \(file.size)-byte file")
                }
                offsets.append(position)
                position += size
            }
            descriptionIndices.append(descriptionIndex, count: Int(run.samplesPerChunk))
        }
        guard offsets.count == count else {
            throw malformed(stscBox, "chunks hold \(offsets.count) samples, stsz \(count)")
        }

        let sizes: [UInt32]
        switch sizeBox.sizes {
        case .constant(let size, let count): sizes = [UInt32](repeating: size, count: Int(count))
        case .table(let table): sizes = table
        }
        return MP4SampleTable(offsets: offsets, sizes: sizes, decodeTimes: decodeTimes,
                              compositionOffsets: compositionOffsets, descriptionIndices: descriptionIndices, syncSamples: syncSamples)
    }
}
