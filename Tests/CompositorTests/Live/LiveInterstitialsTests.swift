@testable import Compositor
import CompositorCore
@testable import CompositorHLS
import CompositorIO
import CompositorTestSupport
import Foundation
import Testing

/// The interstitials form of live output: the content's playlist as it is, each break an HLS
/// interstitial naming its asset list (RFC 8216bis appendix D), on the scripted origin of
/// `LiveHLSStitchingTests` (2 s segments, one more per load, 14 in all).
///
///     content  | 0 | 1 | 2 | 3 | 4 | 5 | 6 | ... | 13 |END     CUE-OUT on 3, CUE-IN on 5
///     output   | 0 | 1 | 2 | 3 | 4 | 5 | 6 | ... | 13 |END     the same segments, and on 3:
///              DATERANGE ssai-3, com.apple.hls.interstitial, START-DATE T+6, X-ASSET-LIST assets/0.json
@Suite("Live: breaks as HLS interstitials")
struct LiveInterstitialsTests {
    typealias Origin = LiveHLSStitchingTests.ScriptedOrigin

    static func run(_ breaks: String, markers: [Int: String], join: LiveHLSStitching.JoinRule = .fullBreaksOnly)
    async throws -> (playlists: [HLSMediaPlaylist], folder: FilePath) {
        let (playlists, _, folder) = try await LiveHLSStitchingTests.follow(
            try LiveHLSStitchingTests.schedule(breaks), origin: Origin(markers: markers), join: join, form: .interstitials)
        return (playlists, folder)
    }

    static func text(_ folder: FilePath, _ name: String) throws -> String {
        String(decoding: try #require(FileManager.default.contents(atPath: folder.appending(name).description)), as: UTF8.self)
    }

    static func interstitials(_ playlist: HLSMediaPlaylist) -> [HLSDateRange] {
        playlist.segments.flatMap(\.dateRanges).filter { $0.className == LiveStitcher.interstitialClass }
    }

    static let date6 = HLSDateTime(secondsSinceEpoch: MediaTime(seconds: Int64(Origin.epoch + 6))).description

    @Test func theContentAsItIsWithEachBreakAnInterstitial() async throws {
        let (playlists, folder) = try await Self.run(LiveHLSStitchingTests.ad1For4Seconds,
                                                    markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        for (previous, next) in zip(playlists, playlists.dropFirst()) {
            #expect(LiveReloadCheck.violations(from: previous, to: next) == [])
        }
        // Every segment the content's, in its place: no ad segment, no discontinuity, no cue tag.
        let last = try #require(playlists.last)
        #expect(last.hasEndList && last.mediaSequence == 8)
        #expect(last.segments.map(\.uri) == (8..<14).map { "http://127.0.0.1/seg\($0).ts" })
        #expect(playlists.allSatisfy { $0.segments.allSatisfy { !$0.isDiscontinuity && $0.cueOut == nil && $0.cueIn == nil } })
        // The break, from the reload that published segment 3, on segment 3, while it is in the window.
        let withBreak = playlists.filter { !Self.interstitials($0).isEmpty }
        let first = try #require(withBreak.first)
        #expect(first.segments.last?.uri == "http://127.0.0.1/seg3.ts")
        let range = try #require(Self.interstitials(first).first)
        #expect(range.attributes.description == #"ID="ssai-3",CLASS="com.apple.hls.interstitial",START-DATE="\#(Self.date6)",DURATION=4,"#
            + #"X-ASSET-LIST="assets/0.json?_HLS_interstitial_id=ssai-3",X-SNAP="OUT,IN""#)
        #expect(first.segments.firstIndex { $0.dateRanges.contains(range) } == first.segments.firstIndex { $0.uri.hasSuffix("seg3.ts") })
        // Kept until its end (T+10) leaves the window.
        #expect(Self.interstitials(last).isEmpty && withBreak.count >= 6)
        // Its asset list, and what a client joining it under way gets under --join full: nothing.
        #expect(try Self.text(folder, "assets/0.json") == #"{"ASSETS":[{"URI":"../ads/ad1.m3u8","DURATION":4}]}"# + "\n")
        #expect(try Self.text(folder, "assets/0-joined.json") == #"{"ASSETS":[]}"# + "\n")
        // The ad as a playlist of its own: VOD, its two packaged 2 s segments beside it.
        let ad = try HLSMediaPlaylist(parsing: Array(try Self.text(folder, "ads/ad1.m3u8").utf8), url: "file://" + folder.appending("ads/ad1.m3u8").description)
        #expect(ad.isFinite && ad.segments.map(\.uri) == ["ad1-0.ts", "ad1-1.ts"] && ad.totalDurationOrZero == MediaTime(seconds: 4))
    }

    /// Ads longer than the span stop at it (`X-PLAYOUT-LIMIT`); with an open-ended span that is
    /// known only at `EXT-X-CUE-IN`, added then, and no value ever changes.
    @Test func longAdsStopAtTheSpanKnownFromTheStartOrAtItsCueIn() async throws {
        let wholeAd1 = #"{ "id": "ssai", "at": "markers", "ads": [ { "url": "FIXTURES/ad1.mp4" } ] }"#
        let (known, folder) = try await Self.run(wholeAd1, markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let range = try #require(known.lazy.flatMap(Self.interstitials).first)
        #expect(range.duration == MediaTime(seconds: 4) && range.attributes["X-PLAYOUT-LIMIT"]?.exactTime == MediaTime(seconds: 4))

        let (open, openFolder) = try await Self.run(wholeAd1, markers: [3: "#EXT-X-CUE-OUT", 5: "#EXT-X-CUE-IN"])
        defer { try? FileManager.default.removeItem(atPath: openFolder.description) }
        for (previous, next) in zip(open, open.dropFirst()) {
            #expect(LiveReloadCheck.violations(from: previous, to: next) == [])
        }
        let ranges = open.compactMap { Self.interstitials($0).first }
        // Planned as the whole ad (10 s) while the span is open; 4 s once segment 5's CUE-IN closes it.
        #expect(ranges.first?.plannedDuration == MediaTime(seconds: 10) && ranges.first?.duration == nil)
        let closed = try #require(ranges.last)
        #expect(closed.plannedDuration == MediaTime(seconds: 10) && closed.duration == MediaTime(seconds: 4))
        #expect(closed.attributes["X-PLAYOUT-LIMIT"]?.exactTime == MediaTime(seconds: 4))
        #expect(try Self.text(openFolder, "assets/0.json") == #"{"ASSETS":[{"URI":"../ads/ad1.m3u8","DURATION":10}]}"# + "\n")
    }

    /// Under `--join rest`, a client starting inside a break gets the whole list (it plays from
    /// its offset in); a break under way when the stitcher started starts where it began.
    @Test func joiningUnderWay() async throws {
        let origin = Origin(markers: [1: "#EXT-X-CUE-OUT:DURATION=6", 4: "#EXT-X-CUE-IN"])
        let (playlists, _, folder) = try await LiveHLSStitchingTests.follow(
            try LiveHLSStitchingTests.schedule(LiveHLSStitchingTests.ad1For4Seconds), origin: origin, join: .restOfBreak, form: .interstitials)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        // The first load holds segments 0-3: the break began at segment 1 (T+2), under way since.
        let range = try #require(playlists.lazy.flatMap(Self.interstitials).first)
        #expect(range.startDate == HLSDateTime(secondsSinceEpoch: MediaTime(seconds: Int64(Origin.epoch + 2))))
        #expect(try Self.text(folder, "assets/0-joined.json") == (try Self.text(folder, "assets/0.json")))
    }

    /// D.4's `_HLS_interstitial_id` carries the break's ID, every byte but the unreserved ones
    /// percent-encoded; the list a joining client gets sits beside, without it.
    @Test func assetListNames() {
        #expect(LiveAssetList.path(index: 2, id: "news/1 é&x") == "assets/2.json?_HLS_interstitial_id=news%2F1%20%C3%A9%26x")
        #expect(LiveAssetList.path(index: 2, id: "news/1", joined: true) == "assets/2-joined.json")
        let assets = ["a": LiveStitcher.InterstitialAsset(url: "http://127.0.0.1/out/ads/a.m3u8", duration: MediaTime(value: 1001, timescale: 1000))]
        let list = "http://127.0.0.1/out/assets/2.json"
        #expect(LiveAssetList.json(adIDs: ["a", "a"], assets: assets, listURL: list, joining: true, joinRule: .restOfBreak)
            == #"{"ASSETS":[{"URI":"../ads/a.m3u8","DURATION":1.001},{"URI":"../ads/a.m3u8","DURATION":1.001}]}"# + "\n")
        #expect(LiveAssetList.json(adIDs: ["a"], assets: assets, listURL: list, joining: true, joinRule: .fullBreaksOnly) == #"{"ASSETS":[]}"# + "\n")
    }

    @Test func contentWithoutDatesIsRefusedForInterstitials() async throws {
        final class Undated: HTTPTransport, @unchecked Sendable {
            func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
                HTTPTransportResponse(status: 200, body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8))
            }
        }
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let live = LiveHLSStitching(schedule: try LiveHLSStitchingTests.schedule(LiveHLSStitchingTests.ad1For4Seconds), output: folder,
                                    form: .interstitials, transport: Undated(), limits: HTTPTransportLimits(maximumRetries: 0))
        let error = await #expect(throws: LiveStitchingError.self) { try await live.run(for: nil, clock: InstantClock()) { _ in } }
        #expect(error?.description.contains("EXT-X-PROGRAM-DATE-TIME") == true, "\(String(describing: error))")
    }
}

private extension HLSMediaPlaylist {
    var totalDurationOrZero: MediaTime { segments.reduce(.zero) { $0 + $1.duration } }
}
