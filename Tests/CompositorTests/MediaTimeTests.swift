import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

@Suite("MediaTime")
struct MediaTimeTests {
    @Test("compares exactly across timescales")
    func comparesAcrossTimescales() {
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 500, timescale: 1000))
        #expect(MediaTime(value: 1001, timescale: 30000) < MediaTime(value: 1, timescale: 29))
        #expect(MediaTime(value: -1, timescale: 3) < MediaTime(value: -1, timescale: 4))
        #expect(Set([MediaTime(value: 1, timescale: 2), MediaTime(value: 3, timescale: 6)]).count == 1)
        // Products that overflow 64 bits still compare right.
        let big = MediaTime(value: Int64.max, timescale: 7), bigger = MediaTime(value: Int64.max, timescale: 6)
        #expect(big < bigger)
    }

    @Test("adds in the least common timescale")
    func addsExactly() throws {
        let frame = MediaTime(value: 1001, timescale: 30000)
        let sum = frame + MediaTime(value: 1, timescale: 10)
        #expect(sum.timescale == 30000)
        #expect(sum == MediaTime(value: 4001, timescale: 30000))
        #expect(MediaTime(seconds: 5) - MediaTime(value: 1, timescale: 2) == MediaTime(value: 9, timescale: 2))
        // 30000 frames of 1001/30000 add up to exactly 1001 s: no drift.
        var t = MediaTime.zero
        for _ in 0..<30000 { t += frame }
        #expect(t == MediaTime(seconds: 1001))
    }

    @Test("reports overflow instead of wrapping")
    func reportsOverflow() {
        #expect(throws: MediaTimeError.self) { try MediaTime(value: Int64.max, timescale: 1).adding(MediaTime(seconds: 1)) }
        #expect(throws: MediaTimeError.self) { try MediaTime(value: Int64.min, timescale: 1).subtracting(MediaTime(seconds: 1)) }
        #expect(throws: MediaTimeError.self) { try MediaTime(value: Int64.max / 2, timescale: 1).multiplied(by: 3) }
        // Coprime timescales whose lcm exceeds Int32.max.
        #expect(throws: MediaTimeError.self) {
            try MediaTime(value: 1, timescale: 2_147_483_647).adding(MediaTime(value: 1, timescale: 2_147_483_646))
        }
        #expect(throws: MediaTimeError.self) { try MediaTime(value: Int64.max, timescale: 1).converted(to: 1000, rounding: .down) }
    }

    @Test("converts with an explicit rounding rule", arguments: [
        (FloatingPointRoundingRule.down, Int64(33), Int64(-34)),
        (.up, 34, -33),
        (.towardZero, 33, -33),
        (.awayFromZero, 34, -34),
        (.toNearestOrAwayFromZero, 33, -33),
        (.toNearestOrEven, 33, -33),
    ])
    func converts(rule: FloatingPointRoundingRule, positive: Int64, negative: Int64) throws {
        let frame = MediaTime(value: 1001, timescale: 30000)  // 33.3666... ms
        #expect(try frame.converted(to: 1000, rounding: rule).value == positive)
        #expect(try (-frame).converted(to: 1000, rounding: rule).value == negative)
    }

    @Test("breaks ties as the rule says")
    func ties() throws {
        let half = MediaTime(value: 5, timescale: 10)  // 0.5 s in whole seconds
        #expect(try half.converted(to: 1, rounding: .toNearestOrEven).value == 0)
        #expect(try half.converted(to: 1, rounding: .toNearestOrAwayFromZero).value == 1)
        #expect(try MediaTime(value: 15, timescale: 10).converted(to: 1, rounding: .toNearestOrEven).value == 2)
        #expect(try MediaTime(value: -5, timescale: 10).converted(to: 1, rounding: .toNearestOrAwayFromZero).value == -1)
    }

    @Test("parses decimals and rationals exactly", arguments: [
        ("10.010", MediaTime(value: 10010, timescale: 1000)),
        ("0", MediaTime.zero),
        ("-2", MediaTime(seconds: -2)),
        ("20.5", MediaTime(value: 41, timescale: 2)),
        ("1.5e-3", MediaTime(value: 15, timescale: 10000)),
        ("2E2", MediaTime(seconds: 200)),
        ("0.000000001", MediaTime(value: 1, timescale: 1_000_000_000)),
        ("0.50000000000000000000", MediaTime(value: 1, timescale: 2)),
        ("1001/30000", MediaTime(value: 1001, timescale: 30000)),
        ("-1/3", MediaTime(value: -1, timescale: 3)),
    ])
    func parses(text: String, expected: MediaTime) throws {
        #expect(try MediaTime(parsing: text) == expected)
    }

    @Test("keeps a rational's timescale as written")
    func keepsRationalTimescale() throws {
        let t = try MediaTime(parsing: "2002/60000")
        #expect(t.value == 2002 && t.timescale == 60000)
    }

    @Test("rejects what is not a time", arguments: ["", "-", "1.", ".5", "1e", "abc", "1/0", "1/-5", "1.2.3", "NaN", "Infinity", " 1", "1/2/3", "+1"])
    func rejectsMalformed(text: String) {
        #expect(throws: MediaTimeError.self) { try MediaTime(parsing: text) }
    }

    @Test("tells too precise apart from malformed")
    func tooPrecise() {
        #expect(throws: MediaTimeError.tooPrecise(text: "0.1234567891")) { try MediaTime(parsing: "0.1234567891") }
        #expect(throws: MediaTimeError.overflow("'99999999999999999999' does not fit 64 bits")) {
            try MediaTime(parsing: "99999999999999999999")
        }
    }

    @Test("formats clock readings", arguments: [
        (MediaTime(seconds: 23), MediaTime.ClockStyle.seconds, "00:23"),
        (MediaTime(seconds: 130), .seconds, "02:10"),
        (MediaTime(value: 23999, timescale: 1000), .seconds, "00:23"),
        (MediaTime(value: 37235, timescale: 10), .milliseconds, "1:02:03.500"),
        (MediaTime(value: 1001, timescale: 30000), .milliseconds, "00:00.033"),
        (MediaTime(seconds: -5), .seconds, "-00:05"),
        (MediaTime(seconds: 36000), .seconds, "10:00:00"),
    ])
    func formats(time: MediaTime, style: MediaTime.ClockStyle, expected: String) {
        #expect(time.formatted(style) == expected)
    }

    @Test("describes itself exactly")
    func describes() {
        #expect(MediaTime(value: 17, timescale: 2).description == "8.5")
        #expect(MediaTime(value: -1, timescale: 25).description == "-0.04")
        #expect(MediaTime(value: 1001, timescale: 30000).description == "1001/30000")
        #expect(MediaTime(seconds: 3).formatted(alwaysShowHours: true) == "0:00:03")
    }

    @Test("ranges are half-open")
    func ranges() {
        let r = MediaTimeRange(start: MediaTime(seconds: 23), duration: MediaTime(seconds: 17))
        #expect(r.contains(MediaTime(seconds: 23)))
        #expect(r.contains(MediaTime(value: 39999, timescale: 1000)))
        #expect(!r.contains(MediaTime(seconds: 40)))
        #expect(r.intersection(MediaTimeRange(start: MediaTime(seconds: 40), end: MediaTime(seconds: 50))) == nil)
        #expect(r.intersection(MediaTimeRange(start: MediaTime(seconds: 30), end: MediaTime(seconds: 50)))
            == MediaTimeRange(start: MediaTime(seconds: 30), end: MediaTime(seconds: 40)))
    }
}
