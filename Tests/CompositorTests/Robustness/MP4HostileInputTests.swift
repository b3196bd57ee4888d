import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// The MP4 cases of the hostile-input campaign (issue 13): counts no index can address, files of
/// tiny boxes, and codecs that share a sample-entry code. Each failure is a typed `MP4Error` that
/// names the file and says why in the user's terms; nothing traps.
@Suite("MP4 hostile inputs")
struct MP4HostileInputTests {
    static let stbl = "moov/trak[0]/mdia/minf/stbl"

    // MARK: - C3: more sample descriptions than an index addresses

    /// A video track whose `stsd` holds `count` distinct visual entries and whose one chunk uses
    /// description `used` (1-based).
    static func movie(descriptions count: Int, using used: Int) -> [UInt8] {
        var movie = TinyMP4()
        movie.stblPayloads["stsd"] = TinyMP4.payload { w in
            w.writeVersion(0)
            w.write(UInt32(count))
            for index in 0..<count {
                var entry = TinyMP4.sampleEntry("avc1", audio: false)
                // The width field (after the box header, 8 reserved/index bytes and 16 more):
                // each entry differs, as each would in a file that really used them.
                entry[8 + 8 + 16] = UInt8(index >> 8 & 0xFF)
                entry[8 + 8 + 17] = UInt8(index & 0xFF)
                w.write(entry)
            }
        }
        movie.stblPayloads["stsc"] = TinyMP4.payload {
            SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: 4, sampleDescriptionIndex: UInt32(used))]).writePayload(to: &$0)
        }
        return movie.bytes()
    }

    /// A sample's description is held as a 16-bit index, so a track may have 65,536 of them. A
    /// 6 MB file with 70,000 (the campaign's case, which trapped converting the index) is valid
    /// but unsupported, and says how many and where; so is one that has them and uses only the first.
    @Test("more sample descriptions than a 16-bit index addresses are unsupported, not a trap", arguments: [
        (count: 65_536, used: 65_536, readable: true),
        (count: 65_537, used: 1, readable: false),
        (count: 70_000, used: 70_000, readable: false),
    ])
    func sampleDescriptionCount(count: Int, used: Int, readable: Bool) throws {
        let bytes = Self.movie(descriptions: count, using: used)
        let stsd = try #require(MP4LimitsTests.find("stsd", in: bytes))
        try Robust.withFile(bytes) { path in
            let outcome = Result { try MP4Reader.read(path: FilePath(path)) }
            if readable {
                let movie = try outcome.get()
                #expect(movie.tracks[0].sampleDescriptions.count == count)
                #expect(movie.tracks[0].samples.descriptionIndices == Array(repeating: UInt16(used - 1), count: 4))
                return
            }
            #expect(throws: MP4Error.unsupported(
                file: path, boxPath: "\(Self.stbl)/stsd", offset: UInt64(stsd + 12),
                reason: "\(count) sample descriptions, more than the 65536 a track may have here (its samples index them in 16 bits)")) {
                try outcome.get()
            }
        }
    }
}
