import Foundation
import Testing
import CompositorTestSupport
import CompositorHLSTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// A content playlist's own cue markers read as break positions (`HLSMediaPlaylist.markedSpans`),
/// and a schedule's `"at": "markers"` replacing every marked span with a pod.
@Suite("HLS marked spans: cue markers read as breaks")
struct HLSMarkedSpanTests {
    /// Five segments of 4 s, markers in `tags` before segment N (`[N: "tag lines"]`), a program
    /// date-time of 2026-01-01T00:00:00Z on the first segment.
    static func playlist(_ tags: [Int: String], count: Int = 5, trailing: String = "") -> String {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z\n"
        for index in 0..<count { text += (tags[index].map { $0 + "\n" } ?? "") + "#EXTINF:4,\ns\(index).ts\n" }
        return text + trailing + "#EXT-X-ENDLIST\n"
    }

    static let scte = "SCTE35-OUT=0xFC301B000000000000FFFFF00A05000000017FDF000000000000"

    /// ```
    /// segments  0   4   8   12  16  20
    /// ```
    @Test("each kind of marker, where its span starts and what ends it", arguments: [
        ("CUE-OUT, then CUE-IN", [1: "#EXT-X-CUE-OUT:DURATION=8", 3: "#EXT-X-CUE-IN"], ["4-12 cue@1"]),
        ("CUE-IN ends it, whatever the duration says", [1: "#EXT-X-CUE-OUT:30", 2: "#EXT-X-CUE-IN"], ["4-8 cue@1"]),
        ("no CUE-IN: the duration, clamped to the playlist", [2: "#EXT-X-CUE-OUT:30"], ["8-20 cue@2"]),
        ("no CUE-IN, no duration: to the end", [3: "#EXT-X-CUE-OUT"], ["12-20 cue@3"]),
        ("no CUE-IN: a CUE-OUT after the duration passed starts another", [1: "#EXT-X-CUE-OUT:4", 3: "#EXT-X-CUE-OUT:DURATION=4"],
         ["4-8 cue@1", "12-16 cue@3"]),
        ("CUE-OUT-CONT inside, and a stray CUE-IN", [0: "#EXT-X-CUE-IN", 1: "#EXT-X-CUE-OUT:4\n#EXT-X-CUE-OUT-CONT:0/4", 2: "#EXT-X-CUE-IN"],
         ["4-8 cue@1"]),
        ("SCTE35-OUT with DURATION, on the date-time clock", [0: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:06Z",DURATION=5,"# + scte],
         ["6-11 scte35 a"]),
        ("PLANNED-DURATION", [0: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:08Z",PLANNED-DURATION=4,"# + scte], ["8-12 scte35 a"]),
        ("END-DATE", [0: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:08Z",END-DATE="2026-01-01T00:00:10Z","# + scte],
         ["8-10 scte35 a"]),
        ("the segment of the same ID's SCTE35-IN", [1: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:04Z","# + scte,
                                                     4: #"#EXT-X-DATERANGE:ID="a",SCTE35-IN=0xFC"#], ["4-16 scte35 a"]),
        ("no end at all: not a span", [1: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:04Z","# + scte], []),
        ("one break marked both ways counts once; an overlapping one is dropped",
         [1: "#EXT-X-CUE-OUT:DURATION=8\n" + #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:04Z",DURATION=8,"# + scte,
          2: #"#EXT-X-DATERANGE:ID="b",START-DATE="2026-01-01T00:00:10Z",DURATION=1,"# + scte, 3: "#EXT-X-CUE-IN"],
         ["4-12 cue@1"]),
    ])
    func spans(_ label: String, tags: [Int: String], expected: [String]) throws {
        let playlist = try HLSTest.media(Self.playlist(tags))
        let shown = try playlist.markedSpans.map { span -> String in
            let marker: String
            switch span.marker {
            case .cueOut(let segment): marker = "cue@\(segment)"
            case .scte35(let id): marker = "scte35 \(id)"
            }
            return "\(span.range.start)-\(span.range.end) \(marker)"
        }
        #expect(shown == expected, "\(label)")
    }

    /// Issue 50: markers that clamp to nothing were a `precondition` in `MediaTimeRange` (SIGILL in
    /// every command). Each is now ignored, with why.
    ///
    /// ```
    /// segments  0   4   8   12  16  20
    /// ```
    @Test("a marker that marks nothing is ignored with its reason, and the others still count", arguments: [
        ("CUE-OUT with a negative DURATION", [1: "#EXT-X-CUE-OUT:DURATION=-5"], "EXT-X-CUE-OUT on segment 1 (from 0) marks no break: it ends (-1 s) before it starts (4 s)"),
        ("CUE-OUT with a negative plain duration", [1: "#EXT-X-CUE-OUT:-5"], "EXT-X-CUE-OUT on segment 1 (from 0) marks no break: it ends (-1 s) before it starts (4 s)"),
        ("END-DATE before START-DATE", [0: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:08Z",END-DATE="2026-01-01T00:00:02Z","# + scte],
         "the SCTE35-OUT date range 'a' marks no break: it ends (2 s) before it starts (8 s)"),
        ("after the playlist's end (year 9999)", [0: #"#EXT-X-DATERANGE:ID="a",START-DATE="9999-12-31T23:59:59Z",DURATION=5,"# + scte],
         "the SCTE35-OUT date range 'a' marks no break: it spans 251635075199 s to 251635075204 s, outside the playlist's 0 to 20 s"),
        ("before the playlist's start (year 0001)", [0: #"#EXT-X-DATERANGE:ID="a",START-DATE="0001-01-01T00:00:00Z",DURATION=5,"# + scte],
         "the SCTE35-OUT date range 'a' marks no break: it spans -63902822400 s to -63902822395 s, outside the playlist's 0 to 20 s"),
        ("no end at all", [1: #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:04Z","# + scte],
         "the SCTE35-OUT date range 'a' marks no break: it has no DURATION, PLANNED-DURATION, END-DATE or SCTE35-IN"),
    ])
    func ignoredMarkers(_ label: String, tags: [Int: String], reason: String) throws {
        var withGood = tags
        withGood[3, default: ""] += (withGood[3] == nil ? "" : "\n") + "#EXT-X-CUE-OUT:DURATION=4"
        let markers = try HLSTest.media(Self.playlist(withGood)).markers
        #expect(markers.spans.map(\.range) == [MediaTimeRange(start: s(12), end: s(16))], "\(label)")
        #expect(markers.ignored.map(\.description) == [reason], "\(label)")
    }

    @Test("a span that overlaps an earlier one is reported; the same span marked both ways is not")
    func overlapReported() throws {
        let markers = try HLSTest.media(Self.playlist([
            1: "#EXT-X-CUE-OUT:DURATION=8\n" + #"#EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:04Z",DURATION=8,"# + Self.scte,
            2: #"#EXT-X-DATERANGE:ID="b",START-DATE="2026-01-01T00:00:10Z",DURATION=1,"# + Self.scte, 3: "#EXT-X-CUE-IN",
        ])).markers
        #expect(markers.spans.map(\.marker) == [.cueOut(segment: 1)])
        #expect(markers.ignored.map(\.description) == [
            "the SCTE35-OUT date range 'b' marks no break: it starts inside the span EXT-X-CUE-OUT on segment 1 (from 0) marks",
        ])
    }

    /// The same markers through a schedule and every command that reads one: a warning naming the
    /// break, the playlist and the marker; the good span still places its break.
    @Test("\"at\": \"markers\" with a marker that marks nothing: timeline, render and hls warn and go on", arguments: [
        "#EXT-X-CUE-OUT:DURATION=-5", "#EXT-X-CUE-OUT:-5",
        #"#EXT-X-DATERANGE:ID="x",START-DATE="2026-01-01T00:00:03Z",END-DATE="2026-01-01T00:00:01Z","# + scte,
        #"#EXT-X-DATERANGE:ID="x",START-DATE="9999-01-01T00:00:00Z",DURATION=2,"# + scte,
        #"#EXT-X-DATERANGE:ID="x",START-DATE="0001-01-01T00:00:00Z",DURATION=2,"# + scte,
    ])
    func commandsWarnAndGoOn(marker: String) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("marked-bad")
        defer { MP4Fixtures.remove(folder) }
        let source = HLSJoin.fixtures + "/hls/ts/content/"
        // The fixture's first four segments (1.5, 0.75, 1.75, 1.125 s), the bad marker on the
        // second, a good 1.75 s span on the third.
        let playlist = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z
            #EXTINF:1.5,
            \(source)seg0.ts
            \(marker)
            #EXTINF:0.75,
            \(source)seg1.ts
            #EXT-X-CUE-OUT:DURATION=1.75
            #EXTINF:1.75,
            \(source)seg2.ts
            #EXTINF:1.125,
            \(source)seg3.ts
            #EXT-X-ENDLIST

            """
        try playlist.write(toFile: folder + "/show.m3u8", atomically: false, encoding: .utf8)
        let json = """
            { "content": [ { "id": "show", "url": "show.m3u8" } ],
              "breaks": [ { "id": "ssai", "at": "markers", "ads": [ { "id": "x", "url": "\(HLSJoin.fixtures)/hls/ts/ad1/index.m3u8", "end": 1 } ] } ] }
            """
        try json.write(toFile: folder + "/schedule.json", atomically: false, encoding: .utf8)

        var diagnostics: [ScheduleDocumentDiagnostic] = []
        let schedule = try ScheduleDocument.read(path: FilePath(folder + "/schedule.json"), diagnostics: &diagnostics)
        #expect(schedule.breaks.map(\.placement) == [.midroll(at: MediaTime(value: 225, timescale: 100))])
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first.map { "\($0)".hasPrefix("breaks[0].at: \(folder)/show.m3u8: ") && "\($0)".contains("marks no break") } == true)

        let url = URL(fileURLWithPath: folder)
        for arguments in [["timeline", "schedule.json"], ["render", "schedule.json", "--output", "out.mp4"],
                          ["hls", "schedule.json", "--output", "out-hls"]] {
            let run = try await DemoProcess.run(arguments, in: url)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("warning: schedule.json: breaks[0].at: ") && run.stderr.contains("marks no break"), "\(arguments): \(run.stderr)")
        }
    }

    /// What `--cue-tags` and `--scte35` write, read back: the spans are where the breaks play.
    @Test("a stitched playlist's own markers read back as its breaks' composition ranges (but the post-roll, at the end)")
    func stitchedRoundTrip() throws {
        for markers: Set<HLSCueMarker> in [[.cueTags], [.scte35]] {
            let stitcher = HLSExporter(outputURL: "/out/stitched.m3u8", options: try HLSExportOptions(cueMarkers: markers))
            let stitched = try stitcher.stitch(try HLSJoin.composition("demo-hls.json"))
            let spans = try stitched.variants[0].result.playlist.markedSpans.map(\.range)
            // With SCTE 35 the post-roll has a DURATION; with cue tags it runs to the end: the same span.
            #expect(spans == stitched.composition.breaks.map(\.compositionRange), "\(markers)")
        }
    }

    /// ```
    /// intro  0-6 (an MP4... no: a playlist of 6 s)     show = source 2-20, content 6-24
    /// show markers   CUE-OUT at 8 for 4 s    SCTE35-OUT at 16 for 8 s (cut at the clip's end, 20)
    /// breaks         ssai-1 at content 12, replacing 4 s; ssai-2 at content 20, replacing 4 s
    /// ```
    @Test("\"at\": \"markers\": one break per span within the clip, at its content time, replacing the span")
    func scheduleAtMarkers() throws {
        let folder = try MP4Fixtures.makeScratchFolder("marked-spans")
        defer { MP4Fixtures.remove(folder) }
        try Self.playlist([:], count: 3).replacingOccurrences(of: "#EXTINF:4,", with: "#EXTINF:2,")
            .write(toFile: folder + "/intro.m3u8", atomically: false, encoding: .utf8)
        try Self.playlist([0: "#EXT-X-CUE-OUT:2", 1: "#EXT-X-CUE-IN", 2: "#EXT-X-CUE-OUT:DURATION=4",
                           4: #"#EXT-X-DATERANGE:ID="late",START-DATE="2026-01-01T00:00:16Z",DURATION=8,"# + Self.scte], count: 6)
            .write(toFile: folder + "/show.m3u8", atomically: false, encoding: .utf8)
        try Self.playlist([:], count: 1).write(toFile: folder + "/ad.m3u8", atomically: false, encoding: .utf8)
        let json = """
            { "content": [ { "id": "intro", "url": "intro.m3u8" }, { "id": "show", "url": "show.m3u8", "start": 2, "end": 20 } ],
              "breaks": [ { "id": "ssai", "at": "markers", "clip": "show", "policy": "once", "skippable": false,
                            "ads": [ { "id": "x", "url": "ad.m3u8" } ] } ] }
            """
        let schedule = try ScheduleDocument.decode(Array(json.utf8), baseFolder: FilePath(folder))
        #expect(schedule.breaks.map(\.id) == ["ssai-1", "ssai-2"])
        #expect(schedule.breaks.map(\.placement) == [.midroll(at: s(12)), .midroll(at: s(20))])
        #expect(schedule.breaks.map(\.resumeOffset) == [s(4), s(4)])
        #expect(schedule.breaks.allSatisfy { $0.policy == .once && $0.restrictions.skipping == .never })
        #expect(schedule.breaks.flatMap(\.ads).map(\.id) == ["ssai-1-x", "ssai-2-x"])
        let composition = try Composition(schedule: schedule, naturalDurations: [
            schedule.content[0].source: s(6), schedule.breaks[0].ads[0].source: s(4),
        ])
        #expect(composition.contentDuration == s(24) && composition.duration == s(24 - 8 + 8))
    }

    @Test("\"at\": \"markers\" refusals name the break and say why", arguments: [
        (#""clip": "nope""#, "breaks[0].clip: no content clip 'nope'"),
        (#""resumeOffset": 2"#, "breaks[0].resumeOffset: a break at markers replaces each marked span; it takes no resumeOffset"),
    ])
    func refusals(extra: String, message: String) throws {
        let json = """
            { "content": [ { "id": "show", "url": "show.m3u8" } ],
              "breaks": [ { "at": "markers", \(extra), "ads": [ { "url": "ad.m3u8" } ] } ] }
            """
        #expect { try ScheduleDocument.decode(Array(json.utf8), baseFolder: FilePath("/nowhere")) } throws: { error in
            "\(error)" == message
        }
    }

    @Test("\"clip\" belongs to \"at\": \"markers\"; a source that is not a playlist is refused, named")
    func otherRefusals() throws {
        let withClip = #"{ "content": [ { "id": "c", "url": "a.mp4" } ], "breaks": [ { "at": 3, "clip": "c", "ads": [ { "url": "b.mp4" } ] } ] }"#
        #expect { try ScheduleDocument.decode(Array(withClip.utf8)) } throws: { error in
            "\(error)".hasPrefix("breaks[0].clip: \"clip\" names the clip")
        }
        let mp4 = #"{ "content": [ { "id": "c", "url": "content.mp4" } ], "breaks": [ { "at": "markers", "ads": [ { "url": "ad1.mp4" } ] } ] }"#
        #expect { try ScheduleDocument.decode(Array(mp4.utf8), baseFolder: FilePath(HLSJoin.fixtures)) } throws: { error in
            "\(error)".hasPrefix("breaks[0].at: ") && "\(error)".contains("content.mp4: not a playlist but an MP4 file")
        }
    }
}
