// The boxes this library writes, and where (found by reading the writers, not the box types):
//
//   MP4 stitcher (StitchLayoutBuilder, StitchHeader):
//     ftyp; moov > mvhd; trak > tkhd, edts > elst; mdia > mdhd, hdlr, minf > vmhd | smhd,
//     dinf > dref > url; stbl > stsd (the source's entries, or SampleEntryWriter's avc1 > avcC,
//     hvc1 > hvcC, mp4a > esds for a transport stream source), stts, ctts (version 0 or 1,
//     when a sample presents off its decode time), stss (unless every sample is a sync sample),
//     stsc, stsz, stco | co64; free (page padding); the mdat header (32-bit or 64-bit size).
//     The stbl tables are written by StitchHeader from the planned tables, not by the box types.
//   Fragmented MP4 packager (FragmentedMP4SegmentWriter):
//     init segment: ftyp; moov > mvhd; trak > tkhd, mdia > mdhd, hdlr, minf > vmhd | smhd,
//     dinf > dref > url, stbl > stsd (the source's first entry), stts, stsc, stsz, stco (all
//     empty); mvex > trex. Each media segment: moof > mfhd, traf > tfhd, tfdt, trun; the mdat
//     header.
//
// Not written by anything here, though the box layer reads them: styp, sidx, udta > meta > ilst
// (iTunSMPB), stz2; and stts, ctts, stss, stsc, stsz, stco, co64 with entries through their types
// (the stitcher writes those from its own tables; the packager writes only empty ones). The box
// types' rows below keep their reading and writing checked all the same.

import Testing
@testable import CompositorCore
@testable import CompositorMP4

// MARK: Bytes by hand, as ISO/IEC 14496-12 (and 14496-15, 14496-1, 14496-14) lay them out

private func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
private func u24(_ value: UInt32) -> [UInt8] { [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
private func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
private func i32(_ value: Int32) -> [UInt8] { u32(UInt32(bitPattern: value)) }
private func u64(_ value: UInt64) -> [UInt8] { u32(UInt32(value >> 32)) + u32(UInt32(value & 0xFFFF_FFFF)) }
private func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
private func concat(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }

/// A box: its size (typed in, not counted: the table's walk checks it), its type, its fields.
private func box(_ size: UInt32, _ type: String, _ fields: [UInt8]...) -> [UInt8] { u32(size) + ascii(type) + fields.flatMap { $0 } }

/// A full box's version byte and 24 bits of flags.
private func full(_ version: UInt8, _ flags: UInt32) -> [UInt8] { [version] + u24(flags) }

/// The identity display matrix {1, 0, 0, 0, 1, 0, 0, 0, 1}: 16.16 fixed point, w 2.30.
private let identityMatrix = concat(u32(0x0001_0000), u32(0), u32(0), u32(0), u32(0x0001_0000), u32(0), u32(0), u32(0), u32(0x4000_0000))

/// A visual sample entry's fields (12.1.3), after its header: reserved, data_reference_index 1,
/// pre_defined and reserved, the size, 72 dpi both ways, reserved, one frame a sample, no
/// compressor name, depth 24, pre_defined -1. 78 bytes.
private func visualEntryFields(width: UInt16, height: UInt16) -> [UInt8] {
    concat(zeros(6), u16(1), zeros(16), u16(width), u16(height), u32(0x0048_0000), u32(0x0048_0000), u32(0), u16(1), zeros(32),
           u16(0x0018), u16(0xFFFF))
}

/// An audio sample entry's fields (12.2.3), after its header: reserved, data_reference_index,
/// reserved (QuickTime's version 0), channel count, 16-bit samples, pre_defined, reserved, the
/// rate in 16.16. 28 bytes.
private func audioEntryFields(dataReferenceIndex: UInt16 = 1, channels: UInt16, rate: UInt32) -> [UInt8] {
    concat(zeros(6), u16(dataReferenceIndex), zeros(8), u16(channels), u16(16), u16(0), u16(0), u32(rate))
}

/// `vmhd` or `smhd`'s sibling in every `minf` written: `dinf` > `dref` of one `url ` with flag 1
/// (the media is in this file).
private let dataInformation = box(36, "dinf", box(28, "dref", full(0, 0), u32(1), box(12, "url ", full(0, 1))))

private struct TableError: Error, CustomStringConvertible {
    let description: String
}

extension MP4BoxParsingTests {
    /// One row in the manner of go-mp4's box tests: a box's bytes as the standard lays them out
    /// (typed in by hand, never made by the code under test), what the library reads them as,
    /// and what it writes for that value: the same bytes, or `writtenBytes`.
    struct BoxCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// Whole boxes, back to back.
        let bytes: [UInt8]
        /// The writer's function for the row's value; nil for a box the library only reads.
        let write: (@Sendable () throws -> [UInt8])?
        /// What the writer gives when it is not `bytes` (a box read in a version it does not write).
        let writtenBytes: [UInt8]?
        /// Reads `bytes` and says whether they are the row's value, and what they were read as; nil
        /// for a box the library only writes (no parser: the bytes are checked against the spec's
        /// layout, typed in).
        let read: (@Sendable ([UInt8]) throws -> (matches: Bool, found: String))?
        /// The bytes are only a header (an `mdat` whose payload is gigabytes).
        var isHeaderOnly = false
        var testDescription: String { name }
    }

    /// Read and written through the box's own type.
    static func roundTrip<B: MP4ParsableBox & MP4WritableBox & Equatable>(_ name: String, _ value: B, _ bytes: [UInt8],
                                                                          writtenAs: [UInt8]? = nil) -> BoxCase {
        row(name, bytes, readAs: value, by: { try parse(B.self, $0) }, writtenBy: { ByteWriter.bytes { $0.write(box: value) } },
            writtenAs: writtenAs)
    }

    /// Read by `read` as `value`; written by `write` when the library writes it.
    static func row<V: Equatable & Sendable>(_ name: String, _ bytes: [UInt8], readAs value: V,
                                             by read: @escaping @Sendable ([UInt8]) throws -> V,
                                             writtenBy write: (@Sendable () throws -> [UInt8])?, writtenAs: [UInt8]? = nil) -> BoxCase {
        BoxCase(name: name, bytes: bytes, write: write, writtenBytes: writtenAs, read: { bytes in
            let found = try read(bytes)
            return (found == value, "\(found)")
        })
    }

    /// Only written: no parser for it in the library.
    static func writeOnly(_ name: String, _ bytes: [UInt8], by write: @escaping @Sendable () throws -> [UInt8]) -> BoxCase {
        BoxCase(name: name, bytes: bytes, write: write, writtenBytes: nil, read: nil)
    }

    /// The payload of the one box `bytes` holds, which must be of `type`.
    static func payload(of bytes: [UInt8], type: FourCC) throws -> ByteReader {
        var reader = ByteReader(bytes)
        let (header, payload) = try MP4BoxHeader.readBox(from: &reader)
        guard header.type == type, reader.isAtEnd else {
            throw TableError(description: "expected one '\(type)' box, found '\(header.type)' of \(header.size) bytes in \(bytes.count)")
        }
        return payload
    }

    static func parse<B: MP4ParsableBox>(_: B.Type, _ bytes: [UInt8]) throws -> B {
        var reader = try payload(of: bytes, type: B.type)
        return try B(parsing: &reader)
    }

    /// A container box read as the reader walks files, its kept children in `children`.
    static func container(_ bytes: [UInt8]) throws -> MP4Box {
        var reader = ByteReader(bytes)
        let box = try MP4Box.read(from: &reader, parentPath: "", siblingIndex: nil, file: "table")
        guard reader.isAtEnd else { throw TableError(description: "bytes after the '\(box.type)' box") }
        return box
    }

    /// Whether `bytes` are boxes whose sizes tile them exactly, and, inside the containers this
    /// library writes, their children too: a walk of the test's own, so a size typed wrong in a
    /// row is caught here, not blamed on the writer.
    static func tiles(_ bytes: ArraySlice<UInt8>) -> Bool {
        /// Bytes before the children: containers 0, `dref` and `stsd` their version, flags and
        /// count, sample entries their fields.
        let childrenAfter: [String: Int] = [
            "moov": 0, "trak": 0, "edts": 0, "mdia": 0, "minf": 0, "dinf": 0, "stbl": 0, "mvex": 0, "moof": 0, "traf": 0,
            "dref": 8, "stsd": 8, "avc1": 78, "hvc1": 78, "mp4a": 28,
        ]
        var at = bytes.startIndex
        while at < bytes.endIndex {
            guard bytes.endIndex - at >= 8 else { return false }
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, size <= bytes.endIndex - at else { return false }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            if let skip = childrenAfter[type] {
                guard size - 8 >= skip, tiles(bytes[(at + 8 + skip)..<(at + size)]) else { return false }
            }
            at += size
        }
        return true
    }

    /// Where two byte strings first differ, for a failure's message.
    static func difference(_ written: [UInt8], _ expected: [UInt8]) -> String {
        let index = zip(written.indices, zip(written, expected)).first { $0.1.0 != $0.1.1 }?.0 ?? min(written.count, expected.count)
        return "written: \(written.count) bytes, the table: \(expected.count); first difference at byte \(index)"
    }

    /// Each row: its bytes are whole boxes; they read as the row's value; the value is written as
    /// the row's bytes (or its written bytes).
    @Test("boxes: bytes, parsed value, written bytes", arguments: boxCases)
    func boxTable(_ row: BoxCase) throws {
        if !row.isHeaderOnly {
            #expect(Self.tiles(row.bytes[...]), "the row's box sizes do not add up")
        }
        if let read = row.read {
            do {
                let (matches, found) = try read(row.bytes)
                #expect(matches, "read as \(found)")
            } catch {
                Issue.record("not read: \(error)")
            }
        }
        if let write = row.write {
            let written = try write()
            let expected = row.writtenBytes ?? row.bytes
            #expect(written == expected, "\(Self.difference(written, expected))")
        }
    }

    static let boxCases: [BoxCase] = fileCases + movieCases + sampleTableCases + stitchedTableCases + sampleEntryCases
        + fragmentCases + readOnlyCases

    // MARK: File level

    /// `ftyp` of each writer (4.3: major brand, minor version, compatible brands), `free` padding
    /// (8.1.2) and the `mdat` header (8.1.1, 4.2: `size` 1 and a 64-bit `largesize` past 4 GiB).
    static let fileCases: [BoxCase] = [
        writeOnly("ftyp (stitcher): isom 0x200, isom iso2 avc1 mp41 (written only: no parser)",
                  box(32, "ftyp", ascii("isom"), u32(0x200), ascii("isom"), ascii("iso2"), ascii("avc1"), ascii("mp41")),
                  by: { StitchLayoutBuilder.fileTypeBox() }),
        writeOnly("ftyp (fMP4 init segment): iso6 0, iso6 cmfc mp41 (written only: no parser)",
                  box(28, "ftyp", ascii("iso6"), u32(0), ascii("iso6"), ascii("cmfc"), ascii("mp41")),
                  by: { FragmentedMP4SegmentWriter.fileTypeBox() }),
        writeOnly("free (stitcher), the smallest: a bare header (written only: no parser)", box(8, "free"), by: { StitchLayoutBuilder.freeBox(size: 8) }),
        writeOnly("free (stitcher) of 12 bytes: zeros after the header (written only: no parser)", box(12, "free", zeros(4)),
                  by: { StitchLayoutBuilder.freeBox(size: 12) }),
        row("mdat header, then the samples", box(11, "mdat", [0xAA, 0xBB, 0xCC]),
            readAs: MP4BoxHeader(type: "mdat", offset: 0, headerSize: 8, size: 11),
            by: { bytes in var reader = ByteReader(bytes); return try MP4BoxHeader.read(from: &reader, available: 11) },
            writtenBy: { ByteWriter.bytes { $0.writeBoxHeader("mdat", payloadSize: 3); $0.write([0xAA, 0xBB, 0xCC]) } }),
        BoxCase(name: "mdat header, the largest 32-bit size", bytes: u32(0xFFFF_FFFF) + ascii("mdat"),
                write: { ByteWriter.bytes { $0.writeBoxHeader("mdat", payloadSize: 0xFFFF_FFF7) } }, writtenBytes: nil,
                read: { bytes in
                    var reader = ByteReader(bytes)
                    let header = try MP4BoxHeader.read(from: &reader, available: 0xFFFF_FFFF)
                    return (header == MP4BoxHeader(type: "mdat", offset: 0, headerSize: 8, size: 0xFFFF_FFFF), "\(header)")
                }, isHeaderOnly: true),
        BoxCase(name: "mdat header one byte past 32 bits: size 1, then the 64-bit largesize", bytes: u32(1) + ascii("mdat") + u64(0x1_0000_0008),
                write: { ByteWriter.bytes { $0.writeBoxHeader("mdat", payloadSize: 0xFFFF_FFF8) } }, writtenBytes: nil,
                read: { bytes in
                    var reader = ByteReader(bytes)
                    let header = try MP4BoxHeader.read(from: &reader, available: 0x1_0000_0008)
                    return (header == MP4BoxHeader(type: "mdat", offset: 0, headerSize: 16, size: 0x1_0000_0008), "\(header)")
                }, isHeaderOnly: true),
    ]

    // MARK: moov, trak, mdia, minf

    /// The movie's and tracks' headers (8.2.2, 8.3.2, 8.4.2, 8.4.3), the edit list (8.6.6), the
    /// media information headers (12.1.2, 12.2.2, 8.7.1-8.7.2), the containers around them.
    static let movieCases: [BoxCase] = [
        // mvhd: creation and modification times 0, timescale, duration; rate 1.0, volume 1.0,
        // reserved, the identity matrix, pre_defined, next_track_ID.
        roundTrip("mvhd version 0", MovieHeaderBox(timescale: 1000, duration: 53000, nextTrackID: 3),
                  box(108, "mvhd", full(0, 0), u32(0), u32(0), u32(1000), u32(53000),
                      u32(0x0001_0000), u16(0x0100), zeros(10), identityMatrix, zeros(24), u32(3))),
        roundTrip("mvhd version 1: a duration past 32 bits", MovieHeaderBox(timescale: 90000, duration: 1 << 33, nextTrackID: 2),
                  box(120, "mvhd", full(1, 0), u64(0), u64(0), u32(90000), u64(1 << 33),
                      u32(0x0001_0000), u16(0x0100), zeros(10), identityMatrix, zeros(24), u32(2))),
        // tkhd: flags 3 (enabled, in movie); times, track_ID, reserved, duration; reserved, layer,
        // alternate_group, volume, reserved; matrix; width and height in 16.16.
        roundTrip("tkhd, video", TrackHeaderBox(trackID: 1, duration: 20000, volume: 0, width: 320 << 16, height: 180 << 16),
                  box(92, "tkhd", full(0, 3), u32(0), u32(0), u32(1), u32(0), u32(20000),
                      zeros(8), u16(0), u16(0), u16(0), u16(0), identityMatrix, u32(320 << 16), u32(180 << 16))),
        roundTrip("tkhd, sound: volume 1.0, no size", TrackHeaderBox(trackID: 2, duration: 20000, volume: 0x0100, width: 0, height: 0),
                  box(92, "tkhd", full(0, 3), u32(0), u32(0), u32(2), u32(0), u32(20000),
                      zeros(8), u16(0), u16(0), u16(0x0100), u16(0), identityMatrix, u32(0), u32(0))),
        // A portrait phone clip: turned 90° clockwise (b = 1, c = -1), moved right by its height.
        roundTrip("tkhd, a portrait clip's matrix",
                  TrackHeaderBox(trackID: 1, duration: 20000, volume: 0,
                                 matrix: DisplayMatrix(values: [0, 0x0001_0000, 0, -0x0001_0000, 0, 0, 1080 << 16, 0, 0x4000_0000]),
                                 width: 1920 << 16, height: 1080 << 16),
                  box(92, "tkhd", full(0, 3), u32(0), u32(0), u32(1), u32(0), u32(20000), zeros(8), u16(0), u16(0), u16(0), u16(0),
                      u32(0), u32(0x0001_0000), u32(0), i32(-0x0001_0000), u32(0), u32(0), u32(1080 << 16), u32(0), u32(0x4000_0000),
                      u32(1920 << 16), u32(1080 << 16))),
        roundTrip("tkhd version 1: a duration past 32 bits", TrackHeaderBox(trackID: 1, duration: 1 << 33, volume: 0, width: 0, height: 0),
                  box(104, "tkhd", full(1, 3), u64(0), u64(0), u32(1), u32(0), u64(1 << 33),
                      zeros(8), u16(0), u16(0), u16(0), u16(0), identityMatrix, u32(0), u32(0))),
        // mdhd: times, timescale, duration, language 'und' (three 5-bit letters less 0x60:
        // 21, 14, 4 = 0x55C4), pre_defined.
        roundTrip("mdhd version 0", MediaHeaderBox(timescale: 48000, duration: 961_024),
                  box(32, "mdhd", full(0, 0), u32(0), u32(0), u32(48000), u32(961_024), u16(0x55C4), u16(0))),
        roundTrip("mdhd version 1: a duration past 32 bits", MediaHeaderBox(timescale: 90000, duration: 1 << 33),
                  box(44, "mdhd", full(1, 0), u64(0), u64(0), u32(90000), u64(1 << 33), u16(0x55C4), u16(0))),
        // hdlr: pre_defined, handler_type, reserved, a null-terminated name.
        roundTrip("hdlr, video", HandlerBox(handlerType: "vide", name: "VideoHandler"),
                  box(45, "hdlr", full(0, 0), u32(0), ascii("vide"), zeros(12), ascii("VideoHandler"), [0])),
        roundTrip("hdlr, sound", HandlerBox(handlerType: "soun", name: "SoundHandler"),
                  box(45, "hdlr", full(0, 0), u32(0), ascii("soun"), zeros(12), ascii("SoundHandler"), [0])),
        // elst: entry_count, then segment_duration, media_time (-1: an empty edit) and the rate
        // as 16.16 in two 16-bit halves.
        roundTrip("elst version 0: an empty edit, then the media from 1024",
                  EditListBox(entries: [MP4EditListEntry(segmentDuration: 500, mediaTime: nil),
                                        MP4EditListEntry(segmentDuration: 20000, mediaTime: 1024)]),
                  box(40, "elst", full(0, 0), u32(2), u32(500), i32(-1), u16(1), u16(0), u32(20000), i32(1024), u16(1), u16(0))),
        roundTrip("elst: a dwell (rate 0) holds the frame at its media time",
                  EditListBox(entries: [MP4EditListEntry(segmentDuration: 1000, mediaTime: 2048, rateInteger: 0, rateFraction: 0)]),
                  box(28, "elst", full(0, 0), u32(1), u32(1000), i32(2048), u16(0), u16(0))),
        roundTrip("elst version 1: a duration past 32 bits",
                  EditListBox(entries: [MP4EditListEntry(segmentDuration: 1 << 33, mediaTime: 7)]),
                  box(36, "elst", full(1, 0), u32(1), u64(1 << 33), u64(7), u16(1), u16(0))),
        row("edts holding the elst (stitcher)",
            box(36, "edts", box(28, "elst", full(0, 0), u32(1), u32(20000), i32(1024), u16(1), u16(0))),
            readAs: [MP4EditListEntry(segmentDuration: 20000, mediaTime: 1024)],
            by: { try container($0).requiredChild("elst", file: "table").parse(EditListBox.self, file: "table").entries },
            writtenBy: {
                ByteWriter.bytes { $0.writeBox("edts") { $0.write(box: EditListBox(entries: [MP4EditListEntry(segmentDuration: 20000, mediaTime: 1024)])) } }
            }),
        // vmhd: flags 1, graphicsmode copy (0), opcolor 0. smhd: balance 0, reserved.
        writeOnly("vmhd, then dinf > dref > url (a video minf's headers; written only: no parser)",
                  concat(box(20, "vmhd", full(0, 1), u16(0), zeros(6)), dataInformation),
                  by: { ByteWriter.bytes { $0.writeMediaInformationHeaders(isVideo: true) } }),
        writeOnly("smhd, then dinf > dref > url (a sound minf's headers; written only: no parser)",
                  concat(box(16, "smhd", full(0, 0), u16(0), u16(0)), dataInformation),
                  by: { ByteWriter.bytes { $0.writeMediaInformationHeaders(isVideo: false) } }),
    ]

    // MARK: stbl, through the box types

    /// A 36-byte `mp4a` entry with no child boxes (48 kHz stereo), its data_reference_index given.
    static func bareAudioEntry(dataReferenceIndex: UInt16) -> [UInt8] {
        box(36, "mp4a", audioEntryFields(dataReferenceIndex: dataReferenceIndex, channels: 2, rate: 48000 << 16))
    }

    /// The sample tables (8.5.2, 8.6.1, 8.6.2, 8.7.3-8.7.5) through their box types: what the
    /// fMP4 init segment writes (empty tables), and the types' reading and writing of full ones.
    static let sampleTableCases: [BoxCase] = [
        // stsd: entry_count, then each sample entry whole.
        row("stsd: the source's entry copied, its data_reference_index made 1",
            box(52, "stsd", full(0, 0), u32(1), bareAudioEntry(dataReferenceIndex: 1)),
            readAs: [bareAudioEntry(dataReferenceIndex: 1)],
            by: { bytes in
                var reader = try payload(of: bytes, type: "stsd")
                return try SampleDescriptionBox(parsing: &reader, handler: "soun").entries.map(\.bytes)
            },
            writtenBy: {
                let copied = try MP4SampleDescription(entry: ByteReader(bareAudioEntry(dataReferenceIndex: 2)), handler: "soun")
                return ByteWriter.bytes { $0.writeBox(SampleDescriptionBox.type) { SampleDescriptionBox(entries: [copied]).writePayload(to: &$0) } }
            }),
        // stts: entry_count, then (sample_count, sample_delta) runs.
        roundTrip("stts from per-sample durations: runs of equal ones", TimeToSampleBox(durations: [512, 512, 512, 1001]),
                  box(32, "stts", full(0, 0), u32(2), u32(3), u32(512), u32(1), u32(1001))),
        roundTrip("stts, empty (fMP4 init segment)", TimeToSampleBox(durations: []), box(16, "stts", full(0, 0), u32(0))),
        // ctts: entry_count, then (sample_count, sample_offset) runs; signed in version 1.
        roundTrip("ctts version 0 from per-sample offsets, none negative", CompositionOffsetBox(offsets: [1024, 1024, 1024, 0]),
                  box(32, "ctts", full(0, 0), u32(2), u32(3), i32(1024), u32(1), i32(0))),
        roundTrip("ctts version 1 from per-sample offsets, one negative", CompositionOffsetBox(offsets: [1024, -512, -512]),
                  box(32, "ctts", full(1, 0), u32(2), u32(1), i32(1024), u32(2), i32(-512))),
        // stss: entry_count, then 1-based sample numbers.
        roundTrip("stss: sync sample numbers", SyncSampleBox(sampleNumbers: [1, 49]), box(24, "stss", full(0, 0), u32(2), u32(1), u32(49))),
        // stsc: entry_count, then (first_chunk, samples_per_chunk, sample_description_index).
        roundTrip("stsc from per-chunk counts: a run from each change",
                  SampleToChunkBox(chunks: [(2, 1), (2, 1), (1, 1), (3, 2)]),
                  box(52, "stsc", full(0, 0), u32(3), u32(1), u32(2), u32(1), u32(3), u32(1), u32(1), u32(4), u32(3), u32(2))),
        roundTrip("stsc, empty (fMP4 init segment)", SampleToChunkBox(chunks: []), box(16, "stsc", full(0, 0), u32(0))),
        // stsz: sample_size (all alike) or 0 and a table, sample_count.
        roundTrip("stsz from sizes all alike: one size, no table", SampleSizeBox(sampleSizes: [6, 6, 6]),
                  box(20, "stsz", full(0, 0), u32(6), u32(3))),
        roundTrip("stsz from sizes that differ: a table", SampleSizeBox(sampleSizes: [10, 20]),
                  box(28, "stsz", full(0, 0), u32(0), u32(2), u32(10), u32(20))),
        roundTrip("stsz, empty (fMP4 init segment)", SampleSizeBox(sampleSizes: []), box(20, "stsz", full(0, 0), u32(0), u32(0))),
        // stco: entry_count, then 32-bit chunk offsets, as the fMP4 packager writes them.
        row("stco: 32-bit chunk offsets", box(24, "stco", full(0, 0), u32(2), u32(48), u32(4307)),
            readAs: ChunkOffsetBox(offsets: [48, 4307]), by: { try parse(ChunkOffsetBox.self, $0) },
            writtenBy: { ByteWriter.bytes { $0.writeBox(ChunkOffsetBox.type) { ChunkOffsetBox(offsets: [48, 4307]).writePayload(to: &$0, wide: false) } } }),
        row("stco, empty (fMP4 init segment)", box(16, "stco", full(0, 0), u32(0)),
            readAs: ChunkOffsetBox(offsets: []), by: { try parse(ChunkOffsetBox.self, $0) },
            writtenBy: { ByteWriter.bytes { $0.writeBox(ChunkOffsetBox.type) { ChunkOffsetBox(offsets: []).writePayload(to: &$0, wide: false) } } }),
        // co64: entry_count, then 64-bit chunk offsets. ChunkOffsetBox picks them, and the type
        // that says so, itself once an offset needs them (`write(box:)`); no writer here writes
        // co64 that way (see the stitcher's below).
        row("co64 through ChunkOffsetBox: 64-bit entries, typed co64, once an offset passes 32 bits",
            box(24, "co64", full(0, 0), u32(1), u64(1 << 32 + 5)),
            readAs: ChunkOffsetBox(offsets: [1 << 32 + 5]),
            by: { bytes in var reader = try payload(of: bytes, type: "co64"); return try ChunkOffsetBox(parsing: &reader, wide: true) },
            writtenBy: { ByteWriter.bytes { $0.write(box: ChunkOffsetBox(offsets: [1 << 32 + 5])) } }),
        row("stco through ChunkOffsetBox's own choice: 32-bit entries while every offset fits",
            box(20, "stco", full(0, 0), u32(1), u32(0xFFFF_FFFF)),
            readAs: ChunkOffsetBox(offsets: [0xFFFF_FFFF]), by: { try parse(ChunkOffsetBox.self, $0) },
            writtenBy: { ByteWriter.bytes { $0.write(box: ChunkOffsetBox(offsets: [0xFFFF_FFFF])) } }),
    ]

    // MARK: stbl, as the stitcher writes it

    /// Four frames with B-frames: frame 1 shows 1024 ticks after its decode, frames 2 and 3 512
    /// before, frame 4 on it; 1 and 4 are sync samples. Chunks: frames 1-2 at 0, 3 at 540, 4 at 580.
    static let framesWithBFrames: [SampleTableEntry] = [
        SampleTableEntry(number: 1, duration: 512, compositionOffset: 1024, isSync: true, size: 500),
        SampleTableEntry(number: 2, duration: 512, compositionOffset: -512, isSync: false, size: 40),
        SampleTableEntry(number: 3, duration: 512, compositionOffset: -512, isSync: false, size: 40),
        SampleTableEntry(number: 4, duration: 1001, compositionOffset: 0, isSync: true, size: 300),
    ]
    static let chunksOfFrames = [
        PlacedChunk(position: 0, sampleCount: 2, description: 0), PlacedChunk(position: 540, sampleCount: 1, description: 0),
        PlacedChunk(position: 580, sampleCount: 1, description: 0),
    ]
    /// Three 10-byte frames, shown after their decode or on it (no offset negative), one chunk.
    static let framesShownLater: [SampleTableEntry] = [
        SampleTableEntry(number: 1, duration: 512, compositionOffset: 1024, isSync: true, size: 10),
        SampleTableEntry(number: 2, duration: 512, compositionOffset: 1024, isSync: false, size: 10),
        SampleTableEntry(number: 3, duration: 512, compositionOffset: 0, isSync: false, size: 10),
    ]
    /// Three 6-byte AAC frames of 1024 samples, all sync samples, one chunk.
    static let audioFrames = (1...3).map { SampleTableEntry(number: $0, duration: 1024, compositionOffset: 0, isSync: true, size: 6) }

    /// The stitcher's `type` box (or, for `stbl`, the whole `stbl`) of one track of `samples` in
    /// `chunks`, written by the stitcher's header writer alone: its chunk offsets count from the
    /// start of what it writes, so they are the chunk's position plus the bytes written.
    static func stitched(_ type: FourCC, _ samples: [SampleTableEntry], _ chunks: [PlacedChunk], wide: Bool = false,
                         kind: TrackKind = .video, descriptions: [MP4SampleDescription] = []) throws -> [UInt8] {
        var tables = SampleTables()
        for sample in samples { tables.add(sample) }
        tables.finish()
        var list = ChunkList()
        for chunk in chunks { list.append(chunk) }
        let parts = StitchLayoutBuilder.sampleTableParts(track: 0, descriptions: descriptions, counts: tables, chunks: list, wide: wide)
        let written: [StitchHeader.Part] = type == "stbl" ? [.box("stbl", parts)] : parts.filter {
            if case .box(type, _) = $0 { return true }
            return false
        }
        var writer = ByteWriter()
        try StitchHeader(kinds: [kind], tables: [tables], chunksOfTrack: [list], parts: written, file: "table").write(to: &writer)
        return writer.bytes
    }

    /// The stitcher's sample tables (8.6.1.2, 8.6.1.3, 8.6.2, 8.7.3-8.7.5), written from its
    /// planned tables by `StitchHeader`, read back by the box types.
    static let stitchedTableCases: [BoxCase] = [
        row("stts (stitcher): runs of equal durations",
            box(32, "stts", full(0, 0), u32(2), u32(3), u32(512), u32(1), u32(1001)),
            readAs: TimeToSampleBox(entries: [.init(count: 3, delta: 512), .init(count: 1, delta: 1001)]),
            by: { try parse(TimeToSampleBox.self, $0) }, writtenBy: { try stitched("stts", framesWithBFrames, chunksOfFrames) }),
        row("ctts version 1 (stitcher): an offset is negative",
            box(40, "ctts", full(1, 0), u32(3), u32(1), i32(1024), u32(2), i32(-512), u32(1), i32(0)),
            readAs: CompositionOffsetBox(version: 1, entries: [.init(count: 1, offset: 1024), .init(count: 2, offset: -512), .init(count: 1, offset: 0)]),
            by: { try parse(CompositionOffsetBox.self, $0) }, writtenBy: { try stitched("ctts", framesWithBFrames, chunksOfFrames) }),
        row("ctts version 0 (stitcher): no offset negative",
            box(32, "ctts", full(0, 0), u32(2), u32(2), i32(1024), u32(1), i32(0)),
            readAs: CompositionOffsetBox(version: 0, entries: [.init(count: 2, offset: 1024), .init(count: 1, offset: 0)]),
            by: { try parse(CompositionOffsetBox.self, $0) },
            writtenBy: { try stitched("ctts", framesShownLater, [PlacedChunk(position: 0, sampleCount: 3, description: 0)]) }),
        row("stss (stitcher): the sync samples' numbers",
            box(24, "stss", full(0, 0), u32(2), u32(1), u32(4)),
            readAs: SyncSampleBox(sampleNumbers: [1, 4]),
            by: { try parse(SyncSampleBox.self, $0) }, writtenBy: { try stitched("stss", framesWithBFrames, chunksOfFrames) }),
        row("stsc (stitcher): a run from each change of samples per chunk, descriptions 1-based",
            box(40, "stsc", full(0, 0), u32(2), u32(1), u32(2), u32(1), u32(2), u32(1), u32(1)),
            readAs: SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: 2, sampleDescriptionIndex: 1),
                                               .init(firstChunk: 2, samplesPerChunk: 1, sampleDescriptionIndex: 1)]),
            by: { try parse(SampleToChunkBox.self, $0) }, writtenBy: { try stitched("stsc", framesWithBFrames, chunksOfFrames) }),
        row("stsz (stitcher): sizes that differ, listed",
            box(36, "stsz", full(0, 0), u32(0), u32(4), u32(500), u32(40), u32(40), u32(300)),
            readAs: SampleSizeBox(sizes: .table([500, 40, 40, 300])),
            by: { try parse(SampleSizeBox.self, $0) }, writtenBy: { try stitched("stsz", framesWithBFrames, chunksOfFrames) }),
        row("stsz (stitcher): one size for every sample, given once",
            box(20, "stsz", full(0, 0), u32(10), u32(3)),
            readAs: SampleSizeBox(sizes: .constant(size: 10, count: 3)),
            by: { try parse(SampleSizeBox.self, $0) },
            writtenBy: { try stitched("stsz", framesShownLater, [PlacedChunk(position: 0, sampleCount: 3, description: 0)]) }),
        // The 28-byte stco written alone: offsets are 28 past each chunk's position.
        row("stco (stitcher): chunk offsets from the start of the header",
            box(28, "stco", full(0, 0), u32(3), u32(28), u32(568), u32(608)),
            readAs: ChunkOffsetBox(offsets: [28, 568, 608]),
            by: { try parse(ChunkOffsetBox.self, $0) }, writtenBy: { try stitched("stco", framesWithBFrames, chunksOfFrames) }),
        // The 40-byte co64 written alone, of chunks at 0, 4 GiB and 4 GiB + 40.
        row("co64 (stitcher): 64-bit chunk offsets",
            box(40, "co64", full(0, 0), u32(3), u64(40), u64(40 + 1 << 32), u64(80 + 1 << 32)),
            readAs: ChunkOffsetBox(offsets: [40, 40 + 1 << 32, 80 + 1 << 32]),
            by: { bytes in var reader = try payload(of: bytes, type: "co64"); return try ChunkOffsetBox(parsing: &reader, wide: true) },
            writtenBy: {
                try stitched("co64", framesWithBFrames, [PlacedChunk(position: 0, sampleCount: 2, description: 0),
                                                         PlacedChunk(position: 1 << 32, sampleCount: 1, description: 0),
                                                         PlacedChunk(position: 1 << 32 + 40, sampleCount: 1, description: 0)], wide: true)
            }),
        // An audio track: every sample a sync sample (no stss), none off its decode time (no
        // ctts), one size (stsz lists none); its one chunk at 0 is at byte 152, past the stbl.
        row("stbl (stitcher) of an audio track: stsd, stts, stsc, stsz, stco",
            box(152, "stbl",
                box(52, "stsd", full(0, 0), u32(1), bareAudioEntry(dataReferenceIndex: 1)),
                box(24, "stts", full(0, 0), u32(1), u32(3), u32(1024)),
                box(28, "stsc", full(0, 0), u32(1), u32(1), u32(3), u32(1)),
                box(20, "stsz", full(0, 0), u32(6), u32(3)),
                box(20, "stco", full(0, 0), u32(1), u32(152))),
            readAs: ["stsd", "stts", "stsc", "stsz", "stco"], by: { try container($0).children.map { "\($0.type)" } },
            writtenBy: {
                let entry = try MP4SampleDescription(entry: ByteReader(bareAudioEntry(dataReferenceIndex: 1)), handler: "soun")
                return try stitched("stbl", audioFrames, [PlacedChunk(position: 0, sampleCount: 3, description: 0)], kind: .audio,
                                    descriptions: [entry])
            }),
    ]

    // MARK: Sample entries made for transport stream sources

    /// What a sample entry reads as.
    struct EntryReading: Equatable, Sendable, CustomStringConvertible {
        var format: String
        var width: Int?
        var height: Int?
        var sampleRate: Int?
        var channelCount: Int?
        var objectTypeIndication: UInt8?
        var codec: MP4CodecParameters

        init(format: String, width: Int? = nil, height: Int? = nil, sampleRate: Int? = nil, channelCount: Int? = nil,
             objectTypeIndication: UInt8? = nil, codec: MP4CodecParameters) {
            self.format = format
            self.width = width
            self.height = height
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.objectTypeIndication = objectTypeIndication
            self.codec = codec
        }

        init(_ bytes: [UInt8], handler: FourCC) throws {
            let entry = try MP4SampleDescription(entry: ByteReader(bytes), handler: handler)
            self.init(format: "\(entry.format)", width: entry.width, height: entry.height, sampleRate: entry.sampleRate,
                      channelCount: entry.channelCount, objectTypeIndication: entry.objectTypeIndication, codec: entry.codec)
        }

        var description: String {
            "\(format) \(width.map(String.init) ?? "-")x\(height.map(String.init) ?? "-") \(sampleRate.map(String.init) ?? "-") Hz "
                + "\(channelCount.map(String.init) ?? "-") ch, object type \(objectTypeIndication.map(String.init) ?? "-"), \(codec)"
        }
    }

    static let avcSPS: [UInt8] = [0x67, 0x64, 0x00, 0x1E, 0xAC]
    static let avcMainSPS: [UInt8] = [0x67, 0x4D, 0x00, 0x1F, 0x95]
    static let avcPPS: [UInt8] = [0x68, 0xEE, 0x3C, 0x80]
    static let hevcVPS: [UInt8] = [0x40, 0x01, 0x0C]
    static let hevcSPS: [UInt8] = [0x42, 0x01, 0x01]
    static let hevcPPS: [UInt8] = [0x44, 0x01, 0xC1]
    /// general_profile_space 0, tier 0, profile Main (1); compatibility flags 1 and 2;
    /// progressive, frame only; level 3.1 (93).
    static let hevcProfileTierLevel: [UInt8] = [0x01, 0x60, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5D]

    /// `avc1` > `avcC` (14496-15 5.3.3), `hvc1` > `hvcC` (8.3.3), `mp4a` > `esds` (14496-14 5.6,
    /// 14496-1 7.2.6.5): SampleEntryWriter's entries, read back as the reader reads any source's.
    static let sampleEntryCases: [BoxCase] = [
        // avcC: version 1, profile, compatibility, level; '111111'b and 4-byte lengths (3);
        // '111'b and the SPS count, each SPS by its 16-bit length; the PPSs so; for the High
        // profiles, '111111'b + chroma_format, '11111'b + each bit depth less 8, no SPS extensions.
        row("avc1 > avcC, High profile: chroma format and bit depths",
            box(118, "avc1", visualEntryFields(width: 320, height: 180),
                box(32, "avcC", [1, 100, 0, 0x1E], [0xFF], [0xE1], u16(5), avcSPS, [1], u16(4), avcPPS, [0xFD, 0xF8, 0xF8, 0])),
            readAs: EntryReading(format: "avc1", width: 320, height: 180, codec: .avc(AVCDecoderConfiguration(
                profile: 100, compatibility: 0, level: 0x1E, nalLengthSize: 4, sequenceParameterSets: [avcSPS], pictureParameterSets: [avcPPS]))),
            by: { try EntryReading($0, handler: "vide") },
            writtenBy: {
                SampleEntryWriter.avc1(width: 320, height: 180, profile: 100, compatibility: 0, level: 0x1E, chromaFormat: 1,
                                       bitDepthLuma: 8, bitDepthChroma: 8, sequenceParameterSets: [avcSPS], pictureParameterSets: [avcPPS])
            }),
        row("avc1 > avcC, Main profile: no extension",
            box(114, "avc1", visualEntryFields(width: 1280, height: 720),
                box(28, "avcC", [1, 77, 0, 0x1F], [0xFF], [0xE1], u16(5), avcMainSPS, [1], u16(4), avcPPS)),
            readAs: EntryReading(format: "avc1", width: 1280, height: 720, codec: .avc(AVCDecoderConfiguration(
                profile: 77, compatibility: 0, level: 0x1F, nalLengthSize: 4, sequenceParameterSets: [avcMainSPS], pictureParameterSets: [avcPPS]))),
            by: { try EntryReading($0, handler: "vide") },
            writtenBy: {
                SampleEntryWriter.avc1(width: 1280, height: 720, profile: 77, compatibility: 0, level: 0x1F, chromaFormat: 1,
                                       bitDepthLuma: 8, bitDepthChroma: 8, sequenceParameterSets: [avcMainSPS], pictureParameterSets: [avcPPS])
            }),
        // hvcC: version 1; the 12 profile, tier and level bytes; '1111'b + min_spatial_segmentation
        // 0; '111111'b + parallelismType 0; '111111'b + chroma_format_idc; '11111'b + each bit
        // depth less 8; avgFrameRate 0; constantFrameRate 0, one temporal layer, nested,
        // lengthSizeMinusOne 3 (0b00_001_1_11); three arrays, each complete (0x80) with its NAL
        // unit type, one unit by its 16-bit length.
        row("hvc1 > hvcC: VPS, SPS and PPS arrays, complete",
            box(141, "hvc1", visualEntryFields(width: 1920, height: 1080),
                box(55, "hvcC", [1], hevcProfileTierLevel, u16(0xF000), [0xFC], [0xFD], [0xF8], [0xF8], u16(0), [0x0F], [3],
                    [0xA0], u16(1), u16(3), hevcVPS, [0xA1], u16(1), u16(3), hevcSPS, [0xA2], u16(1), u16(3), hevcPPS)),
            readAs: EntryReading(format: "hvc1", width: 1920, height: 1080,
                                 codec: .hevc(HEVCDecoderConfiguration(nalLengthSize: 4, parameterSets: [hevcVPS, hevcSPS, hevcPPS]))),
            by: { try EntryReading($0, handler: "vide") },
            writtenBy: {
                SampleEntryWriter.hvc1(width: 1920, height: 1080, profileTierLevel: hevcProfileTierLevel, maxSubLayers: 1,
                                       temporalIDNesting: true, chromaFormat: 1, bitDepthLuma: 8, bitDepthChroma: 8,
                                       parameterSets: [(32, [hevcVPS]), (33, [hevcSPS]), (34, [hevcPPS])])
            }),
        // esds: ES_Descriptor (tag 3, 25 bytes: ES_ID 0, no flags) > DecoderConfigDescriptor
        // (tag 4, 17 bytes: MPEG-4 audio 0x40, audio stream 0x15, buffer size and bit rates 0) >
        // DecoderSpecificInfo (tag 5: the AudioSpecificConfig); SLConfigDescriptor (tag 6,
        // predefined 2).
        row("mp4a > esds: AAC-LC 48 kHz stereo",
            box(75, "mp4a", audioEntryFields(channels: 2, rate: 48000 << 16),
                box(39, "esds", full(0, 0), [0x03, 25, 0, 0, 0], [0x04, 17, 0x40, 0x15], zeros(11), [0x05, 2, 0x11, 0x90], [0x06, 1, 2])),
            readAs: EntryReading(format: "mp4a", sampleRate: 48000, channelCount: 2, objectTypeIndication: 0x40, codec: .aac(AudioSpecificConfig(
                objectType: 2, sampleRate: 48000, channelConfiguration: 2, coreObjectType: 2, samplesPerFrame: 1024, bytes: [0x11, 0x90]))),
            by: { try EntryReading($0, handler: "soun") },
            writtenBy: { SampleEntryWriter.mp4a(sampleRate: 48000, channelCount: 2, audioSpecificConfig: [0x11, 0x90]) }),
        row("mp4a > esds: 96 kHz, past the 16.16 rate field, written 0",
            box(75, "mp4a", audioEntryFields(channels: 2, rate: 0),
                box(39, "esds", full(0, 0), [0x03, 25, 0, 0, 0], [0x04, 17, 0x40, 0x15], zeros(11), [0x05, 2, 0x10, 0x10], [0x06, 1, 2])),
            readAs: EntryReading(format: "mp4a", sampleRate: 0, channelCount: 2, objectTypeIndication: 0x40, codec: .aac(AudioSpecificConfig(
                objectType: 2, sampleRate: 96000, channelConfiguration: 2, coreObjectType: 2, samplesPerFrame: 1024, bytes: [0x10, 0x10]))),
            by: { try EntryReading($0, handler: "soun") },
            writtenBy: { SampleEntryWriter.mp4a(sampleRate: 96000, channelCount: 2, audioSpecificConfig: [0x10, 0x10]) }),
    ]

    // MARK: Movie fragments

    /// The fMP4 packager's `mvex` > `trex` (8.8.3) and fragments (8.8.4-8.8.8, 8.8.12), and the
    /// fragment boxes' other forms the reader meets.
    static let fragmentCases: [BoxCase] = [
        // trex: track_ID, then the default description index, duration, size and flags.
        roundTrip("trex (fMP4 init segment): description 1, the rest from each trun", TrackExtendsBox(trackID: 1),
                  box(32, "trex", full(0, 0), u32(1), u32(1), u32(0), u32(0), u32(0))),
        roundTrip("trex with a default duration", { var trex = TrackExtendsBox(trackID: 2); trex.defaultSampleDuration = 1024; return trex }(),
                  box(32, "trex", full(0, 0), u32(2), u32(1), u32(1024), u32(0), u32(0))),
        row("mvex holding a trex for each track (fMP4 init segment)",
            box(72, "mvex", box(32, "trex", full(0, 0), u32(1), u32(1), u32(0), u32(0), u32(0)),
                box(32, "trex", full(0, 0), u32(2), u32(1), u32(0), u32(0), u32(0))),
            readAs: [TrackExtendsBox(trackID: 1), TrackExtendsBox(trackID: 2)],
            by: { try container($0).children("trex").map { try $0.parse(TrackExtendsBox.self, file: "table") } },
            writtenBy: { ByteWriter.bytes { $0.writeBox("mvex") { for id: UInt32 in [1, 2] { $0.write(box: TrackExtendsBox(trackID: id)) } } } }),
        // mfhd: sequence_number. No parser: the reader does not look at it.
        writeOnly("mfhd (written only: no parser)", box(16, "mfhd", full(0, 0), u32(7)),
                  by: { ByteWriter.bytes { $0.write(box: MovieFragmentHeaderBox(sequenceNumber: 7)) } }),
        // tfhd: flags say which fields follow track_ID (0x020000: default-base-is-moof).
        roundTrip("tfhd (fMP4): default-base-is-moof, nothing else", TrackFragmentHeaderBox(trackID: 1),
                  box(16, "tfhd", full(0, 0x02_0000), u32(1))),
        roundTrip("tfhd: base data offset, description, default duration, size and flags (0x3B)",
                  TrackFragmentHeaderBox(trackID: 2, baseDataOffset: 4096, sampleDescriptionIndex: 1, defaultSampleDuration: 1024,
                                         defaultSampleSize: 6, defaultSampleFlags: 0x0200_0000, defaultBaseIsMoof: false),
                  box(40, "tfhd", full(0, 0x3B), u32(2), u64(4096), u32(1), u32(1024), u32(6), u32(0x0200_0000))),
        // tfdt: baseMediaDecodeTime, 64-bit in version 1.
        roundTrip("tfdt version 1", TrackFragmentDecodeTimeBox(baseMediaDecodeTime: 1 << 33), box(20, "tfdt", full(1, 0), u64(1 << 33))),
        roundTrip("tfdt version 0 read, written as version 1", TrackFragmentDecodeTimeBox(baseMediaDecodeTime: 1_280_000),
                  box(16, "tfdt", full(0, 0), u32(1_280_000)), writtenAs: box(20, "tfdt", full(1, 0), u64(1_280_000))),
        // trun: flags say which fields follow sample_count (0x001 data_offset, 0x004
        // first_sample_flags, 0x100 duration, 0x200 size, 0x400 flags, 0x800 composition offset).
        // Sample flags 0x02000000: depends on no other (sync); 0x01010000: depends on others, non-sync.
        roundTrip("trun (fMP4 video): data offset; duration, size, flags and composition offset per sample",
                  TrackFragmentRunBox(sampleCount: 2, dataOffset: 128, durations: [512, 512], sizes: [500, 40],
                                      flags: [TrackFragmentRunBox.syncSampleFlags, TrackFragmentRunBox.nonSyncSampleFlags],
                                      compositionOffsets: [1024, 0]),
                  box(52, "trun", full(0, 0xF01), u32(2), i32(128),
                      u32(512), u32(500), u32(0x0200_0000), i32(1024), u32(512), u32(40), u32(0x0101_0000), i32(0))),
        roundTrip("trun version 1: first-sample flags, sizes, a negative composition offset",
                  TrackFragmentRunBox(sampleCount: 2, dataOffset: 100, firstSampleFlags: 0x0200_0000, durations: nil,
                                      sizes: [500, 40], flags: nil, compositionOffsets: [512, -512]),
                  box(40, "trun", full(1, 0xA05), u32(2), i32(100), u32(0x0200_0000), u32(500), i32(512), u32(40), i32(-512))),
        // The packager's audio fragment: mfhd, then a traf of tfhd, tfdt and trun, whose data
        // offset is the moof's 112 bytes and the mdat header's 8.
        row("moof > mfhd, traf > tfhd, tfdt, trun (fMP4 audio segment)",
            box(112, "moof", box(16, "mfhd", full(0, 0), u32(1)),
                box(88, "traf", box(16, "tfhd", full(0, 0x02_0000), u32(1)), box(20, "tfdt", full(1, 0), u64(48000)),
                    box(44, "trun", full(0, 0x701), u32(2), i32(120),
                        u32(1024), u32(6), u32(0x0200_0000), u32(1024), u32(6), u32(0x0200_0000)))),
            readAs: TrackFragmentReading(header: TrackFragmentHeaderBox(trackID: 1),
                                         decodeTime: TrackFragmentDecodeTimeBox(baseMediaDecodeTime: 48000), run: audioRun),
            by: { bytes in
                let traf = try container(bytes).requiredChild("traf", file: "table")
                return TrackFragmentReading(header: try traf.requiredChild("tfhd", file: "table").parse(TrackFragmentHeaderBox.self, file: "table"),
                                            decodeTime: try traf.requiredChild("tfdt", file: "table").parse(TrackFragmentDecodeTimeBox.self, file: "table"),
                                            run: try traf.requiredChild("trun", file: "table").parse(TrackFragmentRunBox.self, file: "table"))
            },
            writtenBy: {
                ByteWriter.bytes { writer in
                    writer.writeBox("moof") { moof in
                        moof.write(box: MovieFragmentHeaderBox(sequenceNumber: 1))
                        moof.writeBox("traf") { traf in
                            traf.write(box: TrackFragmentHeaderBox(trackID: 1))
                            traf.write(box: TrackFragmentDecodeTimeBox(baseMediaDecodeTime: 48000))
                            traf.write(box: audioRun)
                        }
                    }
                }
            }),
    ]

    /// A `traf`'s boxes, read.
    struct TrackFragmentReading: Equatable, Sendable {
        var header: TrackFragmentHeaderBox
        var decodeTime: TrackFragmentDecodeTimeBox
        var run: TrackFragmentRunBox
    }

    static let audioRun = TrackFragmentRunBox(sampleCount: 2, dataOffset: 120, durations: [1024, 1024], sizes: [6, 6],
                                              flags: [TrackFragmentRunBox.syncSampleFlags, TrackFragmentRunBox.syncSampleFlags],
                                              compositionOffsets: nil)

    // MARK: Read, never written

    /// Boxes and forms the reader meets and no writer here emits: `stz2` (8.7.3.3), `sidx`
    /// (8.16.3), a `trun` with no per-sample field.
    static let readOnlyCases: [BoxCase] = [
        // stz2: reserved, field_size, sample_count, then the sizes packed.
        row("stz2, 4-bit sizes (read only)", box(22, "stz2", full(0, 0), [0, 0, 0, 4], u32(3), [0x12, 0x30]),
            readAs: SampleSizeBox(sizes: .table([1, 2, 3])),
            by: { bytes in var reader = try payload(of: bytes, type: "stz2"); return try SampleSizeBox(parsingCompact: &reader) }, writtenBy: nil),
        row("stz2, 8-bit sizes (read only)", box(22, "stz2", full(0, 0), [0, 0, 0, 8], u32(2), [7, 9]),
            readAs: SampleSizeBox(sizes: .table([7, 9])),
            by: { bytes in var reader = try payload(of: bytes, type: "stz2"); return try SampleSizeBox(parsingCompact: &reader) }, writtenBy: nil),
        row("stz2, 16-bit sizes (read only)", box(24, "stz2", full(0, 0), [0, 0, 0, 16], u32(2), [1, 0, 0, 2]),
            readAs: SampleSizeBox(sizes: .table([256, 2])),
            by: { bytes in var reader = try payload(of: bytes, type: "stz2"); return try SampleSizeBox(parsingCompact: &reader) }, writtenBy: nil),
        // sidx: reference_ID, timescale, earliest_presentation_time and first_offset (64-bit in
        // version 1), reserved, reference_count; each reference: reference_type (1 bit: a sidx)
        // and referenced_size (31), subsegment_duration, SAP fields.
        row("sidx version 0 (read only)",
            box(56, "sidx", full(0, 0), u32(1), u32(90000), u32(0), u32(20), u16(0), u16(2),
                u32(1000), u32(90000), u32(0x9000_0000), u32(1 << 31 | 2000), u32(90000), u32(0)),
            readAs: SegmentIndexBox(referenceID: 1, timescale: 90000, earliestPresentationTime: 0, firstOffset: 20,
                                    references: [.init(referencesIndex: false, size: 1000), .init(referencesIndex: true, size: 2000)]),
            by: { try parse(SegmentIndexBox.self, $0) }, writtenBy: nil),
        row("sidx version 1 (read only)",
            box(52, "sidx", full(1, 0), u32(2), u32(1000), u64(1 << 40), u64(1 << 33), u16(0), u16(1), u32(7), u32(0), u32(0)),
            readAs: SegmentIndexBox(referenceID: 2, timescale: 1000, earliestPresentationTime: 1 << 40, firstOffset: 1 << 33,
                                    references: [.init(referencesIndex: false, size: 7)]),
            by: { try parse(SegmentIndexBox.self, $0) }, writtenBy: nil),
        // The writer walks the count even with nothing to write per sample: 2^30 steps, so not written here.
        row("trun with no per-sample field: a count of 2^30 read without a table (read only here)",
            box(16, "trun", full(0, 0), u32(1 << 30)),
            readAs: TrackFragmentRunBox(sampleCount: 1 << 30, dataOffset: nil, durations: nil, sizes: nil, flags: nil, compositionOffsets: nil),
            by: { try parse(TrackFragmentRunBox.self, $0) }, writtenBy: nil),
    ]

    /// ```
    /// |sidx ...|<- first_offset ->|subsegment 1 (1000)|subsegment 2 (2000)|
    ///          ^ box end 500       ^ 520              ^ 1520
    /// ```
    @Test("what box values tell: sync sample flags, offsets that need co64, where sidx subsegments start")
    func boxValues() {
        #expect(TrackFragmentRunBox.isSync(flags: TrackFragmentRunBox.syncSampleFlags))
        #expect(!TrackFragmentRunBox.isSync(flags: TrackFragmentRunBox.nonSyncSampleFlags))
        #expect(ChunkOffsetBox(offsets: [48, 1 << 32 + 5]).needsWideOffsets)
        #expect(!ChunkOffsetBox(offsets: [48, UInt64(UInt32.max)]).needsWideOffsets)
        let index = SegmentIndexBox(referenceID: 1, timescale: 90000, earliestPresentationTime: 0, firstOffset: 20,
                                    references: [.init(referencesIndex: false, size: 1000), .init(referencesIndex: true, size: 2000)])
        #expect(index.referenceOffsets(boxEnd: 500) == [520, 1520])
        let wide = SegmentIndexBox(referenceID: 2, timescale: 1000, earliestPresentationTime: 1 << 40, firstOffset: 1 << 33,
                                   references: [.init(referencesIndex: false, size: 7)])
        #expect(wide.referenceOffsets(boxEnd: 100) == [100 + 1 << 33])
        // Offsets that would pass 2^64 are left out, not wrapped.
        var past = wide
        past.firstOffset = .max
        #expect(past.referenceOffsets(boxEnd: 2).isEmpty)
    }
}
