import Foundation
import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// MP4 sources packaged into the stitched playlist's segments, judged by ffmpeg: the stitched
/// playlist decodes to exactly the scheduled source frames (MP4 sources decoded from the MP4
/// files themselves), each piece also decoded on its own (its init segment and its segments, as a
/// player reads a discontinuity section), the audio decodes cleanly, and the frames last as long
/// as the composition says.
@Suite("MP4 sources packaged into HLS segments (judged by ffmpeg)", .needsFFmpeg)
struct HLSPackagingFFmpegTests {
    /// `Fixtures/seed-scenario.json`, the reference app's scenario on the bundled clips: HLS
    /// (MPEG-TS) content A and B, an MP4 pre-roll, a pod of two MP4 ads, a once and a sticky MP4
    /// ad, an HLS post-roll. The MP4 ads' keyframes are every 1 s (ad1) and 1.001 s (ad2), and
    /// every ad cut is on one; the content's cut at 5 moves to its segment boundary 5.125.
    ///
    /// ```
    /// plays |ad1 0-3|A 0-5.125|ad1 0-2|ad2 0-3.003|A 5.125-8|ad2 0-2.002|A 8-10|ad1 1-3|A 10-12|B 0-8|ad2 ts 0-3|
    /// ```
    @Test("the seed's scenario: HLS content, MP4 ads packaged as MPEG-TS")
    func seedScenario() async throws {
        let stitched = try await judged(try HLSJoin.composition("seed-scenario.json"), label: "seed")
        #expect(stitched.breaks.map(\.position) == [s(0), t("5.125"), s(8), s(10), s(20)])
        #expect(stitched.packagedSources.map(\.item) == ["pre-ad", "pod-2"])
    }

    @Test("an MP4-only schedule as HLS: Fixtures/demo.json, MPEG-TS and fragmented MP4", arguments: HLSSegmentContainer.allCases)
    func demo(container: HLSSegmentContainer) async throws {
        let stitched = try await judged(try HLSJoin.composition("demo.json"), container: container, label: "demo-\(container.rawValue)")
        // content.mp4's keyframes are every 2 s: mid1, asked at 8.5, plays at 8.
        #expect(stitched.breaks.map(\.position) == [s(0), s(8), t("25.76"), t("32.16")])
    }

    @Test("fragmented MP4 content with MP4 ads: the ads follow the content's container")
    func fragmentedContent() async throws {
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "hls/fmp4/content/index.m3u8" } ],
              "breaks": [ { "id": "mid", "at": 6, "ads": [ { "id": "ad", "url": "ad2.mp4", "end": 2.002 } ] } ] }
            """.utf8))
        let stitched = try await judged(composition, label: "fmp4-content")
        #expect(stitched.packagedSources.first?.packaging.container == .fragmentedMP4)
        #expect(stitched.variants[0].result.playlist.segments.allSatisfy { $0.map != nil })
    }

    /// With interstitials, the content playlist and the ads' playlists list segment files of one
    /// packaging (cut at the breaks): the content playlist decodes to the content's frames.
    @Test("interstitials over MP4 content: the content playlist decodes to the content's frames")
    func interstitialsOverMP4() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("packaging-interstitials")
        defer { MP4Fixtures.remove(folder) }
        let schedule = try ScheduleDocument.decode(try MP4Fixtures.bytes(HLSJoin.fixtures + "/demo.json"), baseFolder: FilePath(HLSJoin.fixtures))
        let durations = SourceProbe.probeAll(schedule).results.mapValues(\.naturalDuration)
        let stitched = try HLSExporter(outputURL: folder + "/out/stitched.m3u8")
            .stitchInterstitials(schedule, naturalDurations: durations)
        try await stitched.write(into: FilePath(folder + "/out"))
        let content = stitched.composition.segments.filter { !$0.isAd }
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        let expected = try await judge.expectedFrames(
            stitched.composition, sourcePlaylists: stitched.composition.segments.map { $0.source.filePath?.description ?? "" })
        let contentFrames = zip(stitched.composition.segments, expected).filter { !$0.0.isAd }.flatMap(\.1)
        #expect(!content.isEmpty)
        #expect(try await ffmpeg.decodedFrames(stitched.outputURL).map(\.hash) == contentFrames.map(\.hash))
    }

    /// Every piece packaged: one stream on the composition's clock. HLS content and ads (TS,
    /// fragmented MP4) and the seed's mix of TS content and MP4 ads, each piece's segments
    /// written for it alone:
    ///
    /// ```
    /// playlist   |piece-1-0|piece-1-1|piece-1-2|piece-2-0| ...    EXT-X-DISCONTINUITY only at a new SPS/PPS in TS
    /// timestamps 10 ------------------------- 13.1 ------ ...    composition time + 10 s
    /// audio      each piece's within half a frame of its video
    /// ```
    @Test("every piece packaged: timestamps run on as composition time, discontinuities only where needed",
          arguments: ["demo-hls.json", "demo-hls-fmp4.json", "seed-scenario.json"])
    func everyPiecePackaged(schedule: String) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("every-piece")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try await judged(try HLSJoin.composition(schedule), everyPiece: true, label: "every-\(schedule)", keep: folder)
        let result = stitched.variants[0].result, playlist = result.playlist
        // Every source has H.264 video and AAC audio: a discontinuity only where MPEG-TS changes
        // its parameter sets (fragmented MP4 changes them with its EXT-X-MAP).
        let descriptions = result.pieces.map { piece in
            stitched.packagedSources.first { $0.playlist.url == piece.url }?.packaging.sampleDescriptions ?? []
        }
        let isTS = playlist.segments[0].map == nil
        let expected = result.pieces.indices.dropFirst().filter { isTS && descriptions[$0] != descriptions[$0 - 1] }
        #expect(playlist.segments.indices.filter { playlist.segments[$0].isDiscontinuity } == expected.map { result.pieces[$0].segments.lowerBound })
        #expect(isTS ? !expected.isEmpty : expected.isEmpty)
        #expect(stitched.placedSegments.count == playlist.segments.count)
        #expect(stitched.packagedSources.count == Set(stitched.composition.segments.map(\.source)).count)
        // Each MPEG-TS piece's decode delay, its own and as written, by run between discontinuities.
        var decodeDelays: [(run: Int, own: Double, written: Double)] = []
        var firstDecodeDelay: Double?
        for (index, piece) in result.pieces.enumerated() {
            let file = folder + "/piece-\(index)"
            let clock = SegmentPlacement.compositionClockStart
            let start = (piece.compositionRange.start + clock).seconds, end = (piece.compositionRange.end + clock).seconds
            let video = try await ffmpeg.packets(file, stream: "v")
            let audio = try await ffmpeg.packets(file, stream: "a")
            let id = stitched.composition.segments[index].id
            if index == 0, let firstPacket = video.first, let decodeTime = firstPacket.decodeTime {
                firstDecodeDelay = firstPacket.start - decodeTime
            }
            if isTS, let firstPacket = video.first, let decodeTime = firstPacket.decodeTime {
                let placed = stitched.placedSegments[piece.segments.lowerBound]
                let own = stitched.packagedSources[placed.source].packaging.decodeDelay(ofSegment: placed.segment).seconds
                let startsRun = index == 0 || playlist.segments[piece.segments.lowerBound].isDiscontinuity
                decodeDelays.append((run: (decodeDelays.last?.run ?? -1) + (startsRun ? 1 : 0), own: own, written: firstPacket.start - decodeTime))
            }
            let first = try #require(video.map(\.start).min()), last = try #require(video.map(\.end).max())
            #expect(abs(first - start) < 0.0001, "'\(id)': its video starts at \(first), not \(start)")
            // Its video may end before the piece when its source's audio runs on (ad2.mp4), by less than a frame.
            #expect(last <= end + 0.0001 && last > end - 0.045, "'\(id)': its video ends at \(last), not \(end)")
            let audioFirst = try #require(audio.map(\.start).min()), audioLast = try #require(audio.map(\.end).max())
            let halfFrame = try #require(audio.lazy.compactMap(\.duration).first) / 2 + 0.0001
            #expect(audioFirst >= start - halfFrame && audioFirst < start + halfFrame, "'\(id)': its audio starts at \(audioFirst)")
            #expect(audioLast <= end + halfFrame && audioLast > end - halfFrame - 0.011, "'\(id)': its audio ends at \(audioLast)")
        }
        // Within a run, every piece decodes as far ahead as the one with the longest delay of its
        // own; a run of one piece (a marked join on either side) keeps its own, where players
        // restart their timeline at its first decode time.
        for (index, piece) in decodeDelays.enumerated() {
            let longest = decodeDelays.filter { $0.run == piece.run }.map(\.own).max() ?? 0
            #expect(abs(piece.written - longest) < 1.0 / 90_000, "piece \(index) decodes \(piece.written) s ahead, not \(longest)")
        }
        #expect(isTS == !decodeDelays.isEmpty)
        // A stream whose first picture decodes after its first decode time, in either container,
        // starts 1 ms in, within its first segment (`leadInStart`: for hls.js, which skipped
        // that picture otherwise).
        let delay = try #require(firstDecodeDelay)
        #expect(playlist.start == (delay > 1.0 / 90_000 ? HLSExportStages.leadInStart : nil))
    }

    /// Every piece of demo.json packaged as fragmented MP4. Its sources' timescales differ, and
    /// every init segment gives each kind of track their least common multiple; their reorder
    /// delays differ, and every piece decodes as far ahead as content.mp4 (2 frames at 24 fps),
    /// so decode times run on by one frame at every join:
    ///
    /// ```
    /// pieces  | ad1      | content  | ad1 | ad2    | ... | content2 | bumper           | ad2
    /// video   | 1/15360  | 1/12288  |     | 1/30000|     | 1/12800  | 1/15360          |      -> 1/7680000 in all
    /// audio   | 1/44100  | 1/48000  |     |1/44100 |     | 1/48000  | silence, 1/48000 |      -> 1/7056000 in all
    /// delay   | 0        | 1/12 s   | 0   | 1/30 s |     | 0        | 0                |      -> 1/12 s in all
    /// ```
    ///
    /// hls.js takes the first decode time of a piece whose timescale differs from the one it
    /// took its time from for that piece's playlist start, although the timestamps run on: it
    /// showed content.mp4's pictures late by their reorder delay and skipped its first 2 s. A
    /// decode time that jumps at a join is a discontinuity to the browser's Media Source buffer,
    /// which in Shaka's "sequence" mode then placed the next piece late by the audio running past
    /// the picture. Scaled by whole factors, every piece still decodes exactly where it should.
    @Test("every piece packaged as fragmented MP4: one timescale per kind of track, decode times running on")
    func everyPieceSharesTimescales() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("every-timescales")
        defer { MP4Fixtures.remove(folder) }
        let stitched = try await judged(
            try HLSJoin.composition("demo.json"), container: .fragmentedMP4, everyPiece: true, label: "every-timescales", keep: folder)
        let result = stitched.variants[0].result
        #expect(Set(stitched.packagedSources.compactMap { $0.packaging.fragmentTimescales[.video] }) == [7_680_000])
        #expect(result.playlist.start == HLSExportStages.leadInStart)
        var previous: Double?
        for (index, piece) in result.pieces.enumerated() {
            let file = folder + "/piece-\(index)"
            #expect(try await ffmpeg.timeBases(file) == ["video": "1/7680000", "audio": "1/7056000"], "piece \(index)")
            // Its first decode time is its composition start less 1/12 s, to the microsecond
            // (ffprobe's), where the sources' own timescales were off by up to 21 µs. (Its first
            // picture's time is not compared: ffmpeg moves a fragment with negative composition
            // offsets, as content2.mp4's, a frame later.)
            let decodeTimes = try await ffmpeg.packets(file, stream: "v").compactMap(\.decodeTime)
            let first = try #require(decodeTimes.first), last = try #require(decodeTimes.last)
            let start = (piece.compositionRange.start + SegmentPlacement.compositionClockStart).seconds - 1.0 / 12
            #expect(abs(first - start) < 0.000_001, "piece \(index) decodes from \(first), not \(start)")
            if let previous {
                #expect(first - previous > 1.0 / 31 && first - previous < 1.0 / 23, "join before piece \(index): decode time +\(first - previous) s")
            }
            previous = last
        }
    }

    /// A piece without audio between pieces with, every piece packaged:
    ///
    /// ```
    /// pieces   |content 0-4 |bumper (video only)|ad1 0-2 |content 4-8 |
    /// fMP4, TS | a+v        | v + silent AAC    | a+v    | a+v        |   the same tracks: nothing marked
    /// ```
    ///
    /// The bumper's segments carry silence, so every piece has the same tracks and, encoding
    /// changes left unmarked, nothing is marked (RFC 8216 4.3.2.3 asks for a mark where the tracks
    /// change): hls.js failed at an fMP4 bumper's init segment without audio ("the video
    /// SourceBuffer does not exist"), and restarted its timeline at the marks around a TS one.
    /// The silence decodes to zeros and lasts the piece, to a frame.
    @Test("every piece packaged: a piece without audio gets silence, so nothing is marked", arguments: HLSSegmentContainer.allCases)
    func everyPieceWithoutAudio(container: HLSSegmentContainer) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("every-without-audio")
        defer { MP4Fixtures.remove(folder) }
        let content = container == .fragmentedMP4 ? "hls/fmp4/content/index.m3u8" : "hls/ts/content/index.m3u8"
        let composition = try HLSJoin.composition(json: Array("""
            { "content": [ { "id": "feature", "url": "\(content)", "end": 8 } ],
              "breaks": [ { "id": "mid", "at": 4, "ads": [ { "id": "bumper", "url": "bumper-video-only.mp4" },
                                                          { "id": "ad", "url": "ad1.mp4", "end": 2 } ] } ] }
            """.utf8))
        let stitched = try await judged(composition, everyPiece: true, marksEncodingChanges: false, label: "every-without-audio", keep: folder)
        let result = stitched.variants[0].result
        let marked = result.playlist.segments.indices.filter { result.playlist.segments[$0].isDiscontinuity }
        #expect(marked == [])
        let bumper = result.pieces[1]
        // Decoded from the piece's first timestamp: as long as the piece, to the frame, and silent.
        let sound = try await ffmpeg.placedSound(folder + "/piece-1")
        let piece = Int((bumper.compositionRange.duration.seconds * 48_000).rounded())
        #expect(sound.count >= piece && sound.count < piece + 1024, "the bumper's silence lasts \(sound.count) samples of 48 kHz, its piece \(piece)")
        #expect(!sound.isEmpty && sound.allSatisfy { $0 == 0 }, "the bumper's audio is silent")
        let clock = SegmentPlacement.compositionClockStart
        let audio = try await ffmpeg.packets(folder + "/piece-1", stream: "a")
        let first = try #require(audio.map(\.start).min())
        #expect(abs(first - (bumper.compositionRange.start + clock).seconds) < 0.0001, "its silence starts at \(first)")
    }

    /// `marksEncodingChanges` off: the MPEG-TS switches of demo-hls.json change only parameter
    /// sets, so none is marked, and the stream (one clock, counters running on) still decodes to
    /// the scheduled frames, whole and piece by piece. Pieces listed as they are cannot go unmarked.
    ///
    /// With nothing marked, every piece decodes its first picture as long before showing it as
    /// the piece with the longest reorder delay does, so decode times run on across each join:
    ///
    /// ```
    /// pieces         | ad1 (no B-frames) | content (B-frames, 24 fps) | ad2 ... | content2 (25 fps)
    /// own PTS - DTS  | 0                 | 2 frames = 1/12 s          | 0       | 1 frame = 1/25 s
    /// written        | 1/12 s            | 1/12 s                     | 1/12 s  | 1/12 s
    /// ```
    @Test("every piece packaged: encoding changes left unmarked on request, only then; one decode delay throughout")
    func everyPieceUnmarkedEncodingChanges() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("every-unmarked")
        defer { MP4Fixtures.remove(folder) }
        let composition = try HLSJoin.composition("demo-hls.json")
        let stitched = try await judged(composition, everyPiece: true, marksEncodingChanges: false, label: "every-unmarked", keep: folder)
        let playlist = stitched.variants[0].result.playlist
        #expect(playlist.segments.allSatisfy { !$0.isDiscontinuity })
        #expect(playlist.start?.timeOffset == MediaTime(value: 1, timescale: 1000) && playlist.start?.isPrecise == false)
        #expect(playlist.text.contains("\n#EXT-X-START:TIME-OFFSET=0.001\n"))

        // Decode times one frame apart (24, 25 or 30 fps); at a join, one frame more than the
        // pictures leave between the pieces (a piece's video may end short of it): never back,
        // never a jump.
        func isOneFrame(_ step: Double) -> Bool { step > 1.0 / 31 && step < 1.0 / 23 }
        var previous: [FFmpeg.Packet] = []
        for index in stitched.variants[0].result.pieces.indices {
            let video = try await ffmpeg.packets(folder + "/piece-\(index)", stream: "v")
            let first = try #require(video.first), decodeTimes = video.compactMap(\.decodeTime)
            try #require(decodeTimes.count == video.count)
            #expect(abs(first.start - decodeTimes[0] - 1.0 / 12) < 1.0 / 90_000, "piece \(index) decodes \(first.start - decodeTimes[0]) s ahead")
            let steps = zip(decodeTimes, decodeTimes.dropFirst()).map { $1 - $0 }
            #expect(steps.allSatisfy(isOneFrame), "piece \(index): decode time steps from \(steps.min() ?? 0) to \(steps.max() ?? 0) s")
            if let last = previous.last?.decodeTime, let videoEnd = previous.map(\.end).max() {
                let step = decodeTimes[0] - last, gap = first.start - videoEnd
                #expect(isOneFrame(step - gap), "join before piece \(index): decode time +\(step) s, pictures \(gap) s apart")
            }
            previous = video
        }

        #expect { try HLSExportOptions(marksEncodingChanges: false) } throws: { error in
            guard let error = error as? HLSExportOptionsError else { return false }
            return error.cause == .unmarkedEncodingChangesNeedEveryPiece && error.options == ["marksEncodingChanges", "packagesEveryPiece"]
                && error.reason.contains("jump in timestamps at every switch")
        }
    }

    @Test("every piece packaged: not with interstitials, which keep each ad in playlists of its own")
    func everyPieceNotWithInterstitials() throws {
        let schedule = try ScheduleDocument.decode(try MP4Fixtures.bytes(HLSJoin.fixtures + "/demo-hls.json"), baseFolder: FilePath(HLSJoin.fixtures))
        let stitcher = HLSExporter(
            outputURL: "/tmp/never-written/stitched.m3u8", options: try HLSExportOptions(packagesEveryPiece: true))
        #expect {
            try stitcher.stitchInterstitials(schedule, naturalDurations: SourceProbe.probeAll(schedule).results.mapValues(\.naturalDuration))
        } throws: { error in
            guard let error = error as? HLSExportError, case .unsupported(_, let reason) = error.detail else { return false }
            return error.cause == .unsupported && reason.contains("packaging every piece")
        }
    }

    /// Stitches, writes, and judges; returns the stitch. Each piece's segments, joined into one
    /// file, are left in `keep` (`piece-N`) when it is given.
    func judged(
        _ composition: Composition, container: HLSSegmentContainer? = nil, everyPiece: Bool = false,
        marksEncodingChanges: Bool = true, label: String, keep: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> HLSExport {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("packaging-\(label)")
        defer { MP4Fixtures.remove(folder) }
        let options = try HLSExportOptions(
            segmentContainer: container, packagesEveryPiece: everyPiece, marksEncodingChanges: marksEncodingChanges)
        let stitcher = HLSExporter(outputURL: folder + "/out/stitched.m3u8", options: options)
        let stitched = try stitcher.stitch(composition)
        try await stitched.write(into: FilePath(folder + "/out"))
        let variant = try #require(stitched.variants.first)
        try checkStitchedPlaylist(variant, composition: stitched.composition, packaged: stitched.packagedSources,
                                  discontinuityAtEveryPiece: !everyPiece, sourceLocation: sourceLocation)
        // Only what the playlist plays is written: every segment it lists, nothing more.
        let uris = variant.result.playlist.segments.flatMap { [$0.uri] + ($0.map.map { [$0.uri] } ?? []) }
        let listed = Set(uris.filter { !$0.contains("/") })
        let written = Set(MP4Fixtures.listing(folder + "/out")).subtracting(["stitched.m3u8", AtomicOutputFolder.manifestName])
        #expect(written == listed, sourceLocation: sourceLocation)

        // A packaged source is judged against the MP4 it was packaged from.
        let sources = variant.sourcePlaylistURLs.map { url in
            stitched.packagedSources.first { $0.playlist.url == url }?.location.filePath?.description ?? url
        }
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        let expected = try await judge.expectedFrames(stitched.composition, sourcePlaylists: sources)
        if variant.result.playlist.segments.first?.map == nil {
            // ffmpeg reads a whole MPEG-TS playlist across its discontinuities (fragmented MP4 it
            // cannot: it keeps the first init segment).
            let decoded = try await ffmpeg.decodedFrames(variant.url)
            #expect(decoded.map(\.hash) == expected.flatMap { $0 }.map(\.hash), "frames of \(variant.url)", sourceLocation: sourceLocation)
        }
        // Each segment's frames last as long as it does, unless its source's video ends first
        // (ad2.mp4's audio runs a second past its video).
        for (index, (segment, frames)) in zip(stitched.composition.segments, expected).enumerated() {
            let shown = frames.reduce(MediaTime.zero) { $0 + judge.frameDuration($1, in: sources[index]) }
            let packaging = stitched.packagedSources.first { $0.playlist.url == variant.sourcePlaylistURLs[index] }?.packaging
            let videoEnd = packaging?.video?.presentationEnd
            let expectedDuration = videoEnd.map { MediaTime.min(segment.compositionRange.duration, $0 - segment.sourceRange.start) }
                ?? segment.compositionRange.duration
            #expect(shown == expectedDuration, "'\(segment.id)': its frames last \(shown) s", sourceLocation: sourceLocation)
        }
        // Each piece on its own, as a player reads each discontinuity section.
        for (index, piece) in variant.result.pieces.enumerated() {
            let file = (keep ?? folder) + "/piece-\(index)"
            var bytes: [UInt8] = []
            let segments = variant.result.playlist.segments[piece.segments]
            if let map = segments.first?.map { bytes += try MP4Fixtures.bytes(map.resolvedURI) }
            for segment in segments { bytes += try MP4Fixtures.bytes(segment.resolvedURI) }
            try MP4Fixtures.write(bytes, to: file)
            let frames = try await ffmpeg.decodedFrames(file)
            #expect(frames.map(\.hash) == expected[index].map(\.hash), "piece \(index) ('\(stitched.composition.segments[index].id)')",
                    sourceLocation: sourceLocation)
            let packaging = stitched.packagedSources.first { $0.playlist.url == piece.url }?.packaging
            let hasAudio = packaging.map { $0.trackKinds.contains(.audio) || $0.writesSilence } ?? true
            if hasAudio { #expect(try await ffmpeg.audioDecodeErrors(file) == "", "piece \(index) audio", sourceLocation: sourceLocation) }
        }
        return stitched
    }
}
