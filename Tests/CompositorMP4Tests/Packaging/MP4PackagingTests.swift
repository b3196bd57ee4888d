import Testing
import CompositorTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Where an MP4 source is cut into segments, before a byte is written.
@Suite("MP4 packaging: segment boundaries")
struct MP4PackagingTests {
    static func boundaries(_ packaging: MP4Packaging) -> [MediaTime] {
        packaging.segments.map(\.range.start) + [packaging.duration]
    }

    /// content.mp4: 20 s, a keyframe every 2 s.
    ///
    /// ```
    /// keyframes  0  2  4  6  8  10 12 14 16 18  20
    /// target 6   |0 ------|6 ----|12 -----|18 --|     segments no longer than 6 s
    /// cut 8.5    |0 ------|6 |8 |10 -----|16 ---|     8 and 10 start segments too
    /// ```
    @Test("keyframes nearest the target duration, and the keyframes on either side of each cut")
    func contentBoundaries() throws {
        let path = FilePath(MP4Fixtures.content)
        let plain = try MP4Packaging(path: path, container: .mpegTS, targetDuration: s(6))
        #expect(Self.boundaries(plain) == [0, 6, 12, 18, 20].map { s($0) })
        let cut = try MP4Packaging(path: path, container: .mpegTS, targetDuration: s(6), cuts: [t("8.5"), s(0), s(20)])
        #expect(Self.boundaries(cut) == [0, 6, 8, 10, 16, 20].map { s($0) })
        // Every sample in exactly one segment, in order; the audio split where its frames start.
        let segments = cut.segments
        #expect(segments.first?.video.lowerBound == 0 && segments.last?.video.upperBound == 480)
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.video.upperBound == $1.video.lowerBound && $0.audio.upperBound == $1.audio.lowerBound })
        // The priming frame (presented before 0) goes with the first segment.
        #expect(segments[0].audio.lowerBound == 0)
    }

    @Test("a keyframe interval longer than the target: every keyframe starts a segment")
    func longGOP() throws {
        let packaging = try MP4Packaging(path: FilePath(MP4Fixtures.content), container: .fragmentedMP4, targetDuration: s(1))
        #expect(Self.boundaries(packaging) == stride(from: 0, through: 20, by: 2).map { s(Int64($0)) })
    }

    /// GStreamer flags x264's intra-refresh recovery points sync; decoding cannot start there,
    /// so no segment starts there (the clip's only IDR is its first picture). Its HEVC twin's CRA
    /// keyframes are decode starts, so they do start segments.
    @Test("segments start only where decoding can: intra-refresh points do not, CRA keyframes do")
    func decodeStarts() throws {
        let refresh = try MP4Packaging(path: FilePath(MP4Fixtures.path("muxers/gst-mp4mux-x264-intra-refresh.mp4")),
                                       container: .mpegTS, targetDuration: s(1))
        #expect(Self.boundaries(refresh) == [s(0), refresh.duration])  // the AAC ends at 3.008 s
        let openGOP = try MP4Packaging(path: FilePath(MP4Fixtures.path("muxers/gst-mp4mux-x265-hvc1.mp4")),
                                       container: .fragmentedMP4, targetDuration: s(1))
        #expect(Self.boundaries(openGOP) == [s(0), s(1), s(2), openGOP.duration])
    }

    @Test("an audio-only source is split at audio frames; a video-only one at keyframes")
    func oneTrack() throws {
        let audio = try MP4Packaging(path: FilePath(MP4Fixtures.audioOnly), container: .mpegTS, targetDuration: s(1))
        #expect(audio.segments.allSatisfy { $0.video.isEmpty && !$0.audio.isEmpty && $0.range.duration <= s(1) })
        #expect(audio.duration == s(2))
        let video = try MP4Packaging(path: FilePath(MP4Fixtures.videoOnly), container: .mpegTS, targetDuration: s(6))
        #expect(video.segments.count == 1 && video.segments[0].audio.isEmpty)
    }

    @Test("ad2.mp4: its audio runs past its video, so the last segment does too")
    func audioLongerThanVideo() throws {
        let packaging = try MP4Packaging(path: FilePath(MP4Fixtures.ad2), container: .mpegTS, targetDuration: s(2))
        #expect(packaging.duration == s(7))
        // Keyframes every 1.001 s up to 5.005: the last segment holds the last second of video and two of audio.
        #expect(packaging.segments.last?.range.start == MediaTime(value: 5005, timescale: 1000))
    }

    @Test("what the container cannot carry is refused before anything is written, naming the box")
    func refusals() {
        #expect {
            try MP4Packaging(path: FilePath(MP4Fixtures.mpeg4Video), container: .mpegTS, targetDuration: s(6))
        } throws: { error in
            guard case .unsupported(_, let boxPath, _, let reason) = error as? MP4Error else { return false }
            return boxPath == "moov/trak[0]/mdia/minf/stbl/stsd"
                && reason.hasPrefix("MPEG-4 Part 2 (mp4v, object type 0x20) video; MPEG-TS segments are packaged from H.264")
        }
        // Issue 50: MP3 travels as mp4a, as AAC does; the refusal says MP3.
        #expect {
            try MP4Packaging(path: FilePath(MP4Fixtures.folder + "/muxers/gst-mp4mux-x264-mp3.mp4"), container: .mpegTS, targetDuration: s(6))
        } throws: { error in
            guard case .unsupported(_, _, _, let reason) = error as? MP4Error else { return false }
            return reason.hasPrefix("MP3 (mp4a, object type 0x6B) audio; MPEG-TS segments are packaged from H.264 or HEVC video and AAC audio")
        }
        #expect(throws: MP4Error.self) {
            try MP4Packaging(path: FilePath(MP4Fixtures.folder + "/hls/ts/content/seg0.ts"), container: .mpegTS, targetDuration: s(6))
        }
    }

    /// The file shrinks after its sample tables were read: the segment that needs the bytes gone
    /// is refused, naming the file, in either container (TS reads a sample at a time, fMP4 a run
    /// of them straight into the segment).
    @Test("a source cut short while it is packaged is an error naming it", arguments: [MP4Packaging.Container.mpegTS, .fragmentedMP4])
    func sourceCutShort(_ container: MP4Packaging.Container) throws {
        let bytes = try ReadableFile.contents(of: FilePath(MP4Fixtures.content), limit: 1 << 24)
        try Robust.withFile(bytes) { path in
            let packaging = try MP4Packaging(path: FilePath(path), container: container, targetDuration: s(6))
            var writer = try packaging.segmentWriter()
            // content.mp4 keeps its moov last: cut into the mdat, a third of the way.
            #expect(truncate(path, off_t(bytes.count / 3)) == 0)
            var segment = OutputBytes()
            #expect {
                for index in packaging.segments.indices { try writer.segment(index, into: &segment) }
            } throws: { error in
                "\(error)".contains(path)
            }
        }
    }
}
