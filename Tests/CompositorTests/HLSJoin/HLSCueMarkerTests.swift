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

/// Cue markers around each break of a spliced playlist: `EXT-X-CUE-OUT`/`-CONT`/`-IN`, and SCTE 35
/// `splice_insert` sections in `SCTE35-OUT`/`-IN` date ranges.
@Suite("HLS cue markers: CUE-OUT/-CONT/-IN and SCTE 35 date ranges")
struct HLSCueMarkerTests {
    /// SCTE 35 2022, 14.2 (the `splice_insert` sample,
    /// `/DAvAAAAAAAA///wFAVIAACPf+/+c2nALv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo=`): its fields give its bytes,
    /// CRC included. Our own sections were decoded by the Python `threefive` package to the same
    /// fields (`bash Tests/Tools/scte35-crosscheck.sh`).
    @Test("splice_insert sections, byte for byte", arguments: [
        (SCTE35SpliceInsert(eventID: 0x4800_008F, outOfNetwork: true, spliceTime: 0x0_7369_C02E, breakDuration: 0x0_0052_CCF5,
                            providerAvailID: 0x135),
         "FC302F000000000000FFFFF014054800008F7FEFFE7369C02EFE0052CCF500000000000A0008435545490000013562DBA30A"),
        (SCTE35SpliceInsert(eventID: 1, outOfNetwork: true, breakDuration: 279_000),
         "FC3020000000000000FFFFF00F05000000017FFFFE000441D8000000000000256B7DCC"),
        (SCTE35SpliceInsert(eventID: 2, outOfNetwork: false),
         "FC301B000000000000FFFFF00A05000000027F5F000000000000B8065716"),
        // 33-bit times wrap; a duration without auto-return clears its flag.
        (SCTE35SpliceInsert(eventID: 7, outOfNetwork: true, spliceTime: 0x2_0000_0001, breakDuration: 90_000, autoReturn: false),
         "FC3025000000000000FFFFF01405000000077FEFFE000000017E00015F90000000000000A54F3456"),
    ])
    func spliceInsert(section: SCTE35SpliceInsert, hex: String) {
        #expect(section.hexDigits == hex)
        let bytes = section.bytes
        #expect(SCTE35SpliceInsert.crc32(Array(bytes.dropLast(4))) == bytes.suffix(4).reduce(0) { $0 << 8 | UInt32($1) })
        #expect(Int(bytes[1] & 0x0F) << 8 | Int(bytes[2]) == bytes.count - 3)  // section_length
    }

    static func stitch(_ json: String, markers: Set<HLSCueMarker>, folder: String) throws -> (HLSExport, HLSMediaPlaylist) {
        let stitcher = HLSExporter(outputURL: folder + "/stitched.m3u8", options: try HLSExportOptions(cueMarkers: markers))
        let stitched = try stitcher.stitch(try HLSJoin.composition(json: Array(json.utf8)))
        let text = stitched.variants[0].result.text
        return (stitched, try HLSPlaylistParser().parseMediaPlaylist(Array(text.utf8), url: folder + "/stitched.m3u8"))
    }

    /// `Fixtures/demo-hls.json`: each break's first segment opens it with its duration, every other
    /// segment of it counts the time elapsed, the segment after it closes it; the post-roll ends the
    /// playlist, so nothing closes it.
    ///
    /// ```
    /// segments  |a1 1.3 .7 1.1|feature ...|a2 1.3 .7 1.1 .9|a3 1.2 .6|feature ...|extra ...|a5 ...|extra ...|a4 ...|
    /// markers    OUT  CONT CONT IN         OUT ... CONT (5 of them)     IN        ...   (mid2) ...   OUT, CONTs
    /// ```
    @Test("EXT-X-CUE-OUT:DURATION, EXT-X-CUE-OUT-CONT with the elapsed time, EXT-X-CUE-IN after each break")
    func cueTags() throws {
        let (stitched, playlist) = try Self.stitch(try String(contentsOfFile: HLSJoin.fixtures + "/demo-hls.json", encoding: .utf8),
                                                   markers: [.cueTags], folder: "/out")
        let composition = stitched.composition
        let boundaries = try playlist.segmentBoundaries
        var expectedOuts: [MediaTime] = [], expectedIns: [MediaTime] = []
        for placed in composition.breaks {
            expectedOuts.append(placed.compositionRange.start)
            if placed.compositionRange.end < composition.duration { expectedIns.append(placed.compositionRange.end) }
        }
        let outs = playlist.segments.indices.filter { playlist.segments[$0].cueOut != nil }
        #expect(outs.map { boundaries[$0] } == expectedOuts)
        #expect(playlist.segments.indices.filter { playlist.segments[$0].isCueIn }.map { boundaries[$0] } == expectedIns)
        for (index, placed) in zip(outs, composition.breaks) {
            #expect(playlist.segments[index].cueOut?.duration == placed.compositionRange.duration)
            // Every later segment of the break: ElapsedTime from the break's start, the same Duration.
            var segment = index + 1
            while segment < playlist.segments.count, boundaries[segment] < placed.compositionRange.end {
                let cont = try #require(playlist.segments[segment].cueOutContinuation)
                #expect(cont.elapsed == boundaries[segment] - placed.compositionRange.start && cont.duration == placed.compositionRange.duration)
                segment += 1
            }
        }
        let continued = playlist.segments.filter { $0.cueOutContinuation != nil }.count
        #expect(continued == 12)  // pre 2, mid1 5 (a pod over one discontinuity), mid2 3, post 2
        #expect(stitched.variants[0].result.text.contains("#EXT-X-CUE-OUT:DURATION=5.8\n#EXTINF:1.3,\n"))
    }

    /// Two breaks at one position: the segment between them closes the first and opens the second,
    /// in that order.
    @Test("back-to-back breaks: CUE-IN, then CUE-OUT, on the segment between them")
    func backToBack() throws {
        let (_, playlist) = try Self.stitch("""
            { "content": [ { "id": "feature", "url": "hls/ts/content/index.m3u8" } ],
              "breaks": [ { "id": "b1", "at": 4, "ads": [ { "id": "x", "url": "hls/ts/ad2/index.m3u8" } ] },
                          { "id": "b2", "at": 4, "ads": [ { "id": "y", "url": "hls/ts/ad2/index.m3u8" } ] } ] }
            """, markers: [.cueTags, .scte35], folder: "/out")
        #expect(playlist.text.contains("#EXT-X-CUE-IN\n#EXT-X-CUE-OUT:DURATION=3\n#EXTINF:0.6,\n"))
        #expect(playlist.segments.filter(\.isCueIn).count == 2)
        let reparsed = try HLSPlaylistParser().parseMediaPlaylist(Array(playlist.text.utf8), url: "/out/stitched.m3u8")
        #expect(reparsed.text == playlist.text)
    }

    /// Each break's date range carries `SCTE35-OUT` (leaving the network, the break's duration in
    /// 90 kHz ticks); a date range of the same ID and `START-DATE` carries `SCTE35-IN` on the segment
    /// after the break.
    @Test("SCTE35-OUT on each break's date range, SCTE35-IN on a date range of the same ID after it")
    func scte35() throws {
        let (stitched, playlist) = try Self.stitch(try String(contentsOfFile: HLSJoin.fixtures + "/demo-hls.json", encoding: .utf8),
                                                   markers: [.scte35], folder: "/out")
        let composition = stitched.composition
        let boundaries = try playlist.segmentBoundaries
        let tagged = playlist.segments.indices.flatMap { index in playlist.segments[index].dateRanges.map { (index, $0) } }
        for (number, placed) in composition.breaks.enumerated() {
            let ranges = tagged.filter { $0.1.id == placed.id }
            let eventID = UInt32(number + 1)
            let ticks = UInt64(try placed.compositionRange.duration.converted(to: 90_000, rounding: .toNearestOrAwayFromZero).value)
            let out = SCTE35SpliceInsert(eventID: eventID, outOfNetwork: true, breakDuration: ticks)
            #expect(ranges.first.map { boundaries[$0.0] } == placed.compositionRange.start)
            #expect(ranges.first?.1.attributes["SCTE35-OUT"] == .hexadecimal(out.hexDigits))
            guard placed.compositionRange.end < composition.duration else { #expect(ranges.count == 1); continue }
            #expect(ranges.count == 2)
            let back = try #require(ranges.last)
            #expect(boundaries[back.0] == placed.compositionRange.end)
            #expect(back.1.attributes.names == ["ID", "START-DATE", "SCTE35-IN"])
            #expect(back.1.attributes["START-DATE"] == ranges.first?.1.attributes["START-DATE"])
            #expect(back.1.attributes["SCTE35-IN"] == .hexadecimal(SCTE35SpliceInsert(eventID: eventID, outOfNetwork: false).hexDigits))
        }
        #expect(!stitched.variants[0].result.text.contains("#EXT-X-CUE"))
    }

    /// The content's own markers, kept where the content is kept: date ranges moved to the
    /// stitched clock, cue and vendor tags on their segments; the ad's own markers dropped.
    ///
    /// ```
    /// c.m3u8     0 promo(1-3)  4 chapter(6-9) CUE-OUT  8 CUE-IN  12 dropped(13)  16
    /// plays      |C 0-4        |A 0-4       |C 4-12                    |            break b asked at 5, snapped to 4
    /// stitched   0 promo 1     4            8       chapter 10-13
    /// ```
    @Test("the content's own date ranges, cue tags and vendor tags are kept, moved to the stitched clock")
    func contentMarkersKept() throws {
        let content = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PROGRAM-DATE-TIME:2020-01-01T00:00:00Z
            #EXT-X-DATERANGE:ID="promo",START-DATE="2020-01-01T00:00:01Z",DURATION=2
            #EXTINF:4,
            s0.ts
            #EXT-X-DATERANGE:ID="chapter",START-DATE="2020-01-01T00:00:06Z",END-DATE="2020-01-01T00:00:09Z"
            #EXT-OATCLS-SCTE35:/DAvAAAAAAAA
            #EXT-X-CUE-OUT:DURATION=4
            #EXTINF:4,
            s1.ts
            #EXT-X-CUE-IN
            #EXTINF:4,
            s2.ts
            #EXT-X-DATERANGE:ID="dropped",START-DATE="2020-01-01T00:00:13Z",DURATION=1
            #EXTINF:4,
            s3.ts
            #EXT-X-ENDLIST

            """
        let ad = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-CUE-OUT:4\n#EXTINF:2,\na0.ts\n#EXTINF:2,\na1.ts\n#EXT-X-ENDLIST\n"
        let stitched = try HLSJoinTests.stitch(try HLSJoinTests.composition(), ["c.m3u8": content, "ad.m3u8": ad])
        let text = stitched.variants[0].result.text
        #expect(text.contains(#"#EXT-X-DATERANGE:ID="promo",START-DATE="2026-01-01T00:00:01.000Z",DURATION=2"# + "\n#EXTINF:4,\n../s0.ts\n"))
        // (The writer puts a segment's unknown lines first, before its discontinuity.)
        #expect(text.contains("#EXT-OATCLS-SCTE35:/DAvAAAAAAAA\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:08.000Z\n"
            + #"#EXT-X-DATERANGE:ID="chapter",START-DATE="2026-01-01T00:00:10.000Z",END-DATE="2026-01-01T00:00:13.000Z""#
            + "\n#EXT-X-CUE-OUT:DURATION=4\n#EXTINF:4,\n../s1.ts\n#EXT-X-CUE-IN\n#EXTINF:4,\n../s2.ts\n"))
        #expect(!text.contains("dropped") && text.components(separatedBy: "#EXT-X-CUE-OUT").count == 2)
        let playlist = try HLSPlaylistParser().parseMediaPlaylist(Array(text.utf8), url: stitched.outputURL)
        #expect(playlist.segments.flatMap(\.dateRanges).map(\.id) == ["promo", "b", "chapter"])

        // Content played twice keeps its date ranges twice, under new IDs the second time.
        let twice = try Composition(schedule: Schedule(content: [
            ContentClip(id: "C1", source: MediaLocation(parsing: HLSJoinTests.base + "c.m3u8"), end: s(8)),
            ContentClip(id: "C2", source: MediaLocation(parsing: HLSJoinTests.base + "c.m3u8"), end: s(8)),
        ], breaks: []))
        let repeated = try HLSJoinTests.stitch(twice, ["c.m3u8": content])
        #expect(repeated.variants[0].result.playlist.segments.flatMap(\.dateRanges).map(\.id) == ["promo", "chapter", "promo-2", "chapter-2"])

        // A content date range with a break's ID is refused, naming the clip.
        #expect(throws: HLSExportError(.stitch(
            item: "C", reason: "piece 0 keeps its own date range 'b', the ID of a marker too; give the marker another ID"))) {
            try HLSJoinTests.stitch(try HLSJoinTests.composition(), ["c.m3u8": content.replacingOccurrences(of: #"ID="promo""#, with: #"ID="b""#)])
        }
    }

    @Test("hls --cue-tags --scte35 writes both; with --interstitials they are refused (no ads in the playlist)")
    func command() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("hls-cue-cli")
        defer { MP4Fixtures.remove(scratch) }
        let result = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/out", "--cue-tags", "--scte35"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: scratch + "/out/stitched.m3u8", encoding: .utf8)
        #expect(text.components(separatedBy: "#EXT-X-CUE-OUT:").count == 5 && text.components(separatedBy: "SCTE35-IN=").count == 4)
        let refused = try await DemoProcess.run(["hls", "Fixtures/demo-hls.json", "--output", scratch + "/x", "--interstitials", "--scte35"])
        #expect(refused.status == 64 && refused.stderr.contains("with --interstitials there are none"))
    }
}
