import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore

/// `Codable` where it keeps exactness (issue 53): times as exact text, a schedule in the schedule
/// file's own shape, so what `JSONEncoder` writes, `ScheduleDocument` reads, and back.
@Suite("Codable: exact times, schedules in the file format")
struct CodableTests {
    @Test("a time encodes as its exact text and decodes from it; a JSON number is refused", arguments: [
        (MediaTime(value: 1001, timescale: 30000), #""1001\/30000""#), (MediaTime(value: 85, timescale: 10), #""8.5""#),
        (MediaTime(value: -4, timescale: 100), #""-0.04""#), (MediaTime(value: 1, timescale: 2147483647), #""1\/2147483647""#),
    ])
    func times(time: MediaTime, json: String) throws {
        let encoded = String(decoding: try JSONEncoder().encode(time), as: UTF8.self)
        #expect(encoded == json)
        #expect(try JSONDecoder().decode(MediaTime.self, from: Data(encoded.utf8)) == time)
    }

    @Test("a number, or text that is no time, is a decoding error saying why")
    func timeRefusals() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MediaTime.self, from: Data("0.1".utf8)) }
        #expect {
            try JSONDecoder().decode(MediaTime.self, from: Data(#""1/0""#.utf8))
        } throws: { error in
            guard case .dataCorrupted(let context)? = error as? DecodingError else { return false }
            return context.debugDescription.contains("timescale")
        }
    }

    @Test("locations: a file URL for an absolute path, the path for a relative one, an object with a variant")
    func locations() throws {
        let cases: [(MediaLocation, String)] = [
            (MediaLocation(path: "/media/a b.mp4"), #""file:\/\/\/media\/a%20b.mp4""#),
            (MediaLocation(path: "ads/a.mp4"), #""ads\/a.mp4""#),
            (MediaLocation(remoteURL: "https://cdn.example/a.m3u8"), #""https:\/\/cdn.example\/a.m3u8""#),
            (MediaLocation(path: "/m/master.m3u8").selectingVariant("720p.m3u8"), #"{"url":"file:\/\/\/m\/master.m3u8","variant":"720p.m3u8"}"#),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (location, json) in cases {
            let encoded = String(decoding: try encoder.encode(location), as: UTF8.self)
            #expect(encoded == json)
            #expect(try JSONDecoder().decode(MediaLocation.self, from: Data(encoded.utf8)) == location)
        }
        // A relative path that would read back as a URL cannot be written as one.
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(MediaLocation(path: "c2:a.mp4")) }
    }

    /// The fixtures' schedules and 1,000 random ones: `JSONEncoder` -> `ScheduleDocument.decode`
    /// and -> `JSONDecoder` both give the schedule back, exactly.
    @Test("a schedule round-trips through JSONEncoder, ScheduleDocument and JSONDecoder")
    func schedules() throws {
        var schedules = try ["demo.json", "reference-sample.json", "demo-hls.json", "seed-scenario.json"].map {
            try ScheduleDocument.read(path: FilePath(packageRoot.appendingPathComponent("Fixtures/" + $0).path))
        }
        schedules += RandomCompositions.seeds.map { RandomCompositions.randomSchedule(seed: $0).0 }
        var withRenditions = schedules[0]
        withRenditions.setRenditions(
            [MediaLocation(FilePath("/m/content-360.mp4")), try MediaLocation(parsing: "https://127.0.0.1/content-180.mp4")],
            of: withRenditions.content[0].source)
        schedules.append(withRenditions)
        for schedule in schedules {
            let json = try JSONEncoder().encode(schedule)
            #expect(try ScheduleDocument.decode(Array(json)) == schedule)
            #expect(try JSONDecoder().decode(Schedule.self, from: json) == schedule)
        }
    }

    @Test("a decoded schedule that breaks a rule is a decoding error with the rule's message")
    func scheduleRule() {
        let json = #"{"content": [{"id": "c", "url": "c.mp4", "start": "5", "end": "1"}]}"#
        #expect {
            try JSONDecoder().decode(Schedule.self, from: Data(json.utf8))
        } throws: { error in
            guard case .dataCorrupted(let context)? = error as? DecodingError else { return false }
            return context.debugDescription.contains("'c'")
        }
    }
}
