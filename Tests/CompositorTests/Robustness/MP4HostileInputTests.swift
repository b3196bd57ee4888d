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

    // MARK: - R3: files of tiny boxes

    /// `count` 8-byte `free` boxes.
    static func freeBoxes(_ count: Int) -> [UInt8] {
        Array(Array(repeating: TinyMP4.box("free", []), count: count).joined())
    }

    /// A `moov` padded with 100,000 empty boxes (of a type the reader never asks for, and repeats of
    /// one it does) reads as without them, and the tree keeps only the boxes it looks up: a file
    /// of tiny boxes must not become a value per box.
    @Test("a moov of tiny boxes reads, and keeps only the boxes the reader looks up")
    func tinyBoxesInMovie() throws {
        var movie = TinyMP4()
        movie.extraMoovBoxes = [Self.freeBoxes(50_000), Array(Array(repeating: TinyMP4.box("udta", []), count: 50_000).joined())]
        let bytes = movie.bytes()
        let read = try Robust.withFile(bytes) { try MP4Reader.read(path: FilePath($0)) }
        #expect(read.tracks.count == 1)
        #expect(read.naturalDuration == MediaTime(value: 4 * 512, timescale: 12_800))

        let moovOffset = try #require(MP4LimitsTests.find("moov", in: bytes))
        var reader = ByteReader(Array(bytes[moovOffset...]), fileOffset: UInt64(moovOffset))
        let moov = try MP4Box.read(from: &reader, parentPath: "", siblingIndex: nil, file: "tiny")
        #expect(moov.children.map(\.type) == ["mvhd", "trak", "udta"])
    }

    /// A box in a padded `moov` that breaks the format is still reported, with its path, whether
    /// or not the reader would have looked at it.
    @Test("a malformed box among the dropped ones is still reported")
    func malformedAmongDropped() throws {
        var movie = TinyMP4()
        // A `dinf` (checked, not kept: nothing looks into it) whose child claims 100 bytes.
        let bad = TinyMP4.box("dinf", TinyMP4.payload { w in w.write(UInt32(100)); w.write("dref" as FourCC) })
        movie.extraMoovBoxes = [TinyMP4.box("dinf", []), Self.freeBoxes(1_000), bad]
        let bytes = movie.bytes()
        let badOffset = try #require(MP4LimitsTests.find("dref", in: bytes))
        let error = try Robust.withFile(bytes) { path in Robust.exerciseMP4(path).readError }
        guard case .malformed(_, "moov/dinf", let offset, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(offset == UInt64(badOffset))
        #expect(reason.contains("box 'dref' claims size 100"), "\(reason)")
    }

    /// The top-level walk reads headers a block at a time: a header that starts just before a
    /// block's end, or straddles it (8 bytes, or 16 with a 64-bit size), is read whole, and the
    /// box after a run of tiny ones is found at its exact offset.
    @Test("top-level headers are found wherever they fall against the read blocks", arguments: [8, 16])
    func headersAcrossBlocks(headerSize: Int) throws {
        let block = MP4Reader.topLevelBlockSize
        let movie = TinyMP4().bytes()
        for target in (block - 20)...(block + 20) {
            // Tiny boxes, then one `free` box that brings the next header to `target`.
            let tiny = Self.freeBoxes(min(1_000, (target - movie.count) / 8 - 4))
            let gap = target - movie.count - tiny.count
            let padding = TinyMP4.payload { w in w.write(UInt32(gap)); w.write("free" as FourCC); w.write(zeros: gap - 8) }
            let moof = headerSize == 8
                ? TinyMP4.box("moof", [])
                : TinyMP4.payload { w in w.write(UInt32(1)); w.write("moof" as FourCC); w.write(UInt64(16)) }
            let bytes = movie + tiny + padding + moof
            _ = try Robust.withFile(bytes) { path in
                #expect(throws: MP4Error.unsupported(file: path, boxPath: "moof", offset: UInt64(target),
                                                     reason: "fragmented MP4 (movie fragments) is not supported"),
                        "moof at \(target)") {
                    try MP4Reader.read(path: FilePath(path))
                }
            }
        }
    }

    /// A movie followed by 200,000 tiny top-level boxes reads as without them; one cut short at
    /// the end is reported where it is.
    @Test("a file of tiny top-level boxes reads; a header cut short after them is malformed")
    func tinyTopLevelBoxes() throws {
        let movie = TinyMP4().bytes()
        let padded = movie + Self.freeBoxes(200_000)
        let read = try Robust.withFile(padded) { try MP4Reader.read(path: FilePath($0)) }
        #expect(read.naturalDuration == MediaTime(value: 4 * 512, timescale: 12_800))
        #expect(read.fileSize == UInt64(padded.count))
        _ = try Robust.withFile(padded + [0, 0, 0, 9]) { path in
            #expect(throws: MP4Error.malformed(file: path, boxPath: "", offset: UInt64(padded.count),
                                               reason: "4 stray bytes where a box header (8 bytes) should be")) {
                try MP4Reader.read(path: FilePath(path))
            }
        }
    }

    @Test("the box types compared on every header are their text; a FourCCSet holds exactly its members")
    func boxTypeConstants() {
        #expect([FourCC.moov, .moof, .mfra, .trak, .uuid] == ["moov", "moof", "mfra", "trak", "uuid"])
        let set: FourCCSet = ["stsd", "trak", "moov", "trak"]
        for type: FourCC in ["stsd", "trak", "moov"] { #expect(set.contains(type), "\(type)") }
        for type: FourCC in ["stsc", "free", "moo\u{0}", "zzzz", FourCC(rawValue: 0), FourCC(rawValue: .max)] {
            #expect(!set.contains(type), "\(type)")
        }
    }
}
