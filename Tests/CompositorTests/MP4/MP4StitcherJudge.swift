import Foundation
import Testing
@testable import Compositor

/// Checks a stitched file the way the design asks: ffmpeg decodes it, and the frames must be
/// exactly the sources' frames whose presentation time lies in each piece's range, in order.
struct MP4StitchJudge {
    let tools: FFmpeg
    private var sourceFrames: [String: [FFmpeg.Frame]] = [:]

    init(tools: FFmpeg) { self.tools = tools }

    /// The frames of `path` presenting in `range`, as ffmpeg decodes the source alone.
    mutating func frames(of path: String, in range: MediaTimeRange) throws -> [FFmpeg.Frame] {
        if sourceFrames[path] == nil { sourceFrames[path] = try tools.videoFrames(path) }
        return sourceFrames[path]!.filter { range.contains($0.time) }
    }

    /// The frames every piece of `plan` should contribute, in order.
    mutating func expectedFrames(_ plan: MP4StitchPlan) throws -> [FFmpeg.Frame] {
        var expected: [FFmpeg.Frame] = []
        for piece in plan.pieces where piece.sourceHasVideo {
            expected += try frames(of: piece.path, in: piece.sourceRange)
        }
        return expected
    }

    /// Decodes `output` and compares it with the plan, recording an issue for every difference.
    mutating func check(_ output: String, against plan: MP4StitchPlan, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try expectedFrames(plan)
        let actual = try tools.videoFrames(output)
        #expect(actual.map(\.hash) == expected.map(\.hash),
                "decoded \(actual.count) frames, expected \(expected.count); first difference at \(Self.firstDifference(actual.map(\.hash), expected.map(\.hash)))",
                sourceLocation: sourceLocation)

        // Each frame shows at the piece's composition start plus its offset into the piece.
        var expectedTimes: [MediaTime] = []
        for piece in plan.pieces where piece.sourceHasVideo {
            for frame in try frames(of: piece.path, in: piece.sourceRange) {
                expectedTimes.append(piece.compositionRange.start + (frame.time - piece.sourceRange.start))
            }
        }
        if actual.count == expectedTimes.count, let timeBase = actual.first?.timeBase {
            // ffmpeg reports times in its own time base: allow one tick of it.
            let tolerance = timeBase
            for (frame, time) in zip(actual, expectedTimes) where frame.time - time > tolerance || time - frame.time > tolerance {
                Issue.record("frame \(frame) shows at \(frame.time), expected \(time)", sourceLocation: sourceLocation)
                break
            }
        }

        let audioErrors = try tools.audioDecodeErrors(output)
        #expect(audioErrors.isEmpty, "audio decode: \(audioErrors)", sourceLocation: sourceLocation)

        let durations = try tools.streamDurations(output)
        for kind in ["video", "audio"] {
            if let duration = durations[kind] {
                #expect(duration == plan.duration, "\(kind) lasts \(duration), the composition \(plan.duration)", sourceLocation: sourceLocation)
            }
        }
    }

    static func firstDifference(_ a: [String], _ b: [String]) -> Int {
        zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    }
}
