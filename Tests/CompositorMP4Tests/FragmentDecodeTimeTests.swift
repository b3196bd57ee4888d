import CompositorTestSupport
import Testing
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Where a fragmented MP4 segment starts on its stream's clock: the video track fragment's
/// `tfdt`, by its track's `mdhd` timescale; the first track fragment's without video. Anything
/// else is a typed error naming the file.
@Suite("Fragmented MP4: a segment's decode time")
struct FragmentDecodeTimeTests {
    /// `fixture` packaged into fragmented MP4, its last segment up to the second placed to
    /// present from 7202 s: its init section and its bytes.
    static func segment(_ fixture: String) throws -> (initSection: [UInt8], segment: [UInt8]) {
        let packaging = try MP4Packaging(
            movie: try MP4Reader.read(path: FilePath(MP4Fixtures.path(fixture))), container: .fragmentedMP4, targetDuration: MediaTime(seconds: 2), cuts: [])
        var writer = try packaging.segmentWriter()
        var stream = PackagedStream(), bytes = OutputBytes()
        let index = min(1, packaging.segments.count - 1)
        let placement = SegmentPlacement(piece: packaging.segments[index].range, compositionStart: MediaTime(seconds: 2), clockStart: MediaTime(seconds: 7200))
        try writer.segment(index, placedAt: placement, continuing: &stream, into: &bytes)
        return (try #require(writer.initSegment()), bytes.withUnsafeBytes { Array($0) })
    }

    @Test func theVideoTracksDecodeTime() throws {
        // content.mp4: H.264 with B-frames at 1/12288, AAC at 1/48000. Segment 1 presents from
        // 7202 s; its video decodes two frames (2/24 s) earlier, its audio from 7202 s.
        let (initSection, segment) = try Self.segment("content.mp4")
        let start = try FragmentDecodeTime.start(initSection: initSection, initName: "init.mp4", segment: segment, segmentName: "seg1.m4s")
        #expect(start.timescale == 12288)
        #expect(start == MediaTime(seconds: 7202) - MediaTime(value: 2, timescale: 24))
    }

    @Test func withoutVideoTheFirstTrackFragments() throws {
        let (initSection, segment) = try Self.segment("jingle-audio-only.mp4")
        let start = try FragmentDecodeTime.start(initSection: initSection, initName: "init.mp4", segment: segment, segmentName: "seg1.m4s")
        #expect(start.timescale == 44100 || start.timescale == 48000)
        #expect(abs((start - MediaTime(seconds: 7202)).seconds) < 0.05)
    }

    /// Byte offsets are the file's: what an error names is where the bytes are.
    @Test func badBytesSayWhichFileAndWhy() throws {
        let (initSection, segment) = try Self.segment("content.mp4")
        func failure(_ initBytes: [UInt8], _ segmentBytes: [UInt8]) -> String {
            do {
                _ = try FragmentDecodeTime.start(initSection: initBytes, initName: "init.mp4", segment: segmentBytes, segmentName: "seg1.m4s")
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(failure(segment, segment).contains("init.mp4"))
        #expect(failure(segment, segment).contains("no moov box"))
        #expect(failure(initSection, initSection).contains("seg1.m4s"))
        #expect(failure(initSection, initSection).contains("no moof box"))
        #expect(failure(initSection, Array(segment.prefix(40))).contains("seg1.m4s"))
        #expect(failure(initSection, []).contains("no moof box"))
        // A track fragment of a track the init section does not have: tfhd's track ID made 9.
        let tfhd = try #require(segment.indices.first { Array(segment[$0..<min($0 + 4, segment.count)]) == Array("tfhd".utf8) })
        var renumbered = segment
        renumbered[tfhd + 8..<tfhd + 12] = [0, 0, 0, 9]  // after the type, version and flags
        #expect(failure(initSection, renumbered).contains("track 9 is no track of the init section init.mp4"))
    }
}
