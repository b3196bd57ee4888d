import Testing
@testable import CompositorMP4

/// The compact forms the stitcher keeps per sample and per chunk read back exactly what was put in.
@Suite("Compact sample and chunk tables")
struct CompactTablesTests {
    @Test("a chunk list gives back every chunk, positions moving either way")
    func chunkListRoundTrip() {
        let chunks = [
            PlacedChunk(position: 0, sampleCount: 1, description: 0),
            PlacedChunk(position: 0, sampleCount: 2, description: 0),          // no move
            PlacedChunk(position: 127, sampleCount: 128, description: 1),      // one-byte and two-byte numbers
            PlacedChunk(position: 5, sampleCount: 1, description: 0),          // back
            PlacedChunk(position: 1 << 40, sampleCount: .max, description: .max),
            PlacedChunk(position: 1 << 33, sampleCount: 3, description: 2),    // far back
            PlacedChunk(position: UInt64(Int64.max), sampleCount: 1, description: 0),
            PlacedChunk(position: 0, sampleCount: 1, description: 0),
        ]
        var list = ChunkList()
        for chunk in chunks { list.append(chunk) }
        #expect(list.count == chunks.count)
        #expect(Array(list) == chunks)
        #expect(Array(ChunkList()).isEmpty)
    }

    @Test("a list of 200,000 chunks (megabytes of numbers, in many pages) gives back every one, in order")
    func chunkListAcrossPages() {
        // Numbers of 1 to 10 bytes, so pages end at every possible distance from their capacity.
        let chunks = (0..<200_000).map { (index: Int) -> PlacedChunk in
            let position = UInt64(index) << UInt64(index % 57)
            return PlacedChunk(position: position, sampleCount: UInt32(truncatingIfNeeded: index &* 7919), description: UInt32(index % 3))
        }
        var list = ChunkList()
        for chunk in chunks { list.append(chunk) }
        #expect(list.count == chunks.count)
        #expect(Array(list) == chunks)
    }

    @Test("a copy list joins copies that follow on and gives back the rest as they were")
    func copyListRoundTrip() {
        var list = CopySegmentList()
        let appended: [CopySegment] = [
            .source(file: 0, offset: 100, length: 10), .source(file: 0, offset: 110, length: 5),   // joined
            .source(file: 1, offset: 115, length: 1),                                             // other file
            .synthetic(payload: 0, repeatCount: 2), .synthetic(payload: 0, repeatCount: 3),       // joined
            .synthetic(payload: 1, repeatCount: 1),
            .source(file: 1, offset: 0, length: 1 << 40),                                         // back, long
            .source(file: 300, offset: UInt64(Int64.max), length: 1),
            .source(file: 0, offset: 50, length: 7),
        ]
        for segment in appended { list.append(segment) }
        #expect(Array(list) == [
            .source(file: 0, offset: 100, length: 15), .source(file: 1, offset: 115, length: 1),
            .synthetic(payload: 0, repeatCount: 5), .synthetic(payload: 1, repeatCount: 1),
            .source(file: 1, offset: 0, length: 1 << 40), .source(file: 300, offset: UInt64(Int64.max), length: 1),
            .source(file: 0, offset: 50, length: 7),
        ])
        #expect(Array(CopySegmentList()).isEmpty)
    }

    /// Samples 0-9: durations 10,10,10 then 20,20 then a gap, then 10s again; offsets past 4 GiB
    /// from sample 6; descriptions 0,0,1,1,1,0,...; sync 0, 4, 9; composition offsets per sample.
    static func table() -> MP4SampleTable {
        let durations: [UInt32] = [10, 10, 10, 20, 20, 10, 10, 10, 10, 10]
        var decodeTimes: [Int64] = []
        var time: Int64 = 0
        for (index, duration) in durations.enumerated() {
            if index == 5 { time += 1000 }
            decodeTimes.append(time)
            time += Int64(duration)
        }
        let offsets: [UInt64] = (0..<10).map { $0 < 6 ? UInt64($0) * 100 : (1 << 32) + UInt64($0) }
        return MP4SampleTable(offsets: offsets, sizes: (0..<10).map { UInt32($0 + 1) }, decodeTimes: decodeTimes, durations: durations,
                              compositionOffsetPerSample: [20, 0, 10, 30, -10, 0, 0, 5, 5, 0],
                              descriptionIndices: [0, 0, 1, 1, 1, 0, 0, 2, 2, 2],
                              syncPerSample: (0..<10).map { [0, 4, 9].contains($0) })
    }

    @Test("walking a range reads each sample as looking it up does", arguments: [0, 1, 3, 5, 6, 9, 10])
    func walkMatchesLookups(start: Int) {
        let table = Self.table()
        for end in start...table.count {
            var walk = table.walk(start..<end)
            var walked: [MP4SampleTable.Sample] = []
            while let sample = walk.next() { walked.append(sample) }
            let expected = (start..<end).map { index in
                MP4SampleTable.Sample(offset: table.offsets[index], size: table.sizes[index], decodeTime: table.decodeTimes[index],
                                      compositionOffset: table.compositionOffset(index), isSync: table.isSync(index),
                                      descriptionIndex: table.descriptionIndices[index])
            }
            #expect(walked.count == expected.count, "\(start)..<\(end)")
            for (got, want) in zip(walked, expected) {
                #expect(got.offset == want.offset && got.size == want.size && got.decodeTime == want.decodeTime
                            && got.compositionOffset == want.compositionOffset && got.isSync == want.isSync
                            && got.descriptionIndex == want.descriptionIndex, "\(start)..<\(end)")
            }
        }
    }

    @Test("decode times from stts entries match the per-sample expansion")
    func decodeTimesFromEntries() {
        let entries: [TimeToSampleBox.Entry] = [.init(count: 3, delta: 10), .init(count: 0, delta: 7), .init(count: 2, delta: 10),
                                                .init(count: 1, delta: 0), .init(count: 4, delta: 1001)]
        var times: [Int64] = []
        var durations: [UInt32] = []
        var time: Int64 = 0
        for entry in entries {
            for _ in 0..<entry.count {
                times.append(time)
                durations.append(entry.delta)
                time += Int64(entry.delta)
            }
        }
        let compact = SampleDecodeTimes(timeToSample: entries)
        #expect(compact == SampleDecodeTimes(decodeTimes: times, durations: durations))
        #expect(Array(compact) == times)
        #expect(Array(SampleDurations(decodeTimes: compact)) == durations)
    }
}
