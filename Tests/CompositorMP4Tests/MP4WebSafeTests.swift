import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// The web-safe output: keyframe-aligned cuts, one sample description per track, one edit per
/// track. web-ad.mp4 (H.264 Main, 30 fps) and content.mp4 / content2.mp4 (High, 24 and 25 fps)
/// share the content's audio format (AAC-LC 48 kHz stereo) but not their SPS / PPS.
@Suite("MP4 stitcher, web-safe output")
struct MP4WebSafeTests {
    /// ```
    /// pieces:  web-ad [0,5) | content [0,8.5) | web-ad [0,6) | content [8.5,20) | content2 [3,16)
    /// plays:   web-ad [0,5) | content [0,8)   | web-ad [0,6) | content [8,20)   | content2 [1.92,16)
    /// video:   one avc3 entry; each piece's first sample and every keyframe starts with its
    ///          source's SPS and PPS
    /// audio:   one mp4a entry (the sources' configurations are equal)
    /// ```
    @Test("differing parameter sets share one avc3 entry, carried in-band at every keyframe", .needsFFmpeg)
    func parameterSetsInBand() async throws {
        let pieces = [
            piece(MP4Fixtures.webAd, "0", "5"), piece(MP4Fixtures.content, "0", "8.5"), piece(MP4Fixtures.webAd, "0", "6"),
            piece(MP4Fixtures.content, "8.5", "20"), piece(MP4Fixtures.content2, "3", "16"),
        ]
        let plan = try #require(try await stitchAndJudge(cutMode: .webSafe, pieces))
        #expect(plan.pieces.map(\.sourceRange.start) == (try ["0", "0", "0", "8", "1.92"].map { (text) throws -> MediaTime in try MediaTime(parsing: text) }))

        let folder = try MP4Fixtures.makeScratchFolder()
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/web.mp4"
        try MP4Stitcher(pieces: pieces, cutMode: .webSafe).stitch(to: FilePath(output))
        let movie = try MP4Reader.read(path: FilePath(output))
        let video = try #require(movie.videoTrack)
        let audio = try #require(movie.audioTrack)
        #expect(video.sampleDescriptions.map(\.format) == ["avc3"])
        #expect(audio.sampleDescriptions.map(\.format) == ["mp4a"])
        #expect(video.editList?.count == 1)
        #expect(audio.editList?.count == 1)

        // Every keyframe's first NAL units are its own source's SPS and PPS, in order of the pieces.
        let bytes = try MP4Fixtures.bytes(output)
        var sources: [String] = []
        for index in 0..<video.samples.count where video.samples.isSync(index) {
            let start = Int(video.samples.offsets[index])
            let units = MP4Bytes.nalUnits(bytes[start..<start + Int(video.samples.sizes[index])], count: 2)
            let source = try [MP4Fixtures.webAd, MP4Fixtures.content, MP4Fixtures.content2].first { path in
                guard case .avc(let config)? = try MP4Reader.read(path: FilePath(path)).videoTrack?.sampleDescriptions.first?.codec else { return false }
                return units == config.sequenceParameterSets + config.pictureParameterSets
            }
            sources.append(source.map { ($0 as NSString).lastPathComponent } ?? "none")
        }
        let runs = sources.reduce(into: [String]()) { runs, name in if runs.last != name { runs.append(name) } }
        #expect(runs == ["web-ad.mp4", "content.mp4", "web-ad.mp4", "content.mp4", "content2.mp4"])
    }

    /// bumper-video-only.mp4 and web-ad.mp4 have the same SPS and PPS in sample entries that differ
    /// (bit rates): one `avc1` entry, nothing in-band, every sample its source's size.
    @Test("equal parameter sets share one avc1 entry and nothing is added", .needsFFmpeg)
    func equalParameterSets() async throws {
        let pieces = [piece(MP4Fixtures.videoOnly, "0", "2"), piece(MP4Fixtures.webAd, "0", "2")]
        let keyframe = try MP4Stitcher(pieces: pieces, cutMode: .keyframeAligned).plan()
        let web = try #require(try await stitchAndJudge(cutMode: .webSafe, pieces))
        #expect(web.outputSize < keyframe.outputSize)
        let folder = try MP4Fixtures.makeScratchFolder()
        defer { MP4Fixtures.remove(folder) }
        try MP4Stitcher(pieces: pieces, cutMode: .keyframeAligned).stitch(to: FilePath(folder + "/keyframe.mp4"))
        try MP4Stitcher(pieces: pieces, cutMode: .webSafe).stitch(to: FilePath(folder + "/web.mp4"))
        let two = try #require(try MP4Reader.read(path: FilePath(folder + "/keyframe.mp4")).videoTrack)
        let one = try #require(try MP4Reader.read(path: FilePath(folder + "/web.mp4")).videoTrack)
        #expect(two.sampleDescriptions.count == 2)
        #expect(one.sampleDescriptions.map(\.format) == ["avc1"])
        #expect(one.samples.sizes == two.samples.sizes)
    }

    /// ad1.mp4's audio is AAC-LC 44.1 kHz mono, content.mp4's 48 kHz stereo: no one description
    /// plays both, so nothing is written and the error says which and what to do instead.
    @Test("formats that cannot share a description are refused before writing")
    func differentAudioRefused() throws {
        let folder = try MP4Fixtures.makeScratchFolder()
        defer { MP4Fixtures.remove(folder) }
        let stitcher = MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "4"), piece(MP4Fixtures.ad1, "0", "2")], cutMode: .webSafe)
        #expect {
            try stitcher.stitch(to: FilePath(folder + "/web.mp4"))
        } throws: { error in
            guard case MP4Error.formatMismatch(.audio, "AAC-LC 48 kHz stereo", MP4Fixtures.content, "AAC-LC 44.1 kHz mono", MP4Fixtures.ad1) = error
            else { return false }
            return "\(error)".contains("Stitch them as HLS")
        }
        #expect(MP4Fixtures.listing(folder).isEmpty)
        // The same pieces cut on keyframes without the web-safe format write two descriptions.
        #expect(throws: Never.self) { try MP4Stitcher(pieces: stitcher.pieces, cutMode: .keyframeAligned).plan() }
    }
}
