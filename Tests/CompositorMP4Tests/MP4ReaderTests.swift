import Foundation
import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Reading the fixtures: what `Fixtures/generate.sh` asked ffmpeg for must come back out, and the
/// sample tables must agree packet by packet with what ffprobe reads.
@Suite("MP4 reader")
struct MP4ReaderTests {
    @Test("content.mp4: 24 fps H.264 with B-frames, GOP 48, AAC 48 kHz stereo with priming")
    func contentClip() throws {
        let movie = try MP4Reader.read(path: FilePath(MP4Fixtures.content))
        let video = try #require(movie.videoTrack)
        let audio = try #require(movie.audioTrack)

        #expect(video.samples.count == 20 * 24)
        #expect(video.presentationDuration == MediaTime(seconds: 20))
        #expect(!video.samples.compositionOffsets.isEmpty, "B-frames need composition offsets")
        let keyframes = (0..<video.samples.count).filter(video.samples.isSync)
        #expect(keyframes == Array(stride(from: 0, to: 480, by: 48)))
        // Every frame lasts 1/24 s.
        #expect(video.samples.durations.allSatisfy { MediaTime(value: Int64($0), timescale: video.timescale) == MediaTime(value: 1, timescale: 24) })

        let description = try #require(video.sampleDescriptions.first)
        #expect(description.format == "avc1")
        #expect(description.width == 320 && description.height == 180)
        guard case .avc(let avc) = description.codec else { Issue.record("no avcC"); return }
        #expect(avc.profile == 100)  // High
        #expect(avc.sequenceParameterSets.count == 1 && avc.pictureParameterSets.count == 1)
        #expect(avc.nalLengthSize == 4)

        let audioDescription = try #require(audio.sampleDescriptions.first)
        guard case .aac(let asc) = audioDescription.codec else { Issue.record("no AAC config"); return }
        #expect(asc.objectType == 2 && asc.sampleRate == 48000 && asc.channelConfiguration == 2)
        #expect(asc.samplesPerFrame == 1024)
        #expect(audio.timescale == 48000)
        // ffmpeg's AAC encoder primes with 1024 samples and hides them with the edit list.
        #expect(audio.priming == 1024)
        #expect(audio.presentationDuration == MediaTime(seconds: 20))
        #expect(movie.naturalDuration == MediaTime(seconds: 20))
    }

    @Test("content2.mp4: signed composition offsets (ctts version 1) are read as negative")
    func signedCompositionOffsets() throws {
        let movie = try MP4Reader.read(path: FilePath(MP4Fixtures.content2))
        let video = try #require(movie.videoTrack)
        #expect(video.samples.compositionOffsets.contains { $0 < 0 })
        #expect(video.samples.count == 16 * 25)
        #expect(video.editList?.first?.mediaTime == 0)
    }

    @Test("ad2.mp4: 29.97 fps video of 6.006 s, audio of 7 s: the natural duration is the audio's")
    func longerAudio() throws {
        let movie = try MP4Reader.read(path: FilePath(MP4Fixtures.ad2))
        let video = try #require(movie.videoTrack)
        let audio = try #require(movie.audioTrack)
        #expect(video.timescale == 30000)
        #expect(video.samples.durations.allSatisfy { $0 == 1001 })
        #expect(video.presentationDuration == MediaTime(value: 180 * 1001, timescale: 30000))
        #expect(audio.presentationDuration == MediaTime(seconds: 7))
        #expect(movie.naturalDuration == MediaTime(seconds: 7))
        guard case .aac(let asc)? = audio.sampleDescriptions.first?.codec else { Issue.record("no AAC config"); return }
        #expect(asc.sampleRate == 44100 && asc.channelConfiguration == 1)
    }

    @Test("tracks that are absent are absent", arguments: [
        (MP4Fixtures.videoOnly, true, false),
        (MP4Fixtures.audioOnly, false, true),
    ])
    func missingTracks(path: String, hasVideo: Bool, hasAudio: Bool) throws {
        let movie = try MP4Reader.read(path: FilePath(path))
        #expect((movie.videoTrack != nil) == hasVideo)
        #expect((movie.audioTrack != nil) == hasAudio)
        #expect(movie.naturalDuration == MediaTime(seconds: 2))
    }

    @Test("sample positions, sizes, keyframes and composition offsets agree with ffprobe's packets", .needsFFmpeg,
          arguments: [MP4Fixtures.content, MP4Fixtures.content2, MP4Fixtures.ad1, MP4Fixtures.ad2])
    func agreesWithFFprobe(path: String) async throws {
        let tools = try FFmpeg.require()
        let movie = try MP4Reader.read(path: FilePath(path))
        for (streamIndex, track) in movie.tracks.enumerated() {
            let output = try await ChildProcess.run(tools.ffprobe, [
                "-v", "error", "-select_streams", "\(streamIndex)", "-show_entries", "packet=pos,size,flags,pts,dts",
                "-of", "compact=p=0:nk=0", path,
            ])
            #expect(output.status == 0, "\(output.stderr)")
            let packets = output.stdout.split(separator: "\n").map { line in
                Dictionary(uniqueKeysWithValues: line.split(separator: "|").compactMap { field -> (String, String)? in
                    let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                    return pair.count == 2 ? (pair[0], pair[1]) : nil
                })
            }
            #expect(packets.count == track.samples.count, "\(path) stream \(streamIndex)")
            guard packets.count == track.samples.count else { continue }
            var ptsMinusDts: Set<Int64> = []
            for (index, packet) in packets.enumerated() {
                #expect(UInt64(packet["pos"]!) == track.samples.offsets[index], "sample \(index)")
                #expect(UInt32(packet["size"]!) == track.samples.sizes[index], "sample \(index)")
                #expect(packet["flags"]!.hasPrefix("K") == track.samples.isSync(index), "sample \(index)")
                if let pts = Int64(packet["pts"]!), let dts = Int64(packet["dts"]!) {
                    // ffmpeg shifts all timestamps by a per-track constant; the offsets must match up to it.
                    ptsMinusDts.insert(pts - dts - track.samples.compositionOffset(index))
                }
            }
            #expect(ptsMinusDts.count <= 1, "composition offsets differ from ffprobe's pts - dts: \(ptsMinusDts)")
        }
    }
}
