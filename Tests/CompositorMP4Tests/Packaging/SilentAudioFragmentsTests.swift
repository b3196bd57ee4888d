import Testing
@testable import CompositorCore
@testable import CompositorMP4

/// Silent AAC-LC audio as fragmented MP4, for a DASH period whose piece has no audio: as many
/// 1024-sample frames as cover the piece, at 48 kHz.
@Suite("Silent audio fragments")
struct SilentAudioFragmentsTests {
    @Test func theSampleEntryIsAACLowComplexityInStereoAt48kHz() throws {
        let description = try #require(SilentAudioFragments.description)
        #expect(description.rfc6381Codec == "mp4a.40.2")
        guard case .aac(let config) = description.codec else { Issue.record("not AAC: \(description.codec)"); return }
        #expect(config.sampleRate == 48_000)
        #expect(config.channelConfiguration == 2)
    }

    /// piece       |0 ........................ d|
    /// frames      |1024|1024| ... |1024|          the fewest whose total reaches d
    @Test(arguments: [
        (MediaTime.zero, 0),
        (MediaTime(value: 1, timescale: 48_000), 1),
        (MediaTime(value: 1024, timescale: 48_000), 1),
        (MediaTime(value: 1025, timescale: 48_000), 2),
        (MediaTime(seconds: 2), 94),  // 96,000 samples: 93.75 frames
        (MediaTime(value: 1001, timescale: 30_000), 2),  // 1601.6 samples, rounded up
    ])
    func framesCoverTheDuration(_ duration: MediaTime, _ frames: Int) throws {
        #expect(try SilentAudioFragments.frames(lasting: duration) == frames)
    }

    @Test func aSegmentStartsAtItsDecodeTimeAndHoldsItsFrames() throws {
        let description = try #require(SilentAudioFragments.description)
        let initSegment = SilentAudioFragments.initSegment(description)
        let segment = SilentAudioFragments.segment(frames: 94, decodeTime: 96_000, sequenceNumber: 3)
        let start = try FragmentDecodeTime.start(initSection: initSegment, initName: "silence-init.mp4", segment: segment, segmentName: "silence-1.m4s")
        #expect(start == MediaTime(seconds: 2))
        // moof, then an mdat of 94 equal frames.
        var reader = ByteReader(segment)
        let moof = try MP4BoxHeader.read(from: &reader, available: UInt64(segment.count))
        #expect(moof.type == "moof")
        try reader.skip(Int(moof.size) - moof.headerSize)
        let mdat = try MP4BoxHeader.read(from: &reader, available: UInt64(reader.remaining))
        #expect(mdat.type == "mdat")
        #expect((Int(mdat.size) - mdat.headerSize) % 94 == 0 && reader.remaining == Int(mdat.size) - mdat.headerSize)
    }
}
