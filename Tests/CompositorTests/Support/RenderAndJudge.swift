import CompositorMP4TestSupport
import CompositorTestSupport
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorMP4

/// Renders `composition` and lets ffmpeg judge the file against the plan (see `MP4StitchJudge`):
/// sample-accurate, the composition is the one asked; either way the plan lasts as it does.
func renderAndJudge(_ composition: Composition, cut: MP4CutMode, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    var judge = MP4StitchJudge(tools: try FFmpeg.require())
    let folder = try MP4Fixtures.makeScratchFolder("render")
    defer { MP4Fixtures.remove(folder) }
    let output = folder + "/out.mp4"
    let rendered = try await MP4Exporter.render(composition, to: FilePath(output), cut: cut)
    if cut == .sampleAccurate { #expect(rendered.composition == composition, sourceLocation: sourceLocation) }
    #expect(rendered.plan.duration == rendered.composition.duration, sourceLocation: sourceLocation)
    try await judge.check(output, against: rendered.plan, sourceLocation: sourceLocation)
}
