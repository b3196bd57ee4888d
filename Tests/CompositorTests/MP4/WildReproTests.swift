import CompositorMP4TestSupport
import CompositorTestSupport
import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorMP4

/// MP4s made by ffmpeg 5.1 that stitched to the wrong frames (`../shared/wild-repro`, used from
/// there): a CMAF file with a global `sidx` and `mfra`, a fragmented file with an empty `moov`, and
/// Xvid with packed B-frames, each in the schedules it went wrong in (their README), rendered in
/// both cut modes. ffmpeg decodes the scheduled source frames, in order, at their times
/// (`MP4StitchJudge`).
@Suite(.needsSharedData("wild-repro")) struct WildReproTests {
    static let schedules = [
        "ff-cmaf-sidx.self.json", "ff-cmaf-sidx.ad.json", "ff-cmaf-sidx.content.json", "ff-cmaf-sidx.post.json",
        "ff-frag-keyframe.content.json", "ff-xvid.self.json",
    ]

    @Test("a wild MP4 stitches to the scheduled frames", arguments: schedules, [MP4CutMode.sampleAccurate, .keyframeAligned])
    func stitches(schedule: String, cut: MP4CutMode) async throws {
        let folder = try #require(SharedData.path("wild-repro"))
        let document = try ScheduleDocument.decode(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/" + schedule)), baseFolder: FilePath(folder))
        let (probed, failures) = SourceProbe.probeAll(document)
        try #require(failures.isEmpty, "\(failures)")
        let composition = try Composition(schedule: document, naturalDurations: probed.mapValues(\.naturalDuration))
        try await renderAndJudge(composition, cut: cut)
    }
}
