import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

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
                #expect(Array(movie.tracks[0].samples.descriptionIndices) == Array(repeating: UInt16(used - 1), count: 4))
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
    static func freeBoxes(_ count: Int) -> [UInt8] { emptyBoxes("free", count) }

    /// `count` empty 8-byte boxes of `type`, each array appended whole (a joined sequence hands its
    /// bytes over one by one, slowly in a debug build).
    static func emptyBoxes(_ type: FourCC, _ count: Int) -> [UInt8] {
        let box = TinyMP4.box(type, [])
        var bytes: [UInt8] = []
        bytes.reserveCapacity(box.count * count)
        for _ in 0..<count { bytes += box }
        return bytes
    }

    /// A `moov` padded with 100,000 empty boxes (of a type the reader never asks for, and repeats of
    /// one it does) reads as without them, and the tree keeps only the boxes it looks up: a file
    /// of tiny boxes must not become a value per box.
    @Test("a moov of tiny boxes reads, and keeps only the boxes the reader looks up")
    func tinyBoxesInMovie() throws {
        var movie = TinyMP4()
        movie.extraMoovBoxes = [Self.freeBoxes(50_000), Self.emptyBoxes("udta", 50_000)]
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
                #expect(throws: MP4Error.malformed(file: path, boxPath: "moof", offset: UInt64(target),
                                                   reason: "a movie fragment, but the moov has no mvex"),
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
        guard case .file(_, let version) = read.store else { Issue.record("not read as a file"); return }
        #expect(version.size == UInt64(padded.count))
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

    /// The writer picks the 64-bit edit layout for a media time that 32 bits cannot hold, of
    /// either sign (a negative one past Int32 trapped converting it).
    @Test("an edit media time outside 32 bits is written in version 1, either sign",
          arguments: [Int64(Int32.max) + 1, Int64(Int32.min) - 1, Int64(Int32.max), 0])
    func wideEditMediaTime(mediaTime: Int64) {
        var writer = ByteWriter()
        EditListBox(entries: [MP4EditListEntry(segmentDuration: 10, mediaTime: mediaTime)]).writePayload(to: &writer)
        #expect(writer.bytes[0] == (Int32(exactly: mediaTime) == nil ? 1 : 0))
    }

    // MARK: - W1: codecs by their real identity

    /// An `esds` box whose decoder configuration has `objectType` (and the stream type of audio or
    /// video), with an AAC-LC 44.1 kHz stereo AudioSpecificConfig when it is MPEG-4 audio.
    static func esds(objectType: UInt8, audio: Bool) -> [UInt8] {
        let specific: [UInt8] = objectType == 0x40 ? [0x05, 0x02, 0x12, 0x10] : []
        // objectTypeIndication, streamType (5 audio, 4 visual) << 2 | 1, bufferSizeDB, maxBitrate, avgBitrate
        let config: [UInt8] = [0x04, UInt8(13 + specific.count), objectType, audio ? 0x15 : 0x11]
            + [UInt8](repeating: 0, count: 11) + specific
        let descriptor: [UInt8] = [0x03, UInt8(3 + config.count), 0, 1, 0] + config
        return TinyMP4.box("esds", [0, 0, 0, 0] + descriptor)
    }

    /// A one-track movie of `format` (`mp4a` audio or `mp4v` video) with an `esds` of `objectType`.
    static func movie(_ format: FourCC, objectType: UInt8) -> [UInt8] {
        let audio = format == "mp4a"
        var movie = TinyMP4(handler: audio ? "soun" : "vide")
        movie.sampleEntry = TinyMP4.sampleEntry(format, audio: audio, children: esds(objectType: objectType, audio: audio))
        return movie.bytes()
    }

    /// A box inside a sample entry may use a 64-bit size like any other: its payload starts 16
    /// bytes in, not 8 (it was read 8 bytes early, and the entry reported malformed).
    @Test("a box with a 64-bit size inside a sample entry is read")
    func largeSizeInSampleEntry() throws {
        let esds = Self.esds(objectType: 0x40, audio: true)
        let large = TinyMP4.payload { w in w.write(UInt32(1)); w.write("esds" as FourCC); w.write(UInt64(esds.count + 8)) } + esds[8...]
        var movie = TinyMP4(handler: "soun")
        movie.sampleEntry = TinyMP4.sampleEntry("mp4a", audio: true, children: large)
        let read = try Robust.withFile(movie.bytes()) { try MP4Reader.read(path: FilePath($0)) }
        let description = try #require(read.tracks.first?.sampleDescriptions.first)
        #expect(description.objectTypeIndication == 0x40)
        guard case .aac(let config) = description.codec else { Issue.record("\(description.codec)"); return }
        #expect(config.sampleRate == 44_100 && config.channelConfiguration == 2)
    }

    /// MP3 and AAC both travel as `mp4a`, MPEG-4 Part 2 and Motion JPEG both as `mp4v`: the
    /// object type in `esds` tells them apart, and a track never mixes two codecs.
    @Test("codecs sharing a sample-entry code are told apart by their esds object type", arguments: [
        (format: "mp4a", first: 0x40, second: 0x6B, firstName: "AAC (mp4a, object type 0x40)", secondName: "MP3 (mp4a, object type 0x6B)"),
        (format: "mp4a", first: 0x6B, second: 0x40, firstName: "MP3 (mp4a, object type 0x6B)", secondName: "AAC (mp4a, object type 0x40)"),
        (format: "mp4a", first: 0x69, second: 0xA5, firstName: "MP3 (mp4a, object type 0x69)", secondName: "AC-3 (mp4a, object type 0xA5)"),
        (format: "mp4v", first: 0x20, second: 0x6C, firstName: "MPEG-4 Part 2 (mp4v, object type 0x20)", secondName: "JPEG (mp4v, object type 0x6C)"),
        (format: "mp4v", first: 0x6A, second: 0x61, firstName: "MPEG-1 video (mp4v, object type 0x6A)", secondName: "MPEG-2 video (mp4v, object type 0x61)"),
        (format: "mp4v", first: 0x20, second: 0xF0, firstName: "MPEG-4 Part 2 (mp4v, object type 0x20)", secondName: "mp4v, object type 0xF0"),
    ] as [(format: FourCC, first: UInt8, second: UInt8, firstName: String, secondName: String)])
    func sharedSampleEntryCode(format: FourCC, first: UInt8, second: UInt8, firstName: String, secondName: String) throws {
        let folder = try MP4Fixtures.makeScratchFolder("codecs")
        defer { MP4Fixtures.remove(folder) }
        let a = folder + "/first.mp4", b = folder + "/second.mp4"
        try MP4Fixtures.write(Self.movie(format, objectType: first), to: a)
        try MP4Fixtures.write(Self.movie(format, objectType: second), to: b)
        let kind: TrackKind = format == "mp4a" ? .audio : .video
        let expected = MP4Error.codecMismatch(track: kind, codec: firstName, file: a, otherCodec: secondName, otherFile: b)
        #expect(throws: expected) { try MP4Stitcher(pieces: [piece(a, "0", "0.1"), piece(b, "0", "0.1")]).plan() }
        #expect(expected.description == "\(a) has \(kind) in \(firstName), \(b) in \(secondName): one track cannot mix codecs")
        // The same object type twice is one codec: it joins.
        #expect(throws: Never.self) { try MP4Stitcher(pieces: [piece(a, "0", "0.1"), piece(a, "0.1", "0.16")]).plan() }
    }

    /// What ffmpeg writes: MP3 in MP4 beside AAC, Motion JPEG beside MPEG-4 Part 2. Joined, each
    /// made a file exit 0 that no decoder could read.
    @Test("real MP3 and AAC, MJPEG and MPEG-4 Part 2 clips are not joined", .needsFFmpeg)
    func sharedSampleEntryCodeFromFFmpeg() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("codecs-ffmpeg")
        defer { MP4Fixtures.remove(folder) }
        let mp3 = folder + "/mp3.mp4", mjpeg = folder + "/mjpeg.mp4"
        for (output, arguments) in [
            (mp3, ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "2", "-c:a", "libmp3lame"]),
            (mjpeg, ["-f", "lavfi", "-i", "testsrc=size=64x64:rate=10", "-t", "2", "-c:v", "mjpeg"]),
        ] {
            let made = try await ChildProcess.run(tools.ffmpeg, ["-v", "error", "-y"] + arguments + ["-f", "mp4", output])
            try #require(made.status == 0, "\(made.stderr)")
        }
        #expect(throws: MP4Error.codecMismatch(track: .audio, codec: "AAC (mp4a, object type 0x40)", file: MP4Fixtures.audioOnly,
                                               otherCodec: "MP3 (mp4a, object type 0x6B)", otherFile: mp3)) {
            try MP4Stitcher(pieces: [piece(MP4Fixtures.audioOnly, "0", "1"), piece(mp3, "0", "1")]).plan()
        }
        #expect(throws: MP4Error.codecMismatch(track: .video, codec: "JPEG (mp4v, object type 0x6C)", file: mjpeg,
                                               otherCodec: "MPEG-4 Part 2 (mp4v, object type 0x20)", otherFile: MP4Fixtures.mpeg4Video)) {
            try MP4Stitcher(pieces: [piece(mjpeg, "0", "1"), piece(MP4Fixtures.mpeg4Video, "0", "1")]).plan()
        }
    }

    // MARK: - U6: silence for audio that is not AAC

    /// A clip whose MP3 audio ends a second before its video: the rest of the piece needs silence,
    /// which the stitcher makes only as AAC. The message names the codec as it is, the gap and the file.
    @Test("an MP3 clip needing silence is refused naming MP3 and the file", .needsFFmpeg)
    func silenceForMP3() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("mp3-silence")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/mp3-video.mp4"
        let made = try await ChildProcess.run(tools.ffmpeg, [
            "-v", "error", "-y", "-t", "2", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10",
            "-t", "1", "-f", "lavfi", "-i", "sine=sample_rate=44100", "-c:v", "mpeg4", "-c:a", "libmp3lame", "-f", "mp4", clip,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        let trak = try #require(MP4Bytes.boxes(in: try MP4Fixtures.bytes(clip)).filter { $0.path == "moov/trak" }.last)
        #expect(throws: MP4Error.unsupported(
            file: clip, boxPath: "moov/trak[1]", offset: UInt64(trak.start),
            reason: "piece 0 has no audio for 1 s, to be filled with silence, which the stitcher makes only in AAC-LC with 1 to 8 "
                + "channels; this audio is MP3 (mp4a, object type 0x6B). Cut where the source has audio, or give the pieces AAC audio")) {
            try MP4Stitcher(pieces: [piece(clip, "0", "2")]).plan()
        }
    }
}
