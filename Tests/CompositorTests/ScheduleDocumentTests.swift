import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

@Suite("Schedule files")
struct ScheduleDocumentTests {
    func decode(_ text: String, base: FilePath? = nil) throws(ScheduleDocumentError) -> Schedule {
        try ScheduleDocument.decode(Array(text.utf8), baseFolder: base)
    }

    @Test("reads the contract's example exactly")
    func contractExample() throws {
        let schedule = try decode("""
            {
              "content": [
                { "id": "feature", "url": "content.mp4", "start": 0, "end": 20.5 },
                { "id": "extra",   "url": "content2.mp4", "start": 30 }
              ],
              "breaks": [
                { "id": "pre",  "at": "preroll",  "ads": [ { "id": "a1", "url": "ad1.mp4", "end": 5 } ] },
                { "id": "mid1", "at": 8.5, "policy": "once",
                  "ads": [ { "id": "a2", "url": "ad1.mp4" }, { "id": "a3", "url": "ad2.mp4", "start": 1, "end": 4 } ] },
                { "id": "post", "at": "postroll", "ads": [ { "id": "a4", "url": "ad2.mp4" } ] }
              ]
            }
            """, base: "/media")
        #expect(schedule.content == [
            ContentClip(id: "feature", source: "/media/content.mp4", start: .zero, end: t("20.5")),
            ContentClip(id: "extra", source: "/media/content2.mp4", start: s(30), end: nil),
        ])
        #expect(schedule.breaks.map(\.placement) == [.preroll, .midroll(at: t("8.5")), .postroll])
        #expect(schedule.breaks.map(\.policy) == [.sticky, .once, .sticky])
        #expect(schedule.breaks[1].ads[1] == Ad(id: "a3", source: "/media/ad2.mp4", start: s(1), end: s(4)))
    }

    @Test("numbers are read from their text, never through Double")
    func exactNumbers() throws {
        let schedule = try decode("""
            {"content": [{"url": "c.mp4", "start": 0.1, "end": "6006/30000"}],
             "breaks": [{"at": 30.0e-2, "ads": [{"url": "a.mp4", "end": 1e1}]}]}
            """)
        #expect(schedule.content[0].start == MediaTime(value: 1, timescale: 10))
        #expect(schedule.content[0].end?.timescale == 30000)
        #expect(schedule.breaks[0].ads[0].end == s(10))
        #expect(schedule.breaks[0].placement == .midroll(at: MediaTime(value: 3, timescale: 10)))
        // 17 decimal places do not fit a 32-bit timescale: an error, not a rounded time.
        #expect(throws: ScheduleDocumentError.self) {
            _ = try decode(#"{"content": [{"url": "c.mp4", "end": 0.30000000000000004}]}"#)
        }
    }

    @Test("default IDs, restrictions and policies")
    func defaults() throws {
        let schedule = try decode("""
            {"content": [{"url": "c.mp4", "end": 60}],
             "breaks": [{"at": 10, "ads": [{"url": "a.mp4"}, {"url": "b.mp4"}], "skippableAfter": 5, "seekWithinAds": false},
                        {"at": "postroll", "ads": [{"url": "a.mp4"}], "skippable": false, "resumeOffset": 0}]}
            """)
        #expect(schedule.content[0].id == "clip-1")
        #expect(schedule.breaks.map(\.id) == ["break-1", "break-2"])
        #expect(schedule.breaks[0].ads.map(\.id) == ["break-1-ad-1", "break-1-ad-2"])
        #expect(schedule.breaks[0].restrictions == BreakRestrictions(allowsSeekingWithinAd: false, skipping: .after(s(5))))
        #expect(schedule.breaks[1].restrictions.skipping == .never)
        #expect(schedule.breaks[0].restrictions.skipping != .never)
    }

    @Test("resolves URLs against the schedule's folder (MediaLocation's rules)")
    func urls() throws {
        let schedule = try decode(#"{"content": [{"id": "a", "url": "ads/a.mp4", "end": 1}, {"id": "b", "url": "file:///m/b%20c.mp4", "end": 1}]}"#, base: "/s")
        #expect(schedule.content.map(\.source) == [MediaLocation(FilePath("/s/ads/a.mp4")), MediaLocation(FilePath("/m/b c.mp4"))])
        #expect(throws: ScheduleDocumentError.invalid(path: "content[0].url", reason: MediaLocationError.remoteFileHost("file://nas/a.mp4", host: "nas").description)) {
            try decode(#"{"content": [{"id": "a", "url": "file://nas/a.mp4", "end": 1}]}"#)
        }
    }

    @Test("a multivariant source's variant is part of its location: the same playlist, another source")
    func variants() throws {
        let schedule = try decode(#"{"content": [{"id": "a", "url": "m.m3u8", "variant": "720p/index.m3u8", "end": 1}, {"id": "b", "url": "m.m3u8", "end": 1}]}"#, base: "/s")
        let master = MediaLocation(FilePath("/s/m.m3u8"))
        #expect(schedule.content.map(\.source) == [master.selectingVariant("720p/index.m3u8"), master])
        #expect(schedule.content[0].source.description == #"/s/m.m3u8 (variant "720p/index.m3u8")"#)
    }

    /// Other encodings of a source, by the source, each URL resolved as an item's; a source
    /// not in the schedule may be named (it is never played), repeats are left out.
    @Test("reads other renditions of a source")
    func renditions() throws {
        let schedule = try decode(#"""
            {"content": [{"id": "a", "url": "show.mp4", "end": 1}],
             "renditions": {"show.mp4": ["show-360.mp4", "file:///m/show-180.mp4", "show-360.mp4"]}}
            """#, base: "/s")
        #expect(schedule.renditions == [
            MediaLocation(FilePath("/s/show.mp4")): [MediaLocation(FilePath("/s/show-360.mp4")), MediaLocation(FilePath("/m/show-180.mp4"))],
        ])
    }

    @Test("errors say where", arguments: [
        (#"{"content": [{"url": "c.mp4", "end": 5}"#, "not valid JSON: line 1, column 40: expected ',' or ']' in an array"),
        (#"{"content": []}"#, "content: the schedule has no content clip"),
        (#"{"breaks": []}"#, #"schedule: missing key "content""#),
        (#"{"content": [{"url": "c.mp4", "ned": 5}]}"#, #"content[0]: unknown key "ned" (known: end, id, start, url, variant)"#),
        (#"{"content": [{"end": 5}]}"#, #"content[0]: missing key "url""#),
        (#"{"content": [{"url": 5}]}"#, "content[0].url: expected a string, got a number"),
        (#"{"content": [{"url": "c.mp4", "end": "soon"}]}"#, "content[0].end: malformed time 'soon': expected a digit"),
        (#"{"content": [{"url": "c.mp4", "start": 5, "end": 2}]}"#, "content[0]: 'clip-1': empty range, end 2 s is not after start 5 s"),
        (#"{"content": [{"url": "c.mp4"}], "breaks": [{"at": "midroll", "ads": [{"url": "a"}]}]}"#,
         "breaks[0].at: malformed time 'midroll': expected a digit"),
        (#"{"content": [{"url": "c.mp4"}], "breaks": [{"at": true, "ads": []}]}"#,
         #"breaks[0].at: expected "preroll", "postroll", "markers" or a time (seconds or "value/timescale"), got a boolean"#),
        (#"{"content": [{"url": "c.mp4"}], "breaks": [{"at": 1, "ads": []}]}"#, "breaks[0]: break 'break-1' has no ads"),
        (#"{"content": [{"url": "c.mp4"}], "breaks": [{"at": 1, "policy": "twice", "ads": [{"url": "a"}]}]}"#,
         #"breaks[0].policy: expected "sticky" or "once", got "twice""#),
        (#"{"content": [{"url": "c.mp4"}], "breaks": [{"at": 1, "ads": [{"url": "a", "start": -1}]}]}"#,
         "breaks[0]: 'break-1-ad-1': start -1 s is negative"),
        (#"{"content": [{"id": "x", "url": "c.mp4"}], "breaks": [{"id": "x", "at": 1, "ads": [{"url": "a"}]}]}"#,
         "breaks[0]: ID 'x' is used twice (clips, breaks and ads share one namespace)"),
        (#"{"content": [{"url": "m.m3u8", "variant": 720}]}"#, "content[0].variant: expected a string, got a number"),
        (#"{"content": [{"url": "m.m3u8"}], "breaks": [{"at": 1, "ads": [{"url": "a", "variant": ""}]}]}"#,
         "breaks[0].ads[0].variant: an empty variant name"),
        (#"{"content": [{"url": "c.mp4", "id": "a", "id": "b"}]}"#, #"not valid JSON: line 1, column 42: duplicate key "id""#),
        (#"{"content": [{"url": "c.mp4"}], "renditions": ["c-lo.mp4"]}"#,
         "renditions: expected an object of a source's URL to its other renditions' URLs, got an array"),
        (#"{"content": [{"url": "c.mp4"}], "renditions": {"c.mp4": "c-lo.mp4"}}"#, #"renditions["c.mp4"]: expected an array, got a string"#),
        (#"{"content": [{"url": "c.mp4"}], "renditions": {"c.mp4": ["c-lo.mp4", 2]}}"#,
         #"renditions["c.mp4"][1]: expected a URL string, got a number"#),
        (#"{"content": [{"url": "c.mp4"}], "renditions": {"c.mp4": ["c.mp4"]}}"#, #"renditions["c.mp4"]: a source is not a rendition of itself"#),
        (#"{"content": [{"url": "c.mp4"}], "renditions": {"c.mp4": ["file://nas/c.mp4"]}}"#,
         #"renditions["c.mp4"][0]: "# + MediaLocationError.remoteFileHost("file://nas/c.mp4", host: "nas").description),
    ])
    func errors(text: String, message: String) {
        do {
            _ = try decode(text)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description == message)
        }
    }
}

@Suite("JSON")
struct JSONTests {
    @Test("round-trips values, keeping number text and key order")
    func roundTrip() throws {
        let text = #"{"b":[1,-2.50,3e-7,true,false,null],"a":"q\"\\\n\u0001é😀","c":{}}"#
        let value = try JSONValue(parsing: Array(text.utf8))
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["a"] == .string("q\"\\\n\u{01}é😀"))
        #expect(value.serialized == #"{"b":[1,-2.50,3e-7,true,false,null],"a":"q\"\\\n\u0001é😀","c":{}}"#)
        #expect(try JSONValue(parsing: Array(#""\ud83d\ude00""#.utf8)) == .string("😀"))
    }

    @Test("rejects what RFC 8259 rejects", arguments: [
        "", "[1,]", "{\"a\":1,}", "01", "1.", "-", "[1 2]", "\"\\x\"", "\"\u{01}\"", "nul", "[1]x", "\"\\ud800\"", "{1:2}", "// c\n1",
    ])
    func rejects(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test("refuses nesting deeper than the limit instead of exhausting the stack")
    func depth() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSONValue(parsing: Array(fine.utf8)) }
    }

    @Test("writes times as seconds, exactly when it can")
    func seconds() {
        #expect(JSONValue.seconds(t("20.5")) == .number("20.5"))
        #expect(JSONValue.seconds(s(-3)) == .number("-3"))
        #expect(JSONValue.seconds(t("1001/30000")) == .number("0.033366667"))
        #expect(JSONValue.seconds(t("1/3")) == .number("0.333333333"))
    }
}
