import Testing
import CompositorTestSupport
import CompositorHLSTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Where a break lands when it is asked for between segment boundaries: the stitch's rule, or the
/// break's own.
///
/// ```
/// c.m3u8     0 ------- 9 -------- 18 ------- 27 ------- 36     content boundaries
/// asked                    13                                  break b, ad.m3u8 [0, 4)
/// nearest    |C 0-9    |ad|C 9-36 ...                          13 is 4 from 9, 5 from 18
/// next       |C 0-18            |ad|C 18-36 ...                hls-splice's rule
/// previous   |C 0-9    |ad|C 9-36 ...
/// ```
@Suite("HLS snapping rules: nearest, next, previous, per stitch and per break")
struct HLSSnappingRuleTests {
    static let base = "https://cdn.example/"

    static func media(_ durations: [String], prefix: String) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:9\n" + durations.enumerated().map { "#EXTINF:\($1),\n\(prefix)\($0).ts\n" }.joined()
            + "#EXT-X-ENDLIST\n"
    }

    static let loader = HLSPlaylistLoader.inMemory([
        base + "c.m3u8": media(["9", "9", "9", "9"], prefix: "c"),
        base + "ad.m3u8": media(["2", "2"], prefix: "a"),
    ])

    static func t(_ text: String) -> MediaTime { HLSTest.time(text) }

    /// `C [0, 36)` of `c.m3u8`, with one break per entry of `breaks` (ID, content time, ad end).
    static func composition(_ breaks: [(id: String, at: String, adEnd: String)]) throws -> Composition {
        let ad = try MediaLocation(parsing: base + "ad.m3u8")
        return try Composition(schedule: Schedule(
            content: [ContentClip(id: "C", source: MediaLocation(parsing: base + "c.m3u8"), end: t("36"))],
            breaks: breaks.map { entry in
                AdBreak(id: entry.id, placement: .midroll(at: t(entry.at)), ads: [Ad(id: entry.id + "-ad", source: ad, end: t(entry.adEnd))])
            }))
    }

    static func stitch(
        _ composition: Composition, _ rule: HLSCutSnapping, breaks: [String: HLSCutSnapping] = [:]
    ) throws(HLSExportError) -> HLSExport {
        let options: HLSExportOptions
        do { options = try HLSExportOptions(snapping: rule, breakSnapping: breaks) } catch { throw HLSExportError(.stitch(item: nil, reason: "\(error)")) }
        return try HLSExporter(outputURL: base + "out/stitched.m3u8", options: options, loader: loader).stitch(composition)
    }

    @Test("a break at 13 between boundaries 9 and 18 lands at 9 (nearest), 18 (next), 9 (previous)", arguments: [
        (HLSCutSnapping.nearest, "9", ["c0"]), (.next, "18", ["c0", "c1"]), (.previous, "9", ["c0"]),
    ])
    func breakBetweenBoundaries(rule: HLSCutSnapping, lands: String, before: [String]) throws {
        let stitched = try Self.stitch(try Self.composition([("b", "13", "4")]), rule)
        let position = Self.t(lands)
        #expect(stitched.breaks.map(\.requestedPosition) == [Self.t("13")])
        #expect(stitched.breaks.map(\.position) == [position])
        #expect(stitched.composition.segments.map(\.sourceRange) == [
            MediaTimeRange(start: .zero, end: position), MediaTimeRange(start: .zero, end: Self.t("4")),
            MediaTimeRange(start: position, end: Self.t("36")),
        ])
        // The ad plays where content stops; nothing of the content is lost or repeated.
        #expect(stitched.composition.breaks[0].compositionRange == MediaTimeRange(start: position, end: position + Self.t("4")))
        #expect(stitched.composition.duration == Self.t("40"))
        // Whole segments: the content's before the break, the ad's, the rest of the content's.
        let after = ["c0", "c1", "c2", "c3"].dropFirst(before.count)
        let names = before + ["a0", "a1"] + after
        #expect(stitched.variants[0].result.playlist.segments.map(\.uri) == names.map { "../\($0).ts" })
    }

    @Test("a break exactly on a boundary stays there under every rule", arguments: [HLSCutSnapping.nearest, .next, .previous])
    func breakOnABoundary(rule: HLSCutSnapping) throws {
        let stitched = try Self.stitch(try Self.composition([("b", "18", "4")]), rule)
        #expect(stitched.breaks.map(\.position) == [Self.t("18")])
        #expect(stitched.breaks.map(\.moved) == [false])
    }

    /// Before the first boundary after the start (in `[0, 9)`), `nearest` and `previous` move the
    /// break to 0: the content before it would be empty, which is refused naming the clip, never
    /// dropped silently. `next` moves it to 9. In the last segment (`(27, 36)`), `nearest` and
    /// `next` move it to the end, with the same refusal for the content after it; `previous` to 27.
    @Test("a break in the first or the last segment", arguments: [
        ("2", HLSCutSnapping.nearest, nil), ("2", .previous, nil), ("2", .next, "9"),
        ("34", .nearest, nil), ("34", .next, nil), ("34", .previous, "27"),
    ] as [(String, HLSCutSnapping, String?)])
    func breakNearTheEnds(at: String, rule: HLSCutSnapping, lands: String?) throws {
        let composition = try Self.composition([("b", at, "4")])
        guard let lands else {
            let error = #expect(throws: HLSExportError.self) { try Self.stitch(composition, rule) }
            guard case .snapsToNothing(let item, _, let requested, _)? = error?.detail else { Issue.record("\(String(describing: error))"); return }
            #expect(item == "C")
            #expect(requested.start == Self.t(at) || requested.end == Self.t(at))
            return
        }
        #expect(try Self.stitch(composition, rule).breaks.map(\.position) == [Self.t(lands)])
    }

    @Test("a break's own rule moves its ads' cuts and the content cuts on either side; others keep the stitch's")
    func perBreak() throws {
        // b1 at 13 (own rule: next) -> 18; b2 at 31 (stitch rule: nearest, 4 from 27, 5 from 36) -> 27.
        // Each ad is asked [0, 3): 3 is halfway between 2 and 4; nearest takes 2, next takes 4.
        let composition = try Self.composition([("b1", "13", "3"), ("b2", "31", "3")])
        let stitched = try Self.stitch(composition, .nearest, breaks: ["b1": .next])
        #expect(stitched.breaks.map(\.position) == [Self.t("18"), Self.t("27")])
        #expect(stitched.composition.segments.map(\.sourceRange) == [
            MediaTimeRange(start: .zero, end: Self.t("18")), MediaTimeRange(start: .zero, end: Self.t("4")),
            MediaTimeRange(start: Self.t("18"), end: Self.t("27")), MediaTimeRange(start: .zero, end: Self.t("2")),
            MediaTimeRange(start: Self.t("27"), end: Self.t("36")),
        ])
        // The other way round: the stitch's rule is next, b2's own is previous.
        let other = try Self.stitch(composition, .next, breaks: ["b2": .previous])
        #expect(other.breaks.map(\.position) == [Self.t("18"), Self.t("27")])
        #expect(other.composition.segments.map(\.sourceRange.end) == [Self.t("18"), Self.t("4"), Self.t("27"), Self.t("2"), Self.t("36")])
        // A rule for a break that is not in the composition moves nothing.
        let unknown = try Self.stitch(composition, .nearest, breaks: ["left-out": .next])
        #expect(unknown.breaks.map(\.position) == [Self.t("9"), Self.t("27")])
    }

    @Test("each cut's rule: a break's for the cuts next to it, the stitch's elsewhere")
    func cutRules() throws {
        let composition = try Self.composition([("b1", "13", "4"), ("b2", "31", "4")])
        let stitcher = HLSExporter(
            outputURL: Self.base + "out/stitched.m3u8", options: try HLSExportOptions(snapping: .previous, breakSnapping: ["b1": .next]),
            loader: Self.loader)
        let rules = HLSExportStages(stitcher).cutRules(composition.segments)
        // C [0, 13) | b1-ad | C [13, 31) | b2-ad | C [31, 36)
        #expect(rules.map(\.start) == [.previous, .next, .next, .previous, .previous])
        #expect(rules.map(\.end) == [.next, .next, .previous, .previous, .previous])
    }
}
