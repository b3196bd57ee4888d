import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4

/// The traps the last audit of issue 50 found reachable from input (after the cue marker with a
/// negative duration): each is now a typed error naming the file, and says why.
@Suite("Traps reachable from input")
struct TrapAuditTests {
    static let fixtures = packageRoot.appendingPathComponent("Fixtures").path

    /// The MPEG-TS source a render reads for the media playlist `lines` (written to `folder`).
    static func readTransportStream(_ folder: String, _ lines: [String]) throws -> MP4Error? {
        let path = folder + "/index.m3u8"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        var sources = HLSRenderSources()
        guard case .hls(let source, nil) = try sources.source(MediaLocation(FilePath(path))) else {
            Issue.record("\(path) is not one media playlist")
            return nil
        }
        var budget = MP4SampleBudget.movie
        do { _ = try TransportStreamReader.read(source, budget: &budget) } catch { return error }
        return nil
    }

    /// A legal `EXTINF` of 102,481,911,520,608 s is 9,223,372,036,854,720,000 ticks of 90 kHz,
    /// 55,807 short of `Int64.max`. A discontinuity after it puts the next segment's timestamps at
    /// the first one's time 0 (PTS 133,500) plus that: past 64 bits, which trapped.
    ///
    /// ```
    /// 90 kHz   133500                        133500 + 9223372036854720000  > Int64.max
    /// segment  |seg0 (EXTINF 102481911520608)|DISCONTINUITY seg1 ...
    /// ```
    @Test("TS segments after an EXTINF near 2^63 ticks of 90 kHz are refused, not trapped on")
    func transportStreamPlaylistTimeOverflow() throws {
        let folder = try MP4Fixtures.makeScratchFolder("trap-ts-playlist-time")
        defer { MP4Fixtures.remove(folder) }
        let ts = Self.fixtures + "/hls/ts/content/"
        let error = try Self.readTransportStream(folder, [
            "#EXTM3U", "#EXT-X-TARGETDURATION:102481911520608", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:102481911520608,", ts + "seg0.ts", "#EXT-X-DISCONTINUITY", "#EXTINF:0.75,", ts + "seg1.ts", "#EXT-X-ENDLIST",
        ])
        #expect(error == .timeOverflow(file: folder + "/index.m3u8", reason: "the segments' durations add up past 2^61 ticks "
            + "of 90 kHz (about 800,000 years), more than the streams' timestamps can be placed after"))
    }
}
