import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// `tkhd` flag bit 0 says whether a track is presented; a disabled track is not the movie's video
/// or audio (an alternate angle, a commentary kept for later). Nor is a track without samples,
/// which some muxers leave (a stream that ended before its first packet).
@Suite("MP4 tracks: the enabled flag, empty tracks")
struct MP4EnabledTrackTests {
    /// `bytes` with the flags of the `index`-th `tkhd` box (in file order) set to `flags`.
    static func settingTrackFlags(_ bytes: [UInt8], index: Int, to flags: UInt8) throws -> [UInt8] {
        var result = bytes
        var found = 0
        for offset in 4..<(bytes.count - 8) where bytes[offset..<offset + 4].elementsEqual("tkhd".utf8) {
            if found == index {
                result[offset + 7] = flags  // version (1 byte), flags (3 bytes): the low byte holds bit 0
                return result
            }
            found += 1
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    @Test("a disabled video track is read but not presented; the audio track still is")
    func disabledVideo() throws {
        let folder = try MP4Fixtures.makeScratchFolder("enabled")
        defer { MP4Fixtures.remove(folder) }
        let original = try MP4Reader.read(path: FilePath(MP4Fixtures.content))
        let videoIndex = try #require(original.tracks.firstIndex { $0.kind == .video })
        #expect(original.tracks.allSatisfy { $0.isEnabled })

        let path = folder + "/disabled-video.mp4"
        try MP4Fixtures.write(try Self.settingTrackFlags(try MP4Fixtures.bytes(MP4Fixtures.content), index: videoIndex, to: 0x2), to: path)
        let movie = try MP4Reader.read(path: FilePath(path))
        #expect(movie.tracks[videoIndex].isEnabled == false)
        #expect(movie.videoTrack == nil)
        #expect(movie.audioTrack != nil)
    }

    /// content.mp4 with its audio track emptied: every table's count set to 0 (the entries left
    /// behind are padding the reader skips), its edit list kept, so it still claims 20 s.
    @Test("a track without samples is ignored: stitched, probed and packaged as if absent")
    func emptyTrackIgnored() throws {
        let folder = try MP4Fixtures.makeScratchFolder("empty-track")
        defer { MP4Fixtures.remove(folder) }
        var bytes = try MP4Fixtures.bytes(MP4Fixtures.content)
        let original = try MP4Reader.read(path: FilePath(MP4Fixtures.content))
        let audioIndex = try #require(original.tracks.firstIndex { $0.kind == .audio })
        let traks = MP4Bytes.boxes(in: bytes).filter { $0.path == "moov/trak" }
        let audio = traks[audioIndex]
        for box in MP4Bytes.boxes(in: bytes) where box.start > audio.start && box.end <= audio.end {
            // Full box header (12 bytes), then the count (stsz: after the constant sample size).
            let countAt = switch box.path.split(separator: "/").last! {
            case "stts", "stsc", "stco", "stss", "ctts": box.start + 12
            case "stsz": box.start + 16
            default: -1
            }
            guard countAt > 0 else { continue }
            bytes.replaceSubrange(countAt..<countAt + 4, with: [0, 0, 0, 0])
        }
        let path = folder + "/empty-audio.mp4"
        try MP4Fixtures.write(bytes, to: path)

        let movie = try MP4Reader.read(path: FilePath(path))
        #expect(movie.tracks[audioIndex].samples.count == 0)
        #expect(movie.audioTrack == nil)
        #expect(movie.naturalDuration == original.videoTrack?.presentationDuration)
        let plan = try MP4Stitcher(pieces: [piece(path, "0", "2"), piece(MP4Fixtures.content, "0", "2")]).plan()
        #expect(plan.pieces.map(\.sourceHasAudio) == [false, true])
        let packaging = try MP4Packaging(path: FilePath(path), container: .mpegTS, targetDuration: MediaTime(seconds: 6))
        #expect(packaging.audio == nil && packaging.video != nil)
    }
}
