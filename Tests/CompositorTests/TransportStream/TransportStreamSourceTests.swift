import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4
@testable import CompositorTS

/// An HLS playlist of MPEG-TS segments read into the MP4 source model, and every way it can be
/// refused, by name.
@Suite("HLS (MPEG-TS) sources in the MP4 model")
struct TransportStreamSourceTests {
    static let fixtures = packageRoot.appendingPathComponent("Fixtures").path

    static func read(_ playlist: String) throws -> MP4Movie {
        var budget = MP4SampleBudget.movie
        return try TransportStreamReader.read(try segments(playlist), budget: &budget).0
    }

    /// The segments a render reads for the media playlist at `playlist`.
    static func segments(_ playlist: String) throws -> HLSSegmentSource {
        var sources = HLSRenderSources()
        guard case .hls(let segments, nil) = try sources.source(MediaLocation(FilePath(playlist))) else {
            throw FFmpegFailure(message: "\(playlist) is not one media playlist")
        }
        return segments
    }

    /// `Fixtures/hls/ts/content`: 12 s of 24 fps H.264 with B-frames, keyframes at the 10 segment
    /// starts, AAC at 48 kHz; ffmpeg put the first video frame at PTS 133500, its DTS at 126000,
    /// and one frame of audio priming 1024 samples ahead of it.
    ///
    /// ```
    /// 90 kHz      126000  131580  133500                      133500 + 12 s
    /// video DTS   |------------------...
    /// audio               |priming|---------------------------...
    /// shown                       0                           12 s
    /// ```
    @Test("timing, sync samples and sample entries of a TS playlist")
    func content() throws {
        let movie = try Self.read(Self.fixtures + "/hls/ts/content/index.m3u8")
        let video = try #require(movie.videoTrack)
        #expect(video.timescale == 90000)
        #expect(video.samples.count == 288)
        #expect((0..<288).filter(video.samples.isSync) == [0, 36, 54, 96, 123, 156, 192, 225, 240, 270])
        #expect(video.editList == [MP4EditListEntry(segmentDuration: 12 * 90000, mediaTime: 7500)])
        #expect(video.presentationDuration == MediaTime(seconds: 12))
        #expect(video.sampleDescriptions.map(\.format) == ["avc1"])
        #expect(video.sampleDescriptions.first?.width == 160 && video.sampleDescriptions.first?.height == 90)

        let audio = try #require(movie.audioTrack)
        #expect(audio.timescale == 48000)
        #expect(audio.priming == 1024)
        #expect(audio.sampleDescriptions.first?.sampleRate == 48000)
        #expect(audio.sampleDescriptions.first?.channelCount == 1)
        #expect(Set(audio.samples.durations) == [1024])
        #expect(movie.naturalDuration >= MediaTime(seconds: 12))
    }

    // MARK: - Refusals, each naming the item, file, line or byte

    func renderError(_ json: String) throws -> MP4ExportError? {
        let schedule = try ScheduleDocument.decode(Array(json.utf8), baseFolder: FilePath(Self.fixtures))
        let composition = try Composition(schedule: schedule, naturalDurations: [:])
        do { _ = try MP4Exporter.plan(composition) } catch { return error }
        return nil
    }

    func playlist(_ folder: String, _ lines: [String]) throws -> String {
        let path = folder + "/index.m3u8"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func schedule(_ url: String) -> String {
        #"{ "content": [ { "id": "feature", "url": "\#(url)", "end": 1 } ], "breaks": [] }"#
    }

    @Test("encrypted, live, remote and mixed-container playlists are refused with what to do")
    func refusedPlaylists() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-refusals")
        defer { MP4Fixtures.remove(folder) }
        let segment = Self.fixtures + "/hls/ts/content/seg0.ts"
        let header = ["#EXTM3U", "#EXT-X-TARGETDURATION:2"]

        let encrypted = try playlist(folder, header + ["#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"",
                                                       "#EXTINF:1.5,", segment, "#EXT-X-ENDLIST"])
        #expect(try renderError(schedule(encrypted))?.description == "'feature': \(encrypted): unsupported: segment 1 (\(segment)) is "
                + "encrypted (EXT-X-KEY METHOD=AES-128); a render copies samples and cannot decrypt them: give it the clear segments")

        let live = try playlist(folder, header + ["#EXTINF:1.5,", segment])
        #expect(try renderError(schedule(live))?.description
                == "'feature': \(live): unsupported: a live playlist (no EXT-X-ENDLIST, not VOD) has no end to render")

        let remote = try playlist(folder, header + ["#EXTINF:1.5,", "https://example.com/seg0.ts", "#EXT-X-ENDLIST"])
        #expect(try renderError(schedule(remote))?.description == "'feature': \(remote): unsupported: segment 1 "
                + "(https://example.com/seg0.ts) is remote; remote segments are rendered from a SourceCatalog that loaded the schedule's sources")

        let fmp4 = Self.fixtures + "/hls/fmp4/content/"
        let mixed = try playlist(folder, header + ["#EXT-X-PLAYLIST-TYPE:VOD", "#EXTINF:1.5,", segment,
                                                   "#EXT-X-MAP:URI=\"\(fmp4)init.mp4\"", "#EXTINF:1.2,", fmp4 + "seg0.m4s", "#EXT-X-ENDLIST"])
        #expect(try renderError(schedule(mixed))?.description == "'feature': \(mixed): unsupported: segment 2 (\(fmp4)seg0.m4s) "
                + "mixes MPEG-TS and fragmented MP4 segments (EXT-X-MAP) in one playlist")
    }

    /// Packaging every piece reads HLS sources as a render does, and says so in its own words.
    @Test("packaging every piece refuses encrypted and remote segments as packaging, not as a render")
    func refusedForPackaging() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-refusals-packaging")
        defer { MP4Fixtures.remove(folder) }
        let segment = Self.fixtures + "/hls/ts/content/seg0.ts"
        let header = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
        func packagingError(_ url: String) throws -> String? {
            let schedule = try ScheduleDocument.decode(Array(schedule(url).utf8), baseFolder: FilePath(Self.fixtures))
            let stitcher = HLSExporter(
                outputURL: folder + "/out/stitched.m3u8", options: try HLSExportOptions(packagesEveryPiece: true))
            let composition = try Composition(schedule: schedule, naturalDurations: [:])
            do { _ = try stitcher.stitch(composition) } catch { return error.description }
            return nil
        }
        let encrypted = try playlist(folder, header + ["#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"", "#EXTINF:1.5,", segment, "#EXT-X-ENDLIST"])
        #expect(try packagingError(encrypted)?.hasSuffix(
            "is encrypted (EXT-X-KEY METHOD=AES-128); packaging copies samples and cannot decrypt them: give it the clear segments") == true)
        let remote = try playlist(folder, header + ["#EXTINF:1.5,", "https://example.com/seg0.ts", "#EXT-X-ENDLIST"])
        #expect(try packagingError(remote)?.hasSuffix(
            "(https://example.com/seg0.ts) is remote; remote segments are packaged from a SourceCatalog that loaded the schedule's sources") == true)
    }

    /// Issue 50: a segment of program tables only, or without one track in the middle of it,
    /// rendered as a frozen picture and silence with exit 0. The rule: a segment may not leave a
    /// hole in a track; a track may start late or end early.
    ///
    /// ```
    /// segments   1    2    3    4    5
    /// video      ■    ■    ■    ·    ■     -> refused: segment 4 holds no video
    /// audio      ■    ■    ■    ■    ·     -> allowed: the audio ends early
    /// ```
    @Test("a segment that leaves a hole in a track is refused, named; a track that ends early is not", arguments: [
        ("tables only", 3, [0, 17, 4096] as Set<Int>, "segment 4 of INDEX holds no video or audio, only program tables"),
        ("no video", 3, [0, 17, 4096, 257], "segment 4 of INDEX holds no video"),
        ("no audio", 3, [0, 17, 4096, 256], "segment 4 of INDEX holds no audio"),
        ("no audio in the last segment", 4, [0, 17, 4096, 256], nil),
    ] as [(String, Int, Set<Int>, String?)])
    func segmentHoles(_ label: String, segment hollow: Int, keptPIDs: Set<Int>, expected: String?) throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-holes")
        defer { MP4Fixtures.remove(folder) }
        let source = Self.fixtures + "/hls/ts/content/"
        let durations = ["1.5", "0.75", "1.75", "1.125", "1.375"]
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for index in 0..<5 {
            var uri = source + "seg\(index).ts"
            if index == hollow {
                // The fixture's segment with only the packets of `keptPIDs` (PAT 0, SDT 17, PMT
                // 4096, video 256, audio 257).
                let bytes = try MP4Fixtures.bytes(uri)
                let kept = stride(from: 0, to: bytes.count, by: 188).filter { keptPIDs.contains(Int(bytes[$0 + 1] & 0x1F) << 8 | Int(bytes[$0 + 2])) }
                uri = folder + "/hollow.ts"
                try MP4Fixtures.write(kept.flatMap { bytes[$0..<$0 + 188] }, to: uri)
            }
            lines += ["#EXTINF:\(durations[index]),", uri]
        }
        let index = try playlist(folder, lines + ["#EXT-X-ENDLIST"])
        if let expected {
            #expect(throws: (any Error).self, "\(label)") { try Self.read(index) }
            do { _ = try Self.read(index) } catch {
                #expect("\(error)".contains(expected.replacingOccurrences(of: "INDEX", with: index)), "\(label): \(error)")
                #expect("\(error)".hasPrefix(folder + "/hollow.ts"), "\(label): \(error)")
            }
        } else {
            let movie = try Self.read(index)
            #expect(movie.videoTrack?.samples.count ?? 0 > 0 && movie.audioTrack?.samples.count ?? 0 > 0, "\(label)")
        }
    }

    /// Issue 50: `seg%203.ts` in a playlist names `seg 3.ts`; `?token=…` is no part of a file name.
    @Test("segment URIs of a local playlist are URIs: escapes decoded, query and fragment dropped")
    func escapedSegmentURIs() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-escapes")
        defer { MP4Fixtures.remove(folder) }
        let source = Self.fixtures + "/hls/ts/content/"
        try MP4Fixtures.write(try MP4Fixtures.bytes(source + "seg0.ts"), to: folder + "/seg 0.ts")
        try MP4Fixtures.write(try MP4Fixtures.bytes(source + "seg1.ts"), to: folder + "/seg1.ts")
        let escaped = try playlist(folder, ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
                                            "#EXTINF:1.5,", "seg%200.ts", "#EXTINF:0.75,", "seg1.ts?token=abc#t", "#EXT-X-ENDLIST"])
        let movie = try Self.read(escaped)
        try FileManager.default.createDirectory(atPath: folder + "/plain", withIntermediateDirectories: false)
        let plain = try Self.read(try playlist(folder + "/plain", ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
                                                               "#EXTINF:1.5,", source + "seg0.ts", "#EXTINF:0.75,", source + "seg1.ts",
                                                               "#EXT-X-ENDLIST"]))
        #expect(movie.videoTrack?.samples.count == plain.videoTrack?.samples.count)
        #expect(movie.audioTrack?.samples.count == plain.audioTrack?.samples.count)
        #expect((movie.videoTrack?.samples.count ?? 0) > 0)
    }

    @Test("broken segments are named with the byte and packet where they break")
    func brokenSegments() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-broken")
        defer { MP4Fixtures.remove(folder) }
        let original = try MP4Fixtures.bytes(Self.fixtures + "/hls/ts/content/seg0.ts")
        let segment = folder + "/seg0.ts"
        let index = try playlist(folder, ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXTINF:1.5,", "seg0.ts", "#EXT-X-ENDLIST"])
        func error(_ bytes: [UInt8]) throws -> String? {
            try MP4Fixtures.write(bytes, to: segment)
            return try renderError(schedule(index))?.description
        }

        #expect(try error(Array(original.dropLast(100))) == "\(segment): malformed MPEG-TS at byte 0 (packet 1): "
                + "\(original.count - 100) bytes is not a whole number of 188-byte packets")

        var lostSync = original
        lostSync[564] = 0x00
        #expect(try error(lostSync) == "\(segment): malformed MPEG-TS at byte 564 (packet 4): no sync byte (0x47) at the start of a packet (found 0x0)")

        // The PMT's H.264 entry (stream type 0x1B, PID 0x100) said to be MPEG-2 video.
        var mpeg2 = original
        let entry = try #require((0..<(mpeg2.count - 3)).first { mpeg2[$0] == 0x1B && mpeg2[$0 + 1] == 0xE1 && mpeg2[$0 + 2] == 0x00 })
        mpeg2[entry] = 0x02
        #expect(try error(mpeg2)?.hasSuffix("unsupported MPEG-TS at byte 376 (packet 3): MPEG-2 video (stream type 0x2); "
                                            + "transport stream sources are read with H.264 or HEVC video") == true)
    }

    /// The demuxed layout a render copies goes block by block through the segments (each of the
    /// content's segments is one block), a block's video samples then its audio frames, back to
    /// back: a render reads each block once, and its `mdat` interleaves the tracks.
    ///
    /// ```
    /// segments  |seg0 ..........|seg1 ..........|...
    /// layout    |v v v v v|a a a|v v v v v|a a a|...
    /// ```
    @Test("the demuxed layout takes the segments in order, each one's video then its audio")
    func interleavedLayout() throws {
        let movie = try Self.read(Self.fixtures + "/hls/ts/content/index.m3u8")
        guard case .transportStream(let samples) = movie.store else { Issue.record("not a transport stream store"); return }
        #expect(samples.positions.first == 0)
        #expect(zip(samples.positions, samples.positions.dropFirst()).enumerated().allSatisfy { $1.0 + UInt64(samples.sizes[$0]) == $1.1 })
        #expect(samples.segmentIndices == samples.segmentIndices.sorted())
        var kinds: [UInt32: String] = [:]
        for (segment, sample) in zip(samples.segmentIndices, samples.samples) {
            if case .video = sample { kinds[segment, default: ""] += "v" } else { kinds[segment, default: ""] += "a" }
        }
        #expect(kinds.count == 10)
        for (segment, kinds) in kinds {
            #expect(kinds.contains("v") && kinds.contains("a") && !kinds.contains("av"), "segment \(segment): \(kinds)")
        }
        // The tracks' sample tables point there: the first audio frame before the second segment's video.
        let video = try #require(movie.videoTrack?.samples), audio = try #require(movie.audioTrack?.samples)
        #expect(audio.offsets[0] < video.offsets[video.count - 1])
    }

    /// Segments are read a batch at a time side by side (`TransportStreamReader.scanBatch`) and
    /// taken in order, so the error is the first a reading of one segment after another meets.
    ///
    /// ```
    /// segments   0  1  2  3  4  5  6  7 | 8  9      two batches of the content's 10
    /// broken           x           x        x       seg2, then seg6, then seg9 is named
    /// ```
    @Test("of several broken segments, read side by side, the first in the playlist is named")
    func firstBrokenSegmentNamed() throws {
        #expect(TransportStreamReader.scanBatch < 10)
        let folder = try MP4Fixtures.makeScratchFolder("ts-first-broken")
        defer { MP4Fixtures.remove(folder) }
        let content = Self.fixtures + "/hls/ts/content"
        for name in MP4Fixtures.listing(content) { try MP4Fixtures.write(try MP4Fixtures.bytes(content + "/" + name), to: folder + "/" + name) }
        let index = folder + "/index.m3u8"
        func lostSync(_ segment: Int) throws {
            var bytes = try MP4Fixtures.bytes(content + "/seg\(segment).ts")
            bytes[564] = 0x00
            try MP4Fixtures.write(bytes, to: folder + "/seg\(segment).ts")
        }
        func repair(_ segment: Int) throws {
            try MP4Fixtures.write(try MP4Fixtures.bytes(content + "/seg\(segment).ts"), to: folder + "/seg\(segment).ts")
        }
        func named(_ segment: Int) -> String {
            "\(folder)/seg\(segment).ts: malformed MPEG-TS at byte 564 (packet 4): no sync byte (0x47) at the start of a packet (found 0x0)"
        }
        #expect(try Self.read(index).tracks.count == 2)
        for segment in [2, 6, 9] { try lostSync(segment) }
        #expect(try renderError(schedule(index))?.description == named(2))
        try repair(2)
        #expect(try renderError(schedule(index))?.description == named(6))
        try repair(6)
        #expect(try renderError(schedule(index))?.description == named(9))
    }

    @Test("a playlist or a transport stream given where an MP4 is read says what it is")
    func notMP4() throws {
        #expect(throws: MP4Error.notMP4(file: Self.fixtures + "/hls/ts/ad1/index.m3u8", reason:
            "it is an HLS playlist (it starts with #EXTM3U); give it as a schedule's source to render its segments")) {
            try MP4Reader.read(path: FilePath(Self.fixtures + "/hls/ts/ad1/index.m3u8"))
        }
        #expect(throws: MP4Error.notMP4(file: Self.fixtures + "/hls/ts/ad1/seg0.ts", reason:
            "it is an MPEG-2 transport stream (a 0x47 sync byte every 188 bytes); list it in an HLS playlist to render it")) {
            try MP4Reader.read(path: FilePath(Self.fixtures + "/hls/ts/ad1/seg0.ts"))
        }
    }

    @Test("no damage to a segment crashes the reader or the writer: each read fails cleanly or renders")
    func damagedSegments() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-damaged")
        defer { MP4Fixtures.remove(folder) }
        let original = try MP4Fixtures.bytes(Self.fixtures + "/hls/ts/ad1/seg0.ts")
        let index = try playlist(folder, ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXTINF:1.3,", "seg0.ts", "#EXT-X-ENDLIST"])
        var random = SeededGenerator(seed: 15)
        var outcomes: [String: Int] = [:]
        for round in 0..<300 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                bytes[at] = round % 3 == 0 ? UInt8.random(in: 0...255, using: &random) : bytes[at] ^ (1 << UInt8.random(in: 0...7, using: &random))
            }
            try MP4Fixtures.write(bytes, to: folder + "/seg0.ts")
            var sources = HLSRenderSources()
            let piece = MP4StitchPiece(source: try sources.source(MediaLocation(FilePath(index))),
                                       range: MediaTimeRange(start: .zero, end: MediaTime(value: 1, timescale: 2)))
            do {
                let stitcher = MP4Stitcher(pieces: [piece])
                try stitcher.write(try stitcher.plan(), to: FilePath(folder + "/out.mp4"))
                outcomes["rendered", default: 0] += 1
            } catch {
                outcomes[String(describing: error).contains("malformed") ? "malformed" : "refused", default: 0] += 1
            }
        }
        // Single bit flips in slice data still render; damage to headers is caught.
        #expect(outcomes["rendered", default: 0] > 0 && outcomes["malformed", default: 0] > 0, "\(outcomes)")
    }

    /// The bytes a render writes for each sample, made the way the reader made them before it
    /// took video straight from the packets: each PES packet put together, then its NAL units
    /// (video) or its raw frames (audio) copied out.
    static func assembledSamples(_ segments: HLSSegmentSource) throws -> [UInt8] {
        var videoSamples: [[UInt8]] = [], audioFrames: [[UInt8]] = []
        var layout: [(isVideo: Bool, index: Int)] = []
        for segment in segments.segments {
            let bytes = try MP4Fixtures.bytes(segment.path.description)
            var demuxer = ProgramDemuxer(streamTypes: [0x1B, 0x0F])
            var packets: [PESPacket] = []
            try bytes.withUnsafeBytes { raw in
                for start in stride(from: 0, to: raw.count, by: 188) {
                    if let packet = try demuxer.add(UnsafeRawBufferPointer(rebasing: raw[start..<(start + 188)]), at: UInt64(start)) {
                        packets.append(packet)
                    }
                }
            }
            packets += try demuxer.finish()
            let streams = try #require(demuxer.programMap?.streams)
            let videoPID = streams.first { $0.streamType == 0x1B }?.pid
            var segmentVideo: [(Bool, Int)] = [], segmentAudio: [(Bool, Int)] = []
            for packet in packets {
                try packet.payload.withUnsafeBytes { raw in
                    if packet.pid == videoPID {
                        let unit = try VideoAccessUnit(payload: raw, format: .h264, at: packet.offset)
                        segmentVideo.append((true, videoSamples.count))
                        videoSamples.append(lengthPrefixedSample(unit.sampleUnits, in: raw))
                    } else {
                        for frame in try ADTSFrames.split(raw, at: packet.offset) {
                            segmentAudio.append((false, audioFrames.count))
                            audioFrames.append(Array(raw[frame.data]))
                        }
                    }
                }
            }
            // The fixture's segments are smaller than a block of the layout: one block each.
            layout += segmentVideo + segmentAudio
        }
        return layout.flatMap { $0.isVideo ? videoSamples[$0.index] : audioFrames[$0.index] }
    }

    /// A render copies any part of the demuxed bytes: the stitcher asks for chunks, and a cut
    /// may start or end one inside a sample.
    ///
    /// ```
    /// demuxed   |len|NAL unit ....|len|NAL unit ..|frame|frame|...
    /// windows        [-----)            [------------------)       any start, any length
    /// ```
    @Test("video is copied straight from the packets: the bytes of PES packets put together, in any window")
    func demuxedWindows() throws {
        let playlist = Self.fixtures + "/hls/ts/content/index.m3u8"
        let movie = try Self.read(playlist)
        guard case .transportStream(let samples) = movie.store else { Issue.record("not a transport stream store"); return }
        let expected = try Self.assembledSamples(try Self.segments(playlist))
        var reader = TransportStreamSampleReader(samples)
        #expect(try reader.read(offset: 0, count: expected.count) == expected)
        var random = SeededGenerator(seed: 17)
        for _ in 0..<400 {
            let start = Int.random(in: 0..<expected.count, using: &random)
            let count = Int.random(in: 1...min(60_000, expected.count - start), using: &random)
            #expect(try reader.read(offset: UInt64(start), count: count) == Array(expected[start..<(start + count)]), "\(count) at \(start)")
        }
        // Each sample on its own, its first and its last byte.
        for (position, size) in zip(samples.positions, samples.sizes) {
            let end = Int(position) + Int(size)
            #expect(try reader.read(offset: position, count: 1) == [expected[Int(position)]])
            #expect(try reader.read(offset: UInt64(end - 1), count: 1) == [expected[end - 1]])
        }
    }

    /// ISO/IEC 13818-1 2.4.3.3 lets a packet come twice (same continuity counter): its payload
    /// counts once, when the index reads it and when the render copies it.
    @Test("a video packet sent twice is read and copied once")
    func repeatedPacket() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-repeated")
        defer { MP4Fixtures.remove(folder) }
        let source = Self.fixtures + "/hls/ts/content"
        try FileManager.default.createDirectory(atPath: folder + "/original", withIntermediateDirectories: true)
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2"]
        var repeated = 0
        for segment in 0..<3 {
            var packets = try MP4Fixtures.bytes(source + "/seg\(segment).ts")
            try MP4Fixtures.write(packets, to: folder + "/original/seg\(segment).ts")
            // Every 5th packet of video that continues a PES packet, sent again right after it.
            var at = 0, seen = 0
            while at + 188 <= packets.count {
                let pid = UInt16(packets[at + 1] & 0x1F) << 8 | UInt16(packets[at + 2])
                if pid == 0x100, packets[at + 1] & 0x40 == 0 {
                    seen += 1
                    if seen % 5 == 0 {
                        packets.insert(contentsOf: packets[at..<(at + 188)], at: at + 188)
                        repeated += 1
                        at += 188
                    }
                }
                at += 188
            }
            try MP4Fixtures.write(packets, to: folder + "/seg\(segment).ts")
            lines += ["#EXTINF:1.2,", "seg\(segment).ts"]
        }
        #expect(repeated > 10)
        let changed = try Self.read(try playlist(folder, lines + ["#EXT-X-ENDLIST"]))
        let original = try Self.read(try playlist(folder + "/original", lines + ["#EXT-X-ENDLIST"]))
        #expect(changed.videoTrack?.samples.sizes == original.videoTrack?.samples.sizes)
        guard case .transportStream(let changedSamples) = changed.store, case .transportStream(let originalSamples) = original.store else {
            Issue.record("not a transport stream store"); return
        }
        let total = Int(originalSamples.positions.last!) + Int(originalSamples.sizes.last!)
        var changedReader = TransportStreamSampleReader(changedSamples), originalReader = TransportStreamSampleReader(originalSamples)
        #expect(try changedReader.read(offset: 0, count: total) == originalReader.read(offset: 0, count: total))
    }

    @Test("a segment changed between planning and writing fails the render and leaves nothing")
    func changedSegment() throws {
        let folder = try MP4Fixtures.makeScratchFolder("ts-changed")
        defer { MP4Fixtures.remove(folder) }
        let segment = folder + "/seg0.ts"
        try MP4Fixtures.write(try MP4Fixtures.bytes(Self.fixtures + "/hls/ts/content/seg0.ts"), to: segment)
        let index = try playlist(folder, ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXTINF:1.5,", "seg0.ts", "#EXT-X-ENDLIST"])
        let schedule = try ScheduleDocument.decode(Array(schedule(index).utf8), baseFolder: FilePath(folder))
        let composition = try Composition(schedule: schedule, naturalDurations: [:])
        var sources = HLSRenderSources()
        let pieces = [MP4StitchPiece(source: try sources.source(MediaLocation(FilePath(index))),
                                     range: composition.segments[0].sourceRange)]
        let stitcher = MP4Stitcher(pieces: pieces)
        let plan = try stitcher.plan()
        try MP4Fixtures.write(try MP4Fixtures.bytes(segment) + [UInt8](repeating: 0xFF, count: 188), to: segment)
        #expect(throws: MP4Error.self) { try stitcher.write(plan, to: FilePath(folder + "/out.mp4")) }
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.mp4"))
    }
}
