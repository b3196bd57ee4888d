import CompositorCore

/// Silent audio as fragmented MP4: AAC-LC at 48 kHz in stereo, every frame silent
/// (`SilentAACFrame`), one track (ID 1) on its own.
///
/// A DASH export gives it to a period whose piece has no audio (a video-only bumper) when other
/// periods have audio. Players that feed one audio buffer across periods (a browser's Media
/// Source Extensions; GStreamer's playbin3, measured) wait at a period without audio for audio
/// that never comes; with silence they play through, as they would through silent audio in the
/// piece.
///
/// ```
/// periods   | content (audio) | bumper (video only) | content (audio) |
/// audio       content-audio-…   silence-N.m4s         content-audio-…
/// ```
package enum SilentAudioFragments {
    /// Samples a second, which is also the track's timescale.
    package static let sampleRate: Int32 = 48_000
    /// Samples in a frame.
    package static let samplesPerFrame = 1024

    /// AudioSpecificConfig: object type 2 (AAC-LC), frequency index 3 (48 kHz), channel
    /// configuration 2, 1024 samples a frame.
    private static var config: [UInt8] { [0x11, 0x90] }

    /// The sample entry (`mp4a`), read back from the bytes written (never `nil`: tested). Made
    /// when asked, not kept in a global: LeakSanitizer reports a global's buffers as leaked.
    package static var description: MP4SampleDescription? {
        try? MP4SampleDescription(
            entry: ByteReader(SampleEntryWriter.mp4a(sampleRate: Int(sampleRate), channelCount: 2, audioSpecificConfig: config)),
            handler: "soun")
    }

    /// The init segment: `ftyp` and `moov` with the silent track, no samples.
    package static func initSegment(_ description: MP4SampleDescription) -> [UInt8] {
        FragmentedMP4SegmentWriter.initSegment([.init(trackID: 1, isVideo: false, timescale: sampleRate, description: description)])
    }

    /// One silent frame. The AudioSpecificConfig above is AAC-LC in stereo, for which
    /// `SilentAACFrame` always has a frame.
    static var frame: [UInt8] { (try? AudioSpecificConfig(bytes: config)).flatMap(SilentAACFrame.bytes(for:)) ?? [] }

    /// The frames of a silent track whose frame `k` presents from `k` x 1,024 samples that start
    /// inside `range` (times from the track's 0): the first's index and how many.
    ///
    /// - Throws: `MediaTimeError` when the range in samples does not fit 64 bits.
    static func frames(startingIn range: MediaTimeRange) throws(MediaTimeError) -> (first: Int64, count: Int) {
        let first = try framesBefore(range.start), end = try framesBefore(range.end)
        return (first, Int(clamping: max(0, end - first)))
    }

    /// How many frames play at least `duration`.
    ///
    /// - Throws: `MediaTimeError` when `duration` in samples does not fit 64 bits.
    package static func frames(lasting duration: MediaTime) throws(MediaTimeError) -> Int {
        Int(try framesBefore(duration))
    }

    /// How many frames from 0 start before `time`: its samples divided by a frame's, rounded up.
    private static func framesBefore(_ time: MediaTime) throws(MediaTimeError) -> Int64 {
        let samples = max(0, try time.converted(to: sampleRate, rounding: .up).value)
        let frame = Int64(samplesPerFrame)
        // Rounded up without adding to `samples`, which may be near Int64.max.
        return samples / frame + (samples % frame == 0 ? 0 : 1)
    }

    /// The `traf` of `count` silent frames (`frameSize` bytes each) of track `trackID`, decoding
    /// from `decodeTime`, each `frameDuration` ticks of the track's timescale (1,024 at 48 kHz),
    /// their bytes `dataOffset` from the start of the `moof`.
    static func writeTrackFragment(trackID: UInt32, decodeTime: UInt64, count: Int, frameDuration: UInt32 = UInt32(samplesPerFrame),
                                   frameSize: Int, dataOffset: Int32, to writer: inout ByteWriter) {
        writer.writeBox("traf") { traf in
            traf.write(box: TrackFragmentHeaderBox(trackID: trackID))
            traf.write(box: TrackFragmentDecodeTimeBox(baseMediaDecodeTime: decodeTime))
            traf.write(box: TrackFragmentRunBox(
                sampleCount: UInt32(count), dataOffset: dataOffset,
                durations: Array(repeating: frameDuration, count: count),
                sizes: Array(repeating: UInt32(frameSize), count: count),
                flags: Array(repeating: TrackFragmentRunBox.syncSampleFlags, count: count), compositionOffsets: nil))
        }
    }

    /// One media segment (`moof` numbered `sequenceNumber`, `mdat`) of `frames` silent frames,
    /// decoding from `decodeTime` (in samples).
    package static func segment(frames: Int, decodeTime: UInt64 = 0, sequenceNumber: UInt32) -> [UInt8] {
        let frame = self.frame
        let count = max(0, frames)
        func moof(dataOffset: Int32) -> [UInt8] {
            ByteWriter.bytes { writer in
                writer.writeBox("moof") { moof in
                    moof.write(box: MovieFragmentHeaderBox(sequenceNumber: sequenceNumber))
                    writeTrackFragment(trackID: 1, decodeTime: decodeTime, count: count, frameSize: frame.count, dataOffset: dataOffset, to: &moof)
                }
            }
        }
        let payload = frame.count * count
        let measured = moof(dataOffset: 0).count
        var writer = ByteWriter()
        writer.write(moof(dataOffset: Int32(clamping: measured + 8)))
        writer.writeBoxHeader("mdat", payloadSize: UInt64(payload))
        for _ in 0..<count { writer.write(frame) }
        return writer.bytes
    }
}
