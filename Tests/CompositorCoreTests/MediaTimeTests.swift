import Testing
import CompositorTestSupport
@testable import CompositorCore

@Suite("MediaTime")
struct MediaTimeTests {
    /// `gcd` is the binary algorithm; Euclid's, by divisions, is the reference.
    @Test("gcd agrees with Euclid's algorithm, at the edges and on random pairs")
    func greatestCommonDivisor() {
        func euclid(_ a: UInt64, _ b: UInt64) -> UInt64 { b == 0 ? a : euclid(b, a % b) }
        let edges: [UInt64] = [0, 1, 2, 3, 5, 1000, 1001, 30000, 90000, 1 << 32, 1 << 63, UInt64.max, UInt64.max - 1]
        for a in edges { for b in edges { #expect(gcd(a, b) == euclid(a, b), "gcd(\(a), \(b))") } }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let shift = UInt64.random(in: 0...40, using: &generator)
            let a = UInt64.random(in: 0...UInt64.max, using: &generator) >> shift
            let b = UInt64.random(in: 0...UInt64.max >> shift, using: &generator) << (shift / 2)
            #expect(gcd(a, b) == euclid(a, b), "gcd(\(a), \(b))")
        }
    }

    /// Decimals are written without reducing first when the timescale is made of 2s and 5s, with
    /// trailing zeros dropped: the digits must be those of the reduced time, written the plain way.
    @Test("exact decimals are the reduced time's digits, over any timescale")
    func exactDecimalsMatchTheReducedTime() {
        func reference(_ t: MediaTime) -> String? {
            let r = t.reduced
            var scale = Int64(r.timescale), twos = 0, fives = 0
            while scale % 2 == 0 { scale /= 2; twos += 1 }
            while scale % 5 == 0 { scale /= 5; fives += 1 }
            let digits = max(twos, fives)
            guard scale == 1, digits <= 18 else { return nil }
            let unit = (0..<digits).reduce(Int64(1)) { p, _ in p * 10 }
            let (ticks, overflow) = r.value.multipliedReportingOverflow(by: unit / Int64(r.timescale))
            guard !overflow else { return nil }
            var text = String(ticks.magnitude / UInt64(unit))
            if digits > 0 {
                let fraction = String(ticks.magnitude % UInt64(unit))
                text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
            }
            return (ticks < 0 ? "-" : "") + text
        }
        let timescales: [Int32] = [1, 2, 4, 5, 8, 10, 25, 48, 1000, 3000, 1024, 1 << 30, 30000, 90000, 48000, 1_000_000_000,
                                   390_625, 1_953_125, Int32.max]
        var generator = SystemRandomNumberGenerator()
        for timescale in timescales {
            var values: [Int64] = [0, 1, -1, 5, 10, 100, 1000, Int64(timescale), -Int64(timescale), Int64.max, Int64.min, Int64.max - 1]
            for _ in 0..<300 { values.append(Int64.random(in: -10_000_000...10_000_000, using: &generator) * Int64.random(in: 1...1000, using: &generator)) }
            for value in values {
                let time = MediaTime(value: value, timescale: timescale)
                #expect(time.exactDecimalString == reference(time), "\(value)/\(timescale)")
            }
        }
    }

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

    // MARK: Operators that never trap (issue 13, C1)

    /// 30000 and 10^9 have no common multiple within Int32 (3 * 10^9), nor do the prime
    /// 2147483647 and anything but 1: the operators trapped on such pairs. They now round to the
    /// nearest tick of the finer timescale, halfway away from zero.
    @Test("+ and - round to the finer timescale when no common timescale fits", arguments: [
        // a 29.97 fps break boundary against an AVFoundation clock (ns): -2302312234.33 ns
        (MediaTime(value: 301301, timescale: 30000), MediaTime(value: 12345678901, timescale: 1_000_000_000), false,
         MediaTime(value: -2302312234, timescale: 1_000_000_000)),
        // 1 ns + one frame: 33366667.67 ns
        (MediaTime(value: 1, timescale: 1_000_000_000), MediaTime(value: 1001, timescale: 30000), true,
         MediaTime(value: 33366668, timescale: 1_000_000_000)),
        // two primes' ticks: 1.0000000005 ticks of 1/2147483647
        (MediaTime(value: 1, timescale: 2_147_483_647), MediaTime(value: 1, timescale: 2_147_483_646), true,
         MediaTime(value: 2, timescale: 2_147_483_647)),
        // the decimal with 9 places the issue reported, against a frame
        (MediaTime(value: 123456789, timescale: 1_000_000_000), MediaTime(value: 1001, timescale: 30000), false,
         MediaTime(value: 90090122, timescale: 1_000_000_000)),
    ])
    func roundsWithoutCommonTimescale(a: MediaTime, b: MediaTime, adding: Bool, expected: MediaTime) {
        #expect(throws: MediaTimeError.self) { adding ? try a.adding(b) : try a.subtracting(b) }
        let result = adding ? a + b : a - b
        #expect(result.value == expected.value && result.timescale == expected.timescale, "\(result)")
    }

    @Test("+ and - stay exact whenever a common timescale fits")
    func operatorsExactWhenPossible() throws {
        let pairs: [(MediaTime, MediaTime)] = [
            (MediaTime(value: 1001, timescale: 30000), MediaTime(value: 1, timescale: 48000)),
            (MediaTime(value: 12345678901, timescale: 1_000_000_000), MediaTime(value: 3, timescale: 1000)),
            (MediaTime(value: 1000, timescale: 1000), MediaTime(value: 1, timescale: 2_147_483_647)),  // 1/1 in lowest terms
        ]
        for (a, b) in pairs {
            #expect(a + b == (try a.adding(b)))
            #expect(a - b == (try a.subtracting(b)))
        }
    }

    /// Past Int64 in the finer timescale the sum goes to the coarser one, then to whole seconds;
    /// past ±Int64.max seconds it saturates.
    @Test("+ and - at the Int64 limit fall back to coarser ticks, then saturate")
    func operatorsAtTheLimit() {
        let huge = MediaTime(value: .max, timescale: 1000)   // 9223372036854775.807 s
        let sum = huge + MediaTime(seconds: 1)
        #expect(sum.value == 9_223_372_036_854_777 && sum.timescale == 1)
        #expect(MediaTime(value: .max, timescale: 1) + MediaTime(seconds: 1) == MediaTime(value: .max, timescale: 1))
        #expect(MediaTime(value: .min, timescale: 1) - MediaTime(seconds: 1) == MediaTime(value: .min, timescale: 1))
        #expect(MediaTime(value: .max, timescale: 1) - MediaTime(value: .min, timescale: 1) == MediaTime(value: .max, timescale: 1))
        // Negation of the one value whose magnitude Int64 cannot hold.
        #expect(-MediaTime(value: .min, timescale: 1) == MediaTime(value: .max, timescale: 1))
        let negated = -MediaTime(value: .min, timescale: 2)   // 2^62 s exactly
        #expect(negated == MediaTime(value: 1 << 62, timescale: 1))
        var t = MediaTime(value: .max, timescale: 7)
        t += MediaTime(value: .max, timescale: 5)
        #expect(t > MediaTime(value: .max, timescale: 7))
    }

    /// A seeded sweep over the timescales of the issue: every pair adds and subtracts without a
    /// trap, exactly when `adding` can, else within half a tick of the finer timescale, or of the
    /// coarser (or of whole seconds) only when the finer's ticks do not fit Int64 (checked in 128
    /// bits: |2T(a ± b) - 2r| <= 1 tick, over the common denominator).
    @Test("+ and - over the issue's timescales: exact or within half a tick, never a trap")
    func operatorsSweep() throws {
        let scales: [Int32] = [1, 600, 1000, 24000, 30000, 44100, 48000, 90000, 1_000_000_000, 2_147_483_647]
        var rng = SeededGenerator(seed: 13)
        var rounded = 0
        for _ in 0..<4000 {
            let sa = scales.randomElement(using: &rng)!, sb = scales.randomElement(using: &rng)!
            let a = MediaTime(value: Int64.random(in: -(1 << 40)...(1 << 40), using: &rng), timescale: sa)
            let b = MediaTime(value: Int64.random(in: -(1 << 40)...(1 << 40), using: &rng), timescale: sb)
            for (sign, result, exact) in [(Int64(1), a + b, try? a.adding(b)), (-1, a - b, try? a.subtracting(b))] {
                if let exact {
                    #expect(result == exact)
                    continue
                }
                rounded += 1
                #expect([max(sa, sb), min(sa, sb), 1].contains(result.timescale), "\(a) \(b) -> \(result)")
                if #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) {
                    let (ta, tb, t) = (Int128(sa), Int128(sb), Int128(result.timescale))
                    let numerator = Int128(a.value) * tb + Int128(sign) * Int128(b.value) * ta
                    let error = 2 * t * numerator - 2 * Int128(result.value) * ta * tb
                    #expect(error.magnitude <= (ta * tb).magnitude, "\(a) \(sign > 0 ? "+" : "-") \(b) -> \(result)")
                    // A coarser timescale only when the finer one's ticks would not fit Int64.
                    if result.timescale != max(sa, sb) {
                        let finerTicks = (numerator * Int128(max(sa, sb))) / (ta * tb)
                        #expect(finerTicks.magnitude >= UInt128(Int64.max), "\(a) \(b) -> \(result)")
                    }
                }
            }
        }
        #expect(rounded > 100, "the sweep should meet pairs without a common timescale")
    }

    @Test("the midpoint test is exact across timescales with no common multiple")
    func midpointSign() {
        let a = MediaTime.zero, b = MediaTime(value: 3, timescale: 2)   // 0 and 1.5: midpoint 0.75
        #expect(MediaTime.signOfOffset(MediaTime(value: 1, timescale: 2_147_483_647), fromMidpointOf: a, and: b) < 0)
        #expect(MediaTime.signOfOffset(MediaTime(value: 3, timescale: 4), fromMidpointOf: a, and: b) == 0)
        #expect(MediaTime.signOfOffset(MediaTime(value: 750_000_001, timescale: 1_000_000_000), fromMidpointOf: a, and: b) > 0)
        // Extreme values: products of 126 bits.
        let big = MediaTime(value: .max, timescale: 2_147_483_647), bigger = MediaTime(value: .max, timescale: 2_147_483_646)
        #expect(MediaTime.signOfOffset(big, fromMidpointOf: big, and: bigger) < 0)
        #expect(MediaTime.signOfOffset(MediaTime(value: .min, timescale: 3), fromMidpointOf: MediaTime(value: .min, timescale: 3),
                                       and: MediaTime(value: .min, timescale: 3)) == 0)
    }

    /// U3: `1/2147483647` and the like must not be shown rounded to something untrue.
    @Test("descriptions are exact rationals in lowest terms when no decimal is")
    func describesInLowestTerms() {
        #expect(MediaTime(value: 1, timescale: 2_147_483_647).description == "1/2147483647")
        #expect(MediaTime(value: 100_000_000, timescale: 300_000_000).description == "1/3")
        #expect(MediaTimeRange(start: .zero, end: MediaTime(value: 1, timescale: 2_147_483_647)).description == "[0, 1/2147483647)")
    }

    @Test("ranges made by a rounding sum keep their end at or after their start")
    func roundedRangesStayOrdered() {
        let start = MediaTime(value: 1, timescale: 3)
        let r = MediaTimeRange(start: start, duration: MediaTime(value: 1, timescale: 2_000_000_000))
        #expect(r.start <= r.end)
        let shifted = MediaTimeRange(start: .zero, end: MediaTime(value: 1, timescale: 2_147_483_647))
            .shifted(by: MediaTime(value: 1, timescale: 3))
        #expect(shifted.start <= shifted.end)
    }
}
