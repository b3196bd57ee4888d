import Foundation
import Testing
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// `tkhd` flag bit 0 says whether a track is presented; a disabled track is not the movie's video
/// or audio (an alternate angle, a commentary kept for later).
@Suite("MP4 tracks: the enabled flag")
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
}
