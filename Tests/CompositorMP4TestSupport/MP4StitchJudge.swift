import CompositorCore
import CompositorIO
import CompositorMP4
import CompositorTestSupport
import Foundation
import Testing

/// Checks a stitched file the way the design asks: ffmpeg decodes it, and the frames must be
/// exactly the sources' frames whose presentation time lies in each piece's range, in order.
package struct MP4StitchJudge {
    package let tools: FFmpeg
    private var sourceFrames: [String: [FFmpeg.Frame]] = [:]
    private var sourcePackets: [String: [FFmpeg.AudioPacket]] = [:]
    private var sourceSound: [String: [Float]] = [:]

    package init(tools: FFmpeg) { self.tools = tools }

    /// The frames of `path` presenting in `range`, as ffmpeg decodes the source alone (a playlist
    /// in its own time: 0 is its first frame).
    package mutating func frames(of path: String, in range: MediaTimeRange) async throws -> [FFmpeg.Frame] {
        if sourceFrames[path] == nil {
            if path.hasSuffix(".m3u8") {
                sourceFrames[path] = try await tools.playlistFrames(path).map {
                    FFmpeg.Frame(pts: $0.time.value, timeBase: MediaTime(value: 1, timescale: $0.time.timescale), hash: $0.hash)
                }
            } else {
                sourceFrames[path] = try await Self.timedByEditList(try await tools.videoFrames(path), of: path)
            }
        }
        return sourceFrames[path]!.filter { range.contains($0.time) }
    }

    /// The frames every piece of `plan` should contribute, in order.
    package mutating func expectedFrames(_ plan: MP4StitchPlan) async throws -> [FFmpeg.Frame] {
        var expected: [FFmpeg.Frame] = []
        for piece in plan.pieces where piece.sourceHasVideo {
            expected += try await frames(of: piece.path.description, in: piece.sourceRange)
        }
        return expected
    }

    /// Decodes `output` and compares it with the plan, recording an issue for every difference.
    package mutating func check(_ output: String, against plan: MP4StitchPlan, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let expected = try await expectedFrames(plan)
        let actual = try await tools.videoFrames(output)
        let difference = Self.firstDifference(actual.map(\.hash), expected.map(\.hash))
        #expect(actual.count == expected.count && difference == actual.count,
                "ffmpeg decoded \(actual.count) frames, expected \(expected.count); first difference at frame \(difference)",
                sourceLocation: sourceLocation)

        // When each frame shows, by the file's own tables (edit lists applied as QuickTime does):
        // the piece's composition start plus the frame's offset into the piece.
        var expectedTimes: [MediaTime] = []
        for piece in plan.pieces where piece.sourceHasVideo {
            for frame in try await frames(of: piece.path.description, in: piece.sourceRange) {
                expectedTimes.append(piece.compositionRange.start + (frame.time - piece.sourceRange.start))
            }
        }
        let movie = try MP4Reader.read(path: FilePath(output))
        if let video = movie.videoTrack {
            let shown = Self.presentationTimes(of: video)
            #expect(shown.count == expectedTimes.count, "the edit lists show \(shown.count) frames", sourceLocation: sourceLocation)
            // Source frame times come from ffmpeg in its time base: allow one tick of it.
            let tolerance = expected.first?.timeBase ?? .zero
            if let mismatch = zip(shown, expectedTimes).first(where: { $0 - $1 > tolerance || $1 - $0 > tolerance }) {
                Issue.record("a frame shows at \(mismatch.0), expected \(mismatch.1)", sourceLocation: sourceLocation)
            }
        }

        let audioErrors = try await tools.audioDecodeErrors(output)
        #expect(audioErrors.isEmpty, "audio decode: \(audioErrors)", sourceLocation: sourceLocation)
        // Sample-accurate output trims each piece's audio with its own edit, and mov.c times the
        // packets of such edits its own way (a later edit's first packet at -0.024 s): there the
        // decoded sound is compared instead of packets.
        if plan.cutMode == .sampleAccurate {
            try await checkSound(output, against: plan, sourceLocation: sourceLocation)
        } else {
            try await checkAudio(output, against: plan, sourceLocation: sourceLocation)
        }

        let ends = try await tools.streamEnds(output)
        let written = try MP4Reader.read(path: FilePath(output))
        for kind in ["video", "audio"] {
            if let end = ends[kind] {
                // ffprobe counts in the stream's time base, where the composition's end may fall
                // between ticks, and mov.c converts each edit's duration to it rounding to the
                // nearest (5.125 s at 44.1 kHz is 226012.5 ticks, counted as 226013): one tick per edit.
                let track = kind == "video" ? written.videoTrack : written.audioTrack
                let tick = MediaTime(value: Int64(max(1, track?.editList?.count ?? 1)), timescale: end.timescale)
                #expect(end - plan.duration < tick && plan.duration - end < tick,
                        "ffprobe: \(kind) ends at \(end), the composition at \(plan.duration)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Checks the output's audio packet by packet, as ffprobe reads the output and the sources:
    /// each packet is the source packet the schedule puts at that time, or filler where its
    /// source has none, and the packets follow one another without gap or overlap.
    ///
    /// Whole frames are written back to back: a piece's first frame is the first whose middle is
    /// in its range (up to half a frame after the piece's start), and it starts where the sound
    /// before it ended (within half a frame of the boundary). So a packet may be up to one frame
    /// from its scheduled time, never more. HLS sources and files with several audio edits are
    /// not compared (see `sourceAudio(of:)`).
    ///
    /// ```
    /// source     |--0--|--1--|--2--|--3--|
    /// piece           [···········)               source range
    /// output      ..|--1--|--2--|--3--|           each within a frame of its scheduled time
    /// ```
    package mutating func checkAudio(_ output: String, against plan: MP4StitchPlan, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let packets = try await tools.audioPackets(output)
        guard let frame = Self.frameLength(packets) else { return }
        let twice = { (time: MediaTime) in time + time }
        var previousEnd: MediaTime?
        for (index, packet) in packets.enumerated() {
            guard let duration = packet.duration else { continue }
            defer { previousEnd = packet.start + duration }
            if let previousEnd, previousEnd != packet.start {
                Issue.record("audio packet \(index) starts at \(packet.start), the one before ends at \(previousEnd)", sourceLocation: sourceLocation)
                return
            }
            // Twice the packet's middle; one hidden by the edit list (a decoder's lead-in) is not shown.
            let middle = twice(packet.start) + min(duration, frame)
            guard middle > .zero else { continue }
            var holdsSource = false
            var scheduled: [MediaTime] = []
            for piece in plan.pieces where twice(piece.compositionRange.start) < middle + twice(frame) && middle - twice(frame) < twice(piece.compositionRange.end) {
                guard piece.sourceHasAudio else { continue }
                let source = try await sourceAudio(of: piece.path.description)
                if twice(piece.compositionRange.start) <= middle, middle < twice(piece.compositionRange.end) {
                    // A packet lasts a frame at most: a fragment's first may be stretched over a gap.
                    let sourceFrame = Self.frameLength(source) ?? frame
                    let sourceMiddle = middle - twice(piece.compositionRange.start) + twice(piece.sourceRange.start)
                    holdsSource = holdsSource || source.contains {
                        twice($0.start) <= sourceMiddle && sourceMiddle < twice($0.start + min($0.duration ?? sourceFrame, sourceFrame))
                    }
                }
                scheduled += source.filter { $0.hash == packet.hash }.map { piece.compositionRange.start + ($0.start - piece.sourceRange.start) }
            }
            // Within a frame, and a tick of either time base.
            let matched = scheduled.contains { time in
                let off = packet.start > time ? packet.start - time : time - packet.start
                return off <= frame + MediaTime(value: 1, timescale: packet.start.timescale) + MediaTime(value: 1, timescale: time.timescale)
            }
            if !matched && holdsSource {
                Issue.record("""
                    audio packet \(index) at \(packet.start) (\(packet.hash)) is not its source's packet for that time; \
                    the schedule puts those bytes at \(scheduled.isEmpty ? "no time near" : scheduled.map(\.description).joined(separator: ", "))
                    """, sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// Checks sample-accurate sound: each piece's sound, as ffmpeg decodes the output, is its
    /// source's sound at the scheduled times, to a few samples (48 kHz sources). Away from a piece's edges (a
    /// decoder's first frame after a join overlaps the last one before it; an edit's last frame
    /// plays on under the next), the two differ by no more than decoding (and resampling to
    /// 48 kHz) the same frames does: a shift of three samples of a 440 Hz tone at a twentieth of
    /// full scale already differs by more. On a failure the lag that lines them up best is told.
    ///
    /// ```
    /// source          ~~~~[·····piece·····)~~~~
    /// output    ~~~~~|····[  compared   ]····|~~~~     2048 samples left out at each edge
    /// ```
    package mutating func checkSound(_ output: String, against plan: MP4StitchPlan, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let edge = 2048, reach = 480
        let sound = try await presentedSound(output)
        for piece in plan.pieces where piece.sourceHasAudio && !piece.path.description.hasSuffix(".m3u8") {
            let path = piece.path.description
            if sourceSound[path] == nil {
                // ffmpeg's resampler delays what follows a change of rate by its filter's length (17
                // samples from 44.1 kHz), so only 48 kHz sources are compared, which it passes as they are.
                let descriptions = try MP4Reader.read(path: FilePath(path)).audioTrack?.sampleDescriptions ?? []
                sourceSound[path] = descriptions.allSatisfy { $0.sampleRate == 48000 } ? try await presentedSound(path) : []
            }
            let source = sourceSound[path]!
            let start = Self.sample(piece.compositionRange.start) + edge, end = Self.sample(piece.compositionRange.end) - edge
            let sourceStart = Self.sample(piece.sourceRange.start) + edge
            // At most a second of each piece is compared.
            let length = min(end - start, 48000, source.count - reach - sourceStart, sound.count - start)
            guard length > 4800, sourceStart >= reach else { continue }
            func difference(lag: Int, over length: Int) -> (sum: Float, largest: Float) {
                var sum: Float = 0, largest: Float = 0
                for i in 0..<length {
                    let d = abs(sound[start + i] - source[sourceStart + lag + i])
                    sum += d * d
                    largest = max(largest, d)
                }
                return (sum, largest)
            }
            let largest = difference(lag: 0, over: length).largest
            guard largest >= 0.01 else { continue }
            // The first 0.1 s tells the lag (a tone repeats: the nearest of equals).
            let sums = (-reach...reach).map { (lag: $0, sum: difference(lag: $0, over: 4800).sum) }
            let best = sums.min { ($0.sum, abs($0.lag)) < ($1.sum, abs($1.lag)) }!.lag
            Issue.record("""
                piece \(path) [\(piece.sourceRange.start), \(piece.sourceRange.end)) at \(piece.compositionRange.start): \
                its sound differs from the source's by up to \(largest); it lines up best \(best) samples off
                """, sourceLocation: sourceLocation)
        }
    }

    private static func sample(_ time: MediaTime) -> Int { Int((time.seconds * 48000).rounded()) }

    /// A file's first audio track as it presents, at 48 kHz: ffmpeg decodes the media as it is and
    /// the edit list is applied here, as ISO/IEC 14496-12 8.6.6 says (mov.c places the frames of an
    /// edit after the first its own way, see `check`).
    private func presentedSound(_ path: String) async throws -> [Float] {
        let media = try await tools.placedSound(path, ignoringEditList: true)
        let track = try #require(try MP4Reader.read(path: FilePath(path)).audioTrack)
        guard let edits = track.editList else { return media }
        var sound: [Float] = []
        var editStart = MediaTime.zero
        for edit in edits {
            let duration = MediaTime(value: Int64(edit.segmentDuration), timescale: track.movieTimescale)
            let count = Self.sample(editStart + duration) - Self.sample(editStart)
            let from = edit.mediaTime.map { Self.sample(MediaTime(value: $0, timescale: track.timescale)) }
            sound += (0..<count).map { i in from.map { $0 + i < media.count ? media[$0 + i] : 0 } ?? 0 }
            editStart = editStart + duration
        }
        return sound
    }

    /// The length of a stream's frames: its most common packet duration (a fragment's first packet
    /// may be stretched over a gap, an edit's last one cut short).
    static func frameLength(_ packets: [FFmpeg.AudioPacket]) -> MediaTime? {
        let counts = Dictionary(packets.compactMap(\.duration).map { ($0, 1) }, uniquingKeysWith: +)
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    /// A source's audio packets as ffprobe reads them; none for a playlist (its packets are on its
    /// stream's clock, not its own time) or for a file with several audio edits (mov.c times their
    /// packets its own way, see `check`): such pieces are not compared.
    private mutating func sourceAudio(of path: String) async throws -> [FFmpeg.AudioPacket] {
        if let known = sourcePackets[path] { return known }
        var packets: [FFmpeg.AudioPacket] = []
        if !path.hasSuffix(".m3u8"),
           ((try MP4Reader.read(path: FilePath(path)).audioTrack?.editList ?? []).filter { $0.mediaTime != nil }.count) <= 1 {
            packets = try await tools.audioPackets(path)
        }
        sourcePackets[path] = packets
        return packets
    }

    /// Presentation times of the frames a track's edit list shows (ISO/IEC 14496-12 8.6.6): each
    /// edit shows the samples whose composition time is in its media window, at the edit's start
    /// plus their offset into the window.
    package static func presentationTimes(of track: MP4Track) -> [MediaTime] {
        let samples = track.samples
        guard track.editList != nil else {
            return (0..<samples.count).map { MediaTime(value: samples.compositionTime($0), timescale: track.timescale) }.sorted()
        }
        var times: [MediaTime] = []
        var editStart = MediaTime.zero
        for edit in track.editList ?? [] {
            let duration = MediaTime(value: Int64(edit.segmentDuration), timescale: track.movieTimescale)
            defer { editStart = editStart + duration }
            guard let mediaTime = edit.mediaTime else { continue }
            let start = MediaTime(value: mediaTime, timescale: track.timescale)
            let window = MediaTimeRange(start: start, duration: duration)
            let shown = (0..<samples.count).map { MediaTime(value: samples.compositionTime($0), timescale: track.timescale) }
                .filter(window.contains).sorted()
            times += shown.map { editStart + ($0 - start) }
        }
        return times
    }

    /// Where ffmpeg decodes a source's frames in the right order but times them otherwise than
    /// ISO/IEC 14496-12 does, their times are taken from the file's tables instead:
    /// - several media edits (a stitch): frames of an edit that starts inside a GOP with
    ///   B-frames come late by the reorder delay (125 ms at 24 fps);
    /// - a fragmented file with negative composition offsets (ffmpeg's CMAF output): mov.c adds
    ///   its DTS shift to every time of a fragment, so the first frame shows at 1/24 s, not at 0;
    /// - MPEG-4 Part 2 B-frames timed in decode order (no `ctts`, as remuxed from AVI): ffmpeg
    ///   shows the pictures in display order, timed a frame late after the first.
    package static func timedByEditList(_ frames: [FFmpeg.Frame], of path: String) async throws -> [FFmpeg.Frame] {
        guard let video = try MP4Reader.read(path: FilePath(path)).videoTrack else { return frames }
        let samples = video.samples
        let severalEdits = (video.editList ?? []).filter({ $0.mediaTime != nil }).count > 1
        let boxes = MP4Bytes.boxes(in: try MP4Fixtures.bytes(path))
        let shiftedByFFmpeg = (0..<samples.count).contains { samples.compositionOffset($0) < 0 }
            && boxes.contains { $0.path == "moof" }
        let retimedByReader = !samples.compositionOffsets.isEmpty && !boxes.contains { $0.path.hasSuffix("/ctts") }
        guard severalEdits || shiftedByFFmpeg || retimedByReader else { return frames }
        let times = presentationTimes(of: video)
        try #require(times.count == frames.count, "\(path): ffmpeg decoded \(frames.count) frames, its edit list shows \(times.count)")
        return zip(frames, times).map { frame, time in
            FFmpeg.Frame(pts: time.value, timeBase: MediaTime(value: 1, timescale: time.timescale), hash: frame.hash)
        }
    }

    package static func firstDifference(_ a: [String], _ b: [String]) -> Int {
        zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    }
}
