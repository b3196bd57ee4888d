import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Audio keeps its place in both cut modes, and audio in any codec joins when no silence must be
/// made. The clips are made here by ffmpeg: a 4 s video (a keyframe every second) whose tone
/// starts late, as a camera or an editor writes it (an empty edit, then the audio), in AAC and in
/// AC-3; and clips whose MP3 or AC-3 audio covers the whole video.
/// Silence is made only in AAC: any other audio that needs filling is refused.
@Suite("MP4 stitcher, audio placement", .needsFFmpeg)
struct MP4AudioPlacementTests {
    /// Where the tone plays is judged by decoding it (see `FFmpeg.loudSpans`), with 40 ms of slack:
    /// the judge's 10 ms windows, half a frame (keyframe mode takes whole frames) and the decoder's
    /// overlap. Before, keyframe mode played the tone from 0 and 6, half a second early.
    /// ```
    /// late.mp4 video   0 ───────────────────────── 4
    ///          audio         0.478 ─────────────── 4   (tone)
    ///
    /// pieces   late [0,4)                | late [1,3)  | late [0,2)
    /// tone     ·····0.478━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 6 ·····6.478━━━ 8
    /// ```
    @Test("audio that starts late keeps its offset, in both cut modes", arguments: MP4CutMode.allCases)
    func lateAudioKeepsItsPlace(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("late-audio")
        defer { MP4Fixtures.remove(folder) }
        let late = try await Self.lateAudioClip(in: folder, codec: "aac", tools: tools)
        let silent = try #require(try MP4Reader.read(path: FilePath(late)).audioTrack?.editList?.first)
        #expect(silent.isEmpty, "the clip starts its audio with an empty edit")

        let pieces = [piece(late, "0", "4"), piece(late, "1", "3"), piece(late, "0", "2")]
        let plan = try #require(try await stitchAndJudge(cutMode: mode, pieces))
        #expect(plan.duration == MediaTime(seconds: 8))
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: pieces, cutMode: mode).stitch(to: FilePath(output))
        let spans = try await tools.loudSpans(output)
        try #require(spans.count == 2, "\(spans)")
        expect(spans[0], near: 0.478...6)
        expect(spans[1], near: 6.478...8)
    }

    /// A piece without audio plays silence from the cut, not from the end of the AAC frame the cut
    /// falls in: the silence is an edit of its own, after one hidden silent frame that takes the
    /// last tone frame's overlap. Before, the silence followed that frame in the same edit and the
    /// tone ran 19.7 ms into the bumper (the A/V offset `Tests/players/av_offset.py` measured).
    /// ```
    /// pieces  content [0,2.007)      | bumper (no audio) [0,1) | content [3,4)
    /// sound   ━━━━━━━━━━━━━━━━━━ 2.007 ···················· 3.007 ━━━━━━━━━━ 4.007
    /// frames  ... |2.00533 ┊ 2.02667|   the cut is 1.7 ms into a frame (1024 samples at 48 kHz)
    /// ```
    @Test("sound stops at the cut before a piece without audio (sample-accurate)")
    func silenceStartsAtTheCut() async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("silence-at-cut")
        defer { MP4Fixtures.remove(folder) }
        let pieces = [piece(MP4Fixtures.content, "0", "2007/1000"), piece(MP4Fixtures.videoOnly, "0", "1"), piece(MP4Fixtures.content, "3", "4")]
        let plan = try #require(try await stitchAndJudge(cutMode: .sampleAccurate, pieces))
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: pieces, cutMode: .sampleAccurate).write(plan, to: FilePath(output))
        let sound = try await tools.placedSound(output)
        // 1 ms levels: loud is above 1 % of full scale (the tone is at 1/8).
        let loud = stride(from: 0, to: sound.count - 48, by: 48).map { start in
            (sound[start..<start + 48].map { $0 * $0 }.reduce(0, +) / 48).squareRoot() > 0.01
        }
        let stops = try #require(loud.indices.first { !loud[$0] })
        let resumes = try #require(loud.indices.dropFirst(stops).first { loud[$0] })
        #expect(abs(stops - 2007) <= 1, "the tone stops at \(stops) ms")
        // ffmpeg starts a later edit's audio at the first whole frame inside it, up to a frame early.
        #expect((3007 - 22)...3008 ~= resumes, "the tone resumes at \(resumes) ms")
    }

    /// Keyframe mode used to make silence for every piece, so any audio but AAC was refused even
    /// where nothing is missing. Whole clips and cuts at keyframes join in MP3 and AC-3.
    @Test("MP3 and AC-3 audio that covers the pieces joins in keyframe mode", arguments: ["libmp3lame", "ac3"])
    func otherCodecsNeedingNoSilence(codec: String) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("audio-codecs")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/clip.mp4"
        try await tools.make([
            "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2.2",
            "-c:v", "libx264", "-g", "10", "-c:a", codec, "-f", "mp4", clip,
        ])
        _ = try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clip, "0", "2")])
        _ = try await stitchAndJudge(cutMode: .keyframeAligned, [piece(clip, "0", "1"), piece(clip, "1", "2"), piece(clip, "0", "1")])
    }

    /// Late AC-3 needs silence before it, in either mode (keyframe mode has one edit per track;
    /// sample mode plays silence, not an empty edit, where ffmpeg would mishandle one), and only
    /// AAC silence can be made: refused naming the codec, the gap and what to do.
    @Test("late AC-3 audio is refused naming the codec and the gap", arguments: MP4CutMode.allCases)
    func lateOtherCodec(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("late-ac3")
        defer { MP4Fixtures.remove(folder) }
        let late = try await Self.lateAudioClip(in: folder, codec: "ac3", tools: tools)
        do {
            _ = try MP4Stitcher(pieces: [piece(late, "0", "2"), piece(late, "0", "2")], cutMode: mode).plan()
            Issue.record("late AC-3 planned")
        } catch {
            guard case .unsupported(let file, let boxPath, _, let reason) = error else { throw error }
            #expect(file == late)
            #expect(boxPath == "moov/trak[1]")
            // AC-3's 256 samples of encoder delay shorten the 0.5 s offset.
            #expect(reason.hasPrefix("piece 0 has no audio for 0.494 s, to be filled with silence"), "\(reason)")
            #expect(reason.contains("this audio is AC-3"), "\(reason)")
            #expect(reason.hasSuffix("Cut where the source has audio, or give the pieces AAC audio"), "\(reason)")
        }
        // Cut where the audio plays, it joins.
        _ = try await stitchAndJudge(cutMode: mode, [piece(late, "1", "2"), piece(late, "3", "4")])
    }

    /// HE-AAC is filled as AAC-LC is: with its core's silent frames, timed at the core's rate. No
    /// HE-AAC encoder is on this machine, so the clip is AAC-LC at 24 kHz whose configuration is
    /// rewritten to HE-AAC's explicit signalling (object type 5, SBR to 48 kHz, the LC core
    /// inside): decoders then run the SBR tool, at 48 kHz, over frames that carry no SBR data.
    /// What this cannot show is real SBR data meeting the silent frames.
    /// ```
    /// late.mp4 video   0 ───────────────────────── 4
    ///          audio         0.5 ───────────────── 4   (tone; HE-AAC, 48 kHz out of a 24 kHz core)
    /// pieces   late [0,2)   | late [0,2)
    /// tone     ····0.5━━━━━━ 2 ····2.5━━━━━━━━━━━━ 4
    /// ```
    @Test("HE-AAC (explicit SBR signalling) that starts late is filled with silence", arguments: MP4CutMode.allCases)
    func heAACFilledWithSilence(mode: MP4CutMode) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("he-aac")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/late-lc.mp4"
        try await tools.make([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4",
            "-itsoffset", "0.5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=24000:duration=3.5",
            "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-ar", "24000", "-ac", "2", "-f", "mp4", clip,
        ])
        let late = try Self.signallingHEAAC(clip, to: folder + "/late-he.mp4")
        guard case .aac(let config) = try #require(try MP4Reader.read(path: FilePath(late)).audioTrack?.sampleDescriptions.first).codec else {
            Issue.record("not AAC")
            return
        }
        #expect(config.objectType == 5 && config.coreObjectType == 2 && config.sampleRate == 24000)
        let probe = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-select_streams", "a", "-show_entries", "stream=profile,sample_rate",
                                                              "-of", "compact=p=0", late])
        #expect(probe.stdout.contains("sample_rate=48000"), "SBR doubles the rate: \(probe.stdout)")
        // The SBR tool delays the output against the stream's times (ffmpeg does not make up for
        // it), so the source's own onset is the reference; the decoder's tail blurs where a tone
        // stops, so ends are checked loosely.
        let onset = try #require(try await tools.loudSpans(late).first).lowerBound
        #expect(onset >= 0.5 && onset < 0.6, "the source's tone starts at \(onset)")

        let pieces = [piece(late, "0", "2"), piece(late, "0", "2")]
        _ = try #require(try await stitchAndJudge(cutMode: mode, pieces))
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: pieces, cutMode: mode).stitch(to: FilePath(output))
        let spans = try await tools.loudSpans(output)
        try #require(spans.count == 2, "\(spans)")
        #expect(abs(spans[0].lowerBound - onset) <= 0.02 && abs(spans[1].lowerBound - (2 + onset)) <= 0.02, "\(spans)")
        #expect(abs(spans[0].upperBound - 2) <= 0.1 && abs(spans[1].upperBound - 4) <= 0.1, "\(spans)")
    }

    /// Opus: its decoder discards `PreSkip` samples (312 from libopus) at the start of the stream,
    /// whatever the edit list hides, so the output's first audio edit must hide at least that
    /// much, as the source's does. Judged by where the tone's onset (at 0.5 s in the source)
    /// decodes, to the sample. Before, keyframe mode showed the first frame from 0 (the tone
    /// 312 samples late, the audio 312 short) and a sample-accurate cut within 312 samples of a
    /// frame start hid less than the decoder discarded (the same). Sample-accurate pieces also
    /// decode 80 ms before their cut (RFC 7845's pre-roll), hidden.
    /// ```
    /// keyframe         opus [0,3)                 onset at 0.5 s
    /// sample-accurate  opus [27/2000,3)           onset at 0.5 - 0.0135 s (a cut 648 samples
    ///                                             into the source, 312 before a frame start)
    /// ```
    @Test("Opus: the decoder's pre-skip is hidden by the first edit", arguments: [
        (MP4CutMode.keyframeAligned, "0"), (MP4CutMode.sampleAccurate, "27/2000"), (MP4CutMode.sampleAccurate, "0.2"),
    ])
    func opusPreSkip(mode: MP4CutMode, start: String) async throws {
        let tools = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("opus")
        defer { MP4Fixtures.remove(folder) }
        let clip = folder + "/opus.mp4"
        try await tools.make(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=3",
                              "-f", "lavfi", "-i", "aevalsrc=if(gte(t\\,0.5)\\,0.5*sin(2*PI*440*t)\\,0):s=48000:d=3",
                              "-c:v", "libx264", "-g", "24", "-pix_fmt", "yuv420p", "-c:a", "libopus", clip])
        let audio = try #require(try MP4Reader.read(path: FilePath(clip)).audioTrack)
        #expect(audio.sampleDescriptions.first?.opusPreSkip == 312)
        #expect(audio.editList?.first?.mediaTime == 312)

        let cut = try MediaTime(parsing: start)
        let plan = try #require(try await stitchAndJudge(cutMode: mode, [piece(clip, start, "3")]))
        let output = folder + "/out.mp4"
        try MP4Stitcher(pieces: [piece(clip, start, "3")], cutMode: mode).stitch(to: FilePath(output))
        func onset(_ sound: [Float]) -> Int? { sound.firstIndex { abs($0) > 0.05 } }
        let sourceOnset = try #require(onset(try await tools.placedSound(clip)))
        let sound = try await tools.placedSound(output)
        let shift = try cut.ticks(in: 48000)
        #expect(onset(sound).map { $0 + Int(shift) } == sourceOnset, "the tone starts at sample \(onset(sound) ?? -1), the source's at \(sourceOnset) - \(shift)")
        // Audio from 0 (the first decoded sample plays at 0, none discarded unhidden) to the
        // composition's end (ffmpeg does not cut the last frame at the edit).
        let frames = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "frame=pts",
                                                                "-of", "csv=p=0", output])
        #expect(frames.stdout.split(separator: "\n").first == "0", "the first audio decoded plays at \(frames.stdout) (1/48000 s)")
        let samples = try plan.duration.ticks(in: 48000)
        #expect(sound.count >= Int(samples) && sound.count < Int(samples) + 960, "\(sound.count) samples decoded for \(samples)")
    }

    /// `path` with its audio's AudioSpecificConfig (AAC-LC) rewritten to explicit HE-AAC signalling:
    /// object type 5, the core's rate, the extension rate twice it, then the LC core. The `moov`
    /// must follow the media (ffmpeg's default), so no chunk offset moves; every box around the
    /// `esds` grows by the change.
    static func signallingHEAAC(_ path: String, to output: String) throws -> String {
        var bytes = try MP4Fixtures.bytes(path)
        let boxes = MP4Bytes.boxes(in: bytes)
        let moov = try #require(boxes.first { $0.path == "moov" })
        let mdat = try #require(boxes.first { $0.path == "mdat" })
        try #require(mdat.start < moov.start, "the moov must follow the media")
        let audioTrak = try #require(boxes.filter { $0.path == "moov/trak" }.last)
        let stsd = try #require(boxes.first { $0.path == "moov/trak/mdia/minf/stbl/stsd" && $0.start > audioTrak.start })
        let fourCC = Array("esds".utf8)
        let esdsStart = try #require((stsd.start..<stsd.end - 4).first { Array(bytes[$0 + 4..<$0 + 8]) == fourCC })
        let esdsEnd = esdsStart + bytes[esdsStart..<esdsStart + 4].reduce(0) { $0 << 8 | Int($1) }
        // The LC config: 5 bits object type (2), 4 bits rate index, 4 bits channels, 3 bits flags.
        let tag5 = try #require((esdsStart + 12..<esdsEnd).first { bytes[$0] == 5 })
        var lengthAt = tag5 + 1
        while bytes[lengthAt] & 0x80 != 0 { lengthAt += 1 }
        let lc = Array(bytes[lengthAt + 1..<lengthAt + 3])
        let rateIndex = Int((lc[0] & 0x07) << 1 | lc[1] >> 7), channels = Int((lc[1] >> 3) & 0x0F)
        try #require(lc[0] >> 3 == 2 && rateIndex == 6, "an AAC-LC config at 24 kHz")
        // 5 (SBR) | rate 6 (24 kHz) | channels | extension rate 3 (48 kHz) | 2 (LC) | 3 flag bits, padded.
        let bits = 5 << 20 | rateIndex << 16 | channels << 12 | 3 << 8 | 2 << 3
        let he: [UInt8] = [UInt8(bits >> 17 & 0xFF), UInt8(bits >> 9 & 0xFF), UInt8(bits >> 1 & 0xFF), UInt8(bits << 7 & 0xFF)]
        let decoderConfig: [UInt8] = [0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + [5, UInt8(he.count)] + he
        let esDescriptor: [UInt8] = [0, 1, 0] + [4, UInt8(decoderConfig.count)] + decoderConfig + [6, 1, 2]
        let payload: [UInt8] = [0, 0, 0, 0] + [3, UInt8(esDescriptor.count)] + esDescriptor
        let esds = withUnsafeBytes(of: UInt32(8 + payload.count).bigEndian, Array.init) + fourCC + payload
        let growth = esds.count - (esdsEnd - esdsStart)
        bytes.replaceSubrange(esdsStart..<esdsEnd, with: esds)
        // Every box around the esds: moov, the audio trak and its chain to stsd, and the mp4a entry.
        let around = boxes.filter { $0.start < esdsStart && esdsEnd <= $0.end && $0.start >= moov.start }.map(\.start) + [stsd.start + 16]
        for start in Set(around) {
            let size = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) } + growth
            bytes.replaceSubrange(start..<start + 4, with: withUnsafeBytes(of: UInt32(size).bigEndian, Array.init))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: output))
        return output
    }

    /// A 4 s, 25 fps clip with a keyframe every second and a tone that starts at 0.5 s.
    static func lateAudioClip(in folder: String, codec: String, tools: FFmpeg) async throws -> String {
        let clip = folder + "/late-\(codec).mp4"
        try await tools.make([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4",
            "-itsoffset", "0.5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3.5",
            "-c:v", "libx264", "-g", "25", "-c:a", codec, "-f", "mp4", clip,
        ])
        return clip
    }

    func expect(_ span: ClosedRange<Double>, near expected: ClosedRange<Double>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(span.lowerBound - expected.lowerBound) <= 0.04 && abs(span.upperBound - expected.upperBound) <= 0.04,
                "tone plays \(span), expected \(expected)", sourceLocation: sourceLocation)
    }
}
