import Testing
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

@Suite("HLS date-times")
struct HLSDateTimeTests {
    @Test("reads ISO 8601 with zones and fractions", arguments: [
        ("1970-01-01T00:00:00Z", "0", 0),
        ("2024-02-29T23:59:59.5Z", "1709251199.5", 0),
        ("2024-05-01T12:00:00.040+02:00", "1714557600.04", 120),
        ("2024-05-01T12:00:00-0530", "1714584600", -330),
        ("2000-03-01T00:00:00.123456789Z", "951868800.123456789", 0),
        ("1969-12-31T23:59:59Z", "-1", 0),
        // No zone (RFC 8216: SHOULD have one): read as UTC, and written back without one.
        ("2024-05-01T12:00:00", "1714564800", nil),
        ("2024-05-01T12:00:00.25", "1714564800.25", nil),
    ] as [(String, String, Int?)])
    func parses(text: String, seconds: String, offset: Int?) throws {
        let date = try HLSDateTime(parsing: text)
        #expect(date.secondsSinceEpoch == HLSTest.time(seconds))
        #expect(date.utcOffsetMinutes == offset)
        #expect(try HLSDateTime(parsing: date.description) == date)
    }

    @Test("adds exact offsets in the same zone", arguments: [
        ("2024-05-01T12:00:00Z", "90.5", "2024-05-01T12:01:30.500Z"),
        ("2024-12-31T23:59:59.999+01:00", "0.001", "2025-01-01T00:00:00.000+01:00"),
        ("2024-05-01T12:00:00Z", "1001/30000", "2024-05-01T12:00:00.033367Z"),
        ("2024-05-01T12:00:00Z", "0.000001", "2024-05-01T12:00:00.000001Z"),
    ])
    func adds(start: String, offset: String, expected: String) throws {
        #expect(try HLSDateTime(parsing: start).adding(HLSTest.time(offset)).description == expected)
    }

    @Test("rejects what is not a date-time", arguments: [
        "2024-05-01", "2024-05-01T12", "2024-05-01T12:00", "2024-02-30T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01 12:00:00Z",
        "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00Zjunk",
    ])
    func rejects(text: String) {
        #expect(throws: HLSDateTime.ParseError.self) { try HLSDateTime(parsing: text) }
    }
}
