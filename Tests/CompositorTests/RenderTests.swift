import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// `Fixtures/demo.json` rendered end to end, judged by ffmpeg.
///
/// ```
/// composition 0    5        13.5     23.5 26.5     38     44 46    53     60
///             |a1  |feature |a2      |a3  |feature |extra |a5|extra|a4    |
/// ```
@Suite("Rendering compositions to MP4 (judged by ffmpeg)", .needsFFmpeg)
struct RenderTests {
    func loadDemo(_ name: String = "demo.json") throws -> Composition {
        let folder = packageRoot.appendingPathComponent("Fixtures").path
        let schedule = try ScheduleDocument.decode(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)), baseFolder: FilePath(folder))
        let (probed, failures) = SourceProbe.probeAll(schedule)
        #expect(failures.isEmpty, "\(failures)")
        return try Composition(schedule: schedule, naturalDurations: probed.mapValues(\.naturalDuration))
    }

    /// demo-web.json is demo.json's shape with ads in the content's audio format, as the web-safe
    /// output needs.
    @Test("exactly the scheduled source frames, in order, and every frame maps back exactly",
          arguments: zip(["demo.json", "demo.json", "demo-web.json"], [MP4CutMode.sampleAccurate, .keyframeAligned, .webSafe]))
    func frames(schedule: String, cut: MP4CutMode) async throws {
        let ffmpeg = try FFmpeg.require()
        let composition = try loadDemo(schedule)
        let folder = try MP4Fixtures.makeScratchFolder("render")
        defer { MP4Fixtures.remove(folder) }
        let output = folder + "/out.mp4"
        let rendered = try await MP4Exporter.render(composition, to: FilePath(output), cut: cut)
        let reported = rendered.composition
        if cut == .sampleAccurate { #expect(reported == composition) }

        var sourceFrames: [String: [FFmpeg.Frame]] = [:]
        var expected: [(hash: String, segment: Int, sourceTime: MediaTime)] = []
        for (index, segment) in reported.segments.enumerated() {
            let path = try #require(segment.source.filePath).description
            if sourceFrames[path] == nil { sourceFrames[path] = try await ffmpeg.videoFrames(path) }
            for frame in sourceFrames[path]! where segment.sourceRange.contains(frame.time) {
                expected.append((frame.hash, index, frame.time))
            }
        }
        // ffmpeg judges the frames and their order (its timestamps are not exact across edits:
        // it starts each edit with its first kept frame, as REFERENCE.md notes).
        #expect(try await ffmpeg.videoFrames(output).map(\.hash) == expected.map(\.hash))
        // Exact timing, by the edit lists as QuickTime reads them: every sample that starts inside
        // an edit is the source frame the reported composition puts at that instant.
        let presented = try RenderTests.presentedVideo(output)
        let scheduled = try RenderTests.scheduledVideo(reported)
        #expect(presented.map(\.time) == scheduled.map(\.time))
        // The web-safe output's keyframes carry their source's parameter sets (SPS, PPS) before it.
        let unlike = zip(presented, scheduled).filter { shown, source in
            guard shown.bytes != source.bytes else { return false }
            let prefix = shown.bytes.dropLast(source.bytes.count)
            let units = MP4Bytes.nalUnits(prefix, count: .max)
            return !(cut == .webSafe && shown.bytes.suffix(source.bytes.count).elementsEqual(source.bytes)
                     && units.map(\.count).reduce(4 * units.count, +) == prefix.count && units.allSatisfy { [7, 8].contains($0[0] & 0x1F) })
        }
        #expect(unlike.isEmpty, "\(unlike.count) frames differ from their source's, the first at \(unlike.first?.0.time.description ?? "")")
        let ends = try await ffmpeg.streamEnds(output)
        #expect(ends["video"] == reported.duration)
        if cut == .sampleAccurate {
            #expect(ends["audio"] == reported.duration)
        } else {
            // Without hidden samples audio is cut in whole AAC frames (1024 samples), kept within
            // half a frame of the video's boundaries so it never drifts.
            let audioEnd = try #require(ends["audio"])
            let halfFrame = MediaTime(value: 512, timescale: 44100)
            #expect(audioEnd > reported.duration - halfFrame && audioEnd < reported.duration + halfFrame)
        }
        #expect(try await ffmpeg.audioDecodeErrors(output) == "")
    }

    /// (presentation time, sample bytes) of every video sample that starts inside an edit.
    static func presentedVideo(_ path: String) throws -> [PresentedFrame] {
        let movie = try MP4Reader.read(path: FilePath(path))
        let track = try #require(movie.videoTrack)
        let file = try ReadableFile(path: FilePath(path))
        let samples = track.samples
        var frames: [PresentedFrame] = []
        var editStart = MediaTime.zero
        for edit in track.editList ?? [] {
            let length = MediaTime(value: Int64(edit.segmentDuration), timescale: movie.timescale)
            if let mediaTime = edit.mediaTime {
                let mediaStart = MediaTime(value: mediaTime, timescale: track.timescale)
                for index in 0..<samples.count {
                    let offset = MediaTime(value: samples.compositionTime(index), timescale: track.timescale) - mediaStart
                    guard offset >= .zero, offset < length else { continue }
                    let bytes = try file.read(at: samples.offsets[index], count: Int(samples.sizes[index]))
                    frames.append(PresentedFrame(time: editStart + offset, bytes: bytes))
                }
            }
            editStart += length
        }
        return frames.sorted { $0.time < $1.time }
    }

    /// What the composition says is shown: each segment's source frames, at its composition times.
    static func scheduledVideo(_ composition: Composition) throws -> [PresentedFrame] {
        var frames: [PresentedFrame] = []
        for segment in composition.segments {
            let movie = try MP4Reader.read(path: try #require(segment.source.filePath))
            guard let track = movie.videoTrack else { continue }
            let timeline = try SourceTrackTimeline(track: track, file: segment.source.description)
            let file = try ReadableFile(path: try #require(segment.source.filePath))
            for index in 0..<track.samples.count {
                let presented = try timeline.presentationTime(ofMedia: timeline.compositionTime(index))
                guard segment.sourceRange.contains(presented) else { continue }
                let bytes = try file.read(at: track.samples.offsets[index], count: Int(track.samples.sizes[index]))
                frames.append(PresentedFrame(
                    time: segment.compositionRange.start + (presented - segment.sourceRange.start), bytes: bytes))
            }
        }
        return frames.sorted { $0.time < $1.time }
    }

    struct PresentedFrame: Equatable, CustomStringConvertible {
        let time: MediaTime
        let bytes: [UInt8]
        var description: String { "\(time)s (\(bytes.count) bytes)" }
    }

    /// A session keeps the schedule's times; a player of the web-safe file plays the snapped ones.
    ///
    /// ```
    /// requested |a1 0-5|feature 5-13.5   |a2 13.5-19.5|a3 -22.5|feature 22.5-34|extra 34-47    |a4 47-53   |
    /// output    |a1 0-5|feature 5-13 |a2 13-19   |a3 -22|feature 22-34   |extra 34-48.08    |a4 48.08-54.08|
    /// ```
    @Test("the web-safe output's times map to the schedule's and back, segment by segment")
    func renderedTimeMapping() throws {
        let rendered = try MP4Exporter.plan(try loadDemo("demo-web.json"), cut: .webSafe)
        func t(_ text: String) throws -> MediaTime { try MediaTime(parsing: text) }
        // Segment starts map to segment starts, so a boundary the player crosses is one the session crosses.
        for (asked, plays) in zip(rendered.requested.segments, rendered.composition.segments) {
            #expect(rendered.reconciled.playedTime(forRequestedTime: asked.compositionRange.start) == plays.compositionRange.start)
            #expect(rendered.reconciled.requestedTime(forPlayedTime: plays.compositionRange.start) == asked.compositionRange.start)
        }
        // Inside a segment: the same source frame (content 10 is composition 24 in both).
        #expect(rendered.reconciled.playedTime(forRequestedTime: try t("24")) == (try t("24")))
        #expect(rendered.reconciled.playedTime(forRequestedTime: try t("15")) == (try t("14.5")))   // a2 at 1.5 s
        // A frame only the output shows (its second feature piece starts at source 8, the
        // schedule's at 8.5) maps to the first frame the schedule keeps there.
        #expect(rendered.reconciled.requestedTime(forPlayedTime: try t("22.25")) == (try t("22.5")))
        // A frame the output leaves out (feature 8-8.5 of piece 1) maps to the output piece's last tick.
        #expect(rendered.reconciled.playedTime(forRequestedTime: try t("13.25")) < (try t("13")))
        #expect(rendered.reconciled.playedTime(forRequestedTime: try t("13.25")) > (try t("12.99")))
        // Round trip for every frame both show (every quarter second whose source time both keep).
        var roundTrips = 0
        for quarter in Int64(0)..<212 {
            let time = MediaTime(value: quarter, timescale: 4)
            let index = try #require(rendered.requested.segmentIndex(at: time))
            let (asked, plays) = (rendered.requested.segments[index], rendered.composition.segments[index])
            let source = asked.sourceRange.start + (time - asked.compositionRange.start)
            guard plays.sourceRange.contains(source) else { continue }
            roundTrips += 1
            #expect(rendered.reconciled.requestedTime(forPlayedTime: rendered.reconciled.playedTime(forRequestedTime: time)) == time, "\(time)")
        }
        #expect(roundTrips > 200)
    }

    @Test("the demo's render command: output, summary, and nothing left behind on failure")
    func demoCommand() async throws {
        _ = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("render-cli")
        defer { MP4Fixtures.remove(folder) }
        let ok = try await DemoProcess.run(["render", "Fixtures/demo.json", "--output", folder + "/out.mp4", "--cut", "keyframe"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasPrefix("wrote \(folder)/out.mp4: "))
        #expect(ok.stdout.contains("snapped to"))

        let missingFolder = try await DemoProcess.run(["render", "Fixtures/demo.json", "--output", folder + "/no/such/out.mp4"])
        #expect(missingFolder.status == 1)
        // Checked before the schedule is read: the message is about the output alone.
        #expect(missingFolder.stderr == "error: \(folder)/no/such/out.mp4: the folder it would go in, \(folder)/no/such, does not exist\n",
                "\(missingFolder.stderr)")
        #expect(MP4Fixtures.listing(folder) == ["out.mp4"])

        let badCut = try await DemoProcess.run(["render", "Fixtures/demo.json", "--output", folder + "/x.mp4", "--cut", "fast"])
        #expect(badCut.status == 64)

        // demo.json's ads are 44.1 kHz mono, its content 48 kHz stereo: not one web-safe track.
        let web = try await DemoProcess.run(["render", "Fixtures/demo.json", "--output", folder + "/web.mp4", "--cut", "web"])
        #expect(web.status == 1)
        #expect(web.stderr.contains("Fixtures/ad1.mp4 has audio in AAC-LC 44.1 kHz mono, ")
                && web.stderr.contains("in AAC-LC 48 kHz stereo: a web-safe MP4 keeps one format per track"), "\(web.stderr)")
        let webOK = try await DemoProcess.run(["render", "Fixtures/demo-web.json", "--output", folder + "/web.mp4", "--cut", "web"])
        #expect(webOK.status == 0 && webOK.stdout.contains("(cuts on keyframes, web-safe: one format per track)"), "\(webOK.stderr)")
        #expect(MP4Fixtures.listing(folder) == ["out.mp4", "web.mp4"])
    }
}
