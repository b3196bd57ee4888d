import Foundation
import Testing
@testable import Compositor

@Suite("MP4 stitcher smoke")
struct MP4StitcherSmokeTests {
    @Test func smoke() throws {
        guard let tools = FFmpeg.tools() else { return }
        let folder = try MP4Fixtures.makeScratchFolder()
        let out = folder + "/out.mp4"
        let pieces = [
            MP4StitchPiece(path: MP4Fixtures.content, range: MediaTimeRange(start: .zero, end: MediaTime(seconds: 20))),
        ]
        let stitcher = MP4Stitcher(pieces: pieces)
        let plan = try stitcher.plan()
        try stitcher.write(plan, to: out)
        print("OUT", out)
        var judge = MP4StitchJudge(tools: tools)
        try judge.check(out, against: plan)
    }
}
