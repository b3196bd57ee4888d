import Foundation
import Testing
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small MP4 built box by box, so a test can say exactly which field lies.
///
/// The default is a valid one-track movie: `ftyp`, `moov` (mvhd, one trak with tkhd, optional
/// edts/elst, mdia/mdhd/hdlr/minf/stbl) and an `mdat` holding `sampleCount` samples of
/// `sampleSize` bytes in one chunk. Any `stbl` child can be replaced by raw payload bytes.
struct TinyMP4 {
    var handler: FourCC = "vide"
    var sampleCount = 4
    var sampleSize = 16
    var delta: UInt32 = 512
    var timescale: UInt32 = 12_800
    var editList: [MP4EditListEntry]?
    /// The sample entry box (whole box); a bare `avc1` or `mp4a` entry when nil.
    var sampleEntry: [UInt8]?
    /// Payloads (after the box header) that replace the built `stbl` children of those types.
    var stblPayloads: [FourCC: [UInt8]] = [:]
    /// Extra boxes at the end of `moov` (`udta`, ...).
    var extraMoovBoxes: [[UInt8]] = []
    /// Extra bytes after `mdat` (or a longer file than the samples need).
    var trailingBytes = 0
    /// How many copies of the track `moov` holds.
    var trackCount = 1

    static func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeBox(type) { $0.write(payload) }
        return writer.bytes
    }

    /// `depth` boxes of `type`, each the only child of the one before (built in one pass: nesting
    /// `box` calls would copy the growing payload at every level).
    static func nested(_ type: FourCC, depth: Int) -> [UInt8] {
        var writer = ByteWriter()
        for level in 0..<depth {
            writer.write(UInt32(8 * (depth - level)))
            writer.write(type)
        }
        return writer.bytes
    }

    static func payload(_ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter()
        body(&writer)
        return writer.bytes
    }

    /// A visual (`vide`) or audio (`soun`) sample entry of `format` with `children` after its fields.
    static func sampleEntry(_ format: FourCC, audio: Bool, children: [UInt8] = []) -> [UInt8] {
        box(format, payload { w in
            w.write(zeros: 6)
            w.write(UInt16(1))  // data_reference_index
            if audio {
                w.write(zeros: 8)               // version, revision, vendor
                w.write(UInt16(1))              // channels
                w.write(UInt16(16))             // sample size
                w.write(zeros: 4)               // compression id, packet size
                w.write(UInt32(44_100) << 16)   // rate, 16.16
            } else {
                w.write(zeros: 16)
                w.write(UInt16(16))
                w.write(UInt16(16))
                w.write(zeros: 50)
            }
            w.write(children)
        })
    }

    func bytes() -> [UInt8] {
        let ftyp = Self.box("ftyp", Self.payload { w in
            w.write("isom" as FourCC); w.write(UInt32(512)); w.write("isom" as FourCC); w.write("mp41" as FourCC)
        })
        // Two passes: the chunk offset depends on the moov's size, which does not depend on it.
        let draft = moov(chunkOffset: 0)
        let offset = UInt64(ftyp.count + draft.count + 8)
        let moov = moov(chunkOffset: offset)
        let mdat = Self.box("mdat", [UInt8](repeating: 0xAB, count: sampleCount * sampleSize))
        return ftyp + moov + mdat + [UInt8](repeating: 0, count: trailingBytes)
    }

    private func moov(chunkOffset: UInt64) -> [UInt8] {
        let duration = UInt64(sampleCount) * UInt64(delta)
        let entry = sampleEntry ?? Self.sampleEntry(handler == "soun" ? "mp4a" : "avc1", audio: handler == "soun")
        var stbl: [(FourCC, [UInt8])] = [
            ("stsd", Self.payload { w in w.writeVersion(0); w.write(UInt32(1)); w.write(entry) }),
            ("stts", Self.payload { TimeToSampleBox(entries: [.init(count: UInt32(sampleCount), delta: delta)]).writePayload(to: &$0) }),
            ("stsc", Self.payload { SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: UInt32(sampleCount), sampleDescriptionIndex: 1)]).writePayload(to: &$0) }),
            ("stsz", Self.payload { SampleSizeBox(sizes: .constant(size: UInt32(sampleSize), count: UInt32(sampleCount))).writePayload(to: &$0) }),
            ("stco", Self.payload { ChunkOffsetBox(offsets: [chunkOffset]).writePayload(to: &$0, wide: false) }),
        ]
        for (type, payload) in stblPayloads {
            if let index = stbl.firstIndex(where: { $0.0 == type }) { stbl[index].1 = payload } else { stbl.append((type, payload)) }
        }
        let stblBox = Self.box("stbl", stbl.flatMap { Self.box($0.0, $0.1) })
        let minf = Self.box("minf", stblBox)
        let mdia = Self.box("mdia",
            Self.box("mdhd", Self.payload { MediaHeaderBox(timescale: timescale, duration: duration).writePayload(to: &$0) })
            + Self.box("hdlr", Self.payload { HandlerBox(handlerType: handler, name: "tiny").writePayload(to: &$0) })
            + minf)
        var trak = Self.box("tkhd", Self.payload {
            TrackHeaderBox(trackID: 1, duration: duration * 1000 / UInt64(timescale), volume: 0, width: 0, height: 0).writePayload(to: &$0)
        })
        if let editList {
            trak += Self.box("edts", Self.box("elst", Self.payload { EditListBox(entries: editList).writePayload(to: &$0) }))
        }
        trak += mdia
        // Arrays appended whole: a joined sequence hands its bytes over one by one, which a debug
        // build does through the generic path (seconds for a moov of 70,000 sample entries).
        var children = Self.box("mvhd", Self.payload {
            MovieHeaderBox(timescale: 1000, duration: duration * 1000 / UInt64(timescale), nextTrackID: 2).writePayload(to: &$0)
        })
        let trakBox = Self.box("trak", trak)
        for _ in 0..<trackCount { children += trakBox }
        for extra in extraMoovBoxes { children += extra }
        return Self.box("moov", children)
    }
}
