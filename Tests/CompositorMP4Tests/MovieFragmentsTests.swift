import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Fragmented MP4 read into the sample model, without ffmpeg: the project's own fMP4 packaging of
/// a fixture (init segment and media segments, back to back: a fragmented file) reads back as the
/// source's samples, and broken fragments are refused naming the box and byte.
@Suite("Movie fragments")
struct MovieFragmentsTests {
    /// `content.mp4` packaged as fMP4 segments of about 2 s, concatenated after its init segment;
    /// the byte ranges of the init segment and of each media segment.
    static func fragmentedContent() throws -> (bytes: [UInt8], initSection: Range<UInt64>, segments: [Range<UInt64>]) {
        let packaging = try MP4Packaging(path: FilePath(MP4Fixtures.content), container: .fragmentedMP4, targetDuration: s(2))
        var writer = try packaging.segmentWriter()
        var bytes = try #require(writer.initSegment())
        let initSection = 0..<UInt64(bytes.count)
        var segments: [Range<UInt64>] = []
        var segment = OutputBytes()
        for index in packaging.segments.indices {
            let start = UInt64(bytes.count)
            try writer.segment(index, into: &segment)
            segment.withUnsafeBytes { bytes += $0 }
            segments.append(start..<UInt64(bytes.count))
        }
        return (bytes, initSection, segments)
    }

    /// Read as an HLS source (the init section and segments as byte ranges of one file), the
    /// packaging gives back the source's samples, timed as the source times them (its video at 0,
    /// its audio's priming hidden), and its bytes.
    @Test("the project's own fMP4 segments read back as the source's samples, placed as it places them")
    func roundTrip() throws {
        let (bytes, initSection, ranges) = try Self.fragmentedContent()
        let original = try MP4Reader.read(path: FilePath(MP4Fixtures.content))
        try Robust.withFile(bytes) { path in
            let source = HLSSegmentSource(
                playlist: FilePath(path), container: .fragmentedMP4(initSection: .init(path: FilePath(path), byteRange: initSection)),
                segments: ranges.map { HLSSegmentSource.Segment(path: FilePath(path), byteRange: $0, duration: s(2)) })
            var budget = MP4SampleBudget.movie
            let movie = try MP4Reader.read(source, budget: &budget)
            for kind in [TrackKind.video, .audio] {
                let read = try #require(movie.tracks.first { $0.kind == kind }), expected = try #require(original.tracks.first { $0.kind == kind })
                #expect(read.samples.sizes == expected.samples.sizes, "\(kind)")
                #expect(read.samples.durations == expected.samples.durations, "\(kind)")
                #expect(read.samples.decodeTimes == expected.samples.decodeTimes, "\(kind)")
                #expect((0..<read.samples.count).map(read.samples.isSync) == (0..<expected.samples.count).map(expected.samples.isSync))
                let timeline = try SourceTrackTimeline(track: read, file: path)
                let expectedTimeline = try SourceTrackTimeline(track: expected, file: path)
                #expect(timeline.presentationStart == expectedTimeline.presentationStart, "\(kind)")
                #expect(try timeline.mediaTime(at: s(3)) == (try expectedTimeline.mediaTime(at: s(3))), "\(kind)")
            }
            // Every sample's bytes are the source's: layout positions count the segments' bytes
            // back to back, here the file's bytes after the init section.
            let file = try ReadableFile(path: FilePath(path)), originalFile = try ReadableFile(path: FilePath(MP4Fixtures.content))
            let video = try #require(movie.videoTrack), originalVideo = try #require(original.videoTrack)
            for index in [0, 1, 47, 48, video.samples.count - 1] {
                let size = Int(video.samples.sizes[index])
                #expect(try file.read(at: video.samples.offsets[index] + initSection.upperBound, count: size)
                        == originalFile.read(at: originalVideo.samples.offsets[index], count: size), "sample \(index)")
            }

            // Read as a file, the same bytes have no edit list to hide the audio's priming
            // (1,024 samples at 48 kHz): it presents from 0, the video after it.
            let asFile = try MP4Reader.read(path: FilePath(path))
            #expect(asFile.videoTrack?.samples.sizes == original.videoTrack?.samples.sizes)
            #expect(try SourceTrackTimeline(track: #require(asFile.videoTrack), file: path).presentationStart == MediaTime(value: 1024, timescale: 48000))
        }
    }

    /// Each case breaks the first `trun` (or `tfhd`) of the fragmented content at a field.
    struct Broken: CustomTestStringConvertible, Sendable {
        let name: String
        let box: String
        /// Bytes after the box's header where the field is, and its new value.
        let field: Int
        let value: UInt32
        let reason: String
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(name: "a sample count past the box", box: "trun", field: 4, value: 0x00FF_FFFF,
               reason: "trun claims 16777215 entries of 16 bytes"),
        Broken(name: "a data offset past the file", box: "trun", field: 8, value: 0x7FFF_0000,
               reason: "is outside the"),
        Broken(name: "a track the moov does not have", box: "tfhd", field: 4, value: 9,
               reason: "a fragment of track 9, which the moov does not have"),
    ]

    @Test("broken fragments are malformed, named by box and byte", arguments: broken)
    func brokenFragments(_ testCase: Broken) throws {
        var (bytes, _, _) = try Self.fragmentedContent()
        let first = try #require(Self.find(testCase.box, in: bytes))
        let at = first + 8 + testCase.field
        bytes.replaceSubrange(at..<(at + 4), with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: testCase.value >> $0) })
        _ = try Robust.withFile(bytes) { path in
            #expect { try MP4Reader.read(path: FilePath(path)) } throws: { error in
                guard case .malformed(let file, let boxPath, _, let reason) = error as? MP4Error else { return false }
                return file == path && boxPath.hasPrefix("moof/traf[0]/\(testCase.box)") && reason.contains(testCase.reason)
            }
        }
    }

    /// The last fragment's video `tfdt` moved by `delta` ticks (12,288 a second, 512 a frame):
    /// within half a frame it is jitter, later a gap the frame before fills, earlier malformed.
    @Test("a tfdt off where the fragments before end: jitter, a gap, or malformed", arguments: [100, 5000, -5000])
    func decodeTimeJumps(delta: Int) throws {
        var (bytes, _, _) = try Self.fragmentedContent()
        let original = try MP4Reader.read(path: FilePath(MP4Fixtures.content))
        // Each moof has the video's traf, then the audio's: the video's tfdt of the last is the
        // last but one.
        let pattern = Array("tfdt".utf8)
        let boxes = (4..<(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == pattern }.map { $0 - 4 }
        let at = boxes[boxes.count - 2] + 12
        let value = bytes[at..<(at + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let moved = UInt64(Int64(value) + Int64(delta))
        bytes.replaceSubrange(at..<(at + 8), with: stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: moved >> UInt64($0)) })
        try Robust.withFile(bytes) { path in
            let result = Result { try MP4Reader.read(path: FilePath(path)) }
            let durations = try? result.get().videoTrack?.samples.durations
            let expected = try #require(original.videoTrack?.samples.durations)
            switch delta {
            case 100: #expect(durations == expected)
            case 5000:
                // The frame before the last fragment lasts until it starts.
                let index = try #require(durations?.firstIndex { $0 != 512 })
                #expect(durations?[index] == UInt32(512 + 5000))
            default:
                #expect { try result.get() } throws: { error in
                    guard case .malformed(_, let boxPath, _, let reason) = error as? MP4Error else { return false }
                    return boxPath.hasPrefix("moof/traf") && reason == "the fragment decodes 5000 ticks before the track's fragments before end"
                }
            }
        }
    }

    /// The offset of the first box of `type` (a crude search: the fixtures' payloads do not hold
    /// these four letters before the box).
    static func find(_ type: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        guard let index = (0..<(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == pattern }) else { return nil }
        return index - 4
    }
}
