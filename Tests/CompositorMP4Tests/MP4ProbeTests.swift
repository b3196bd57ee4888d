import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Natural durations as `AVAsset.duration` defines them: the longest track, edit lists honoured.
@Suite("MP4 probe")
struct MP4ProbeTests {
    @Test("natural duration and track layout of each fixture", arguments: [
        (MP4Fixtures.content, "20", true, true),
        (MP4Fixtures.content2, "16", true, true),
        (MP4Fixtures.ad1, "10", true, true),
        (MP4Fixtures.ad2, "7", true, true),          // audio (7 s) outlasts video (6.006 s)
        (MP4Fixtures.videoOnly, "2", true, false),
        (MP4Fixtures.audioOnly, "2", false, true),
    ])
    func fixture(path: String, duration: String, hasVideo: Bool, hasAudio: Bool) throws {
        let result = try MP4Reader.read(path: FilePath(path)).summary
        #expect(result.naturalDuration == (try MediaTime(parsing: duration)))
        #expect(result.hasVideo == hasVideo)
        #expect(result.hasAudio == hasAudio)
        if let video = result.video {
            #expect(video.codec == "avc1")
            #expect(video.width == 320 && video.height == 180)
        }
        if let audio = result.audio {
            #expect(audio.codec == "mp4a")
            #expect(audio.sampleRate == 48000 || audio.sampleRate == 44100)
        }
    }

    @Test("the 29.97 fps video track's own duration is exact: 180 frames of 1001/30000 s")
    func exactVideoDuration() throws {
        let result = try MP4Reader.read(path: FilePath(MP4Fixtures.ad2)).summary
        #expect(result.video?.duration == MediaTime(value: 180_180, timescale: 30000))
        #expect(result.audio?.channelCount == 1)
    }

    @Test("a missing file is a typed error naming it")
    func missing() {
        let path = MP4Fixtures.path("no-such-clip.mp4")
        #expect(throws: MP4Error.fileNotFound(file: path)) { try MP4Reader.read(path: FilePath(path)).summary }
    }
}
