@testable import Compositor
import CompositorCore
@testable import CompositorHLS
import CompositorIO
@testable import CompositorMP4
import CompositorTestSupport
import Foundation
import Testing

/// Following live content: a scripted origin whose playlist gains a segment at every load (2 s
/// segments, a 6-segment window), a clock that does not wait, and the stitched playlist read back
/// from the folder after every reload.
///
///     content  | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | ... | 13 |END     CUE-OUT:DURATION=4 on 3, CUE-IN on 5
///     stitched | 0 | 1 | 2 |/ad1-0|/ad1-1|/5 | 6 | ...| 13 |END     ad1.mp4 cut to 4 s, 2 s segments
@Suite("Live: following content and rewriting the stitched playlist")
struct LiveHLSStitchingTests {
    /// An origin at http://127.0.0.1/live.m3u8 that publishes one more segment per load, up to
    /// `count`, then EXT-X-ENDLIST; loads listed in `failing` (by number, from 1) get a 503.
    /// Its segments are `segN.ts` (never served), or `fragmented`'s (served): `segN.m4s`, or with
    /// `ranged`, byte ranges of one file, `all.mp4`, after its init section.
    final class ScriptedOrigin: HTTPTransport, @unchecked Sendable {
        let count: Int
        let markers: [Int: String]
        let failing: Set<Int>
        let finishedFromStart: Bool
        let fragmented: FragmentedContent?
        let ranged: Bool
        private let lock = NSLock()
        private var loads = 0
        /// Loads that returned the same playlist as the one before (the origin repeats every third).
        let repeatsEveryThird: Bool
        /// From this load on the window is empty: every segment removed, none added.
        let emptiedFrom: Int?
        /// From this load on the playlist says EXT-X-TARGETDURATION:10 (its segments still 2 s).
        let targetTenFrom: Int?

        init(
            count: Int = 14, markers: [Int: String] = [:], failing: Set<Int> = [], repeatsEveryThird: Bool = false, finishedFromStart: Bool = false,
            fragmented: FragmentedContent? = nil, ranged: Bool = false, emptiedFrom: Int? = nil, targetTenFrom: Int? = nil
        ) {
            self.count = count
            self.emptiedFrom = emptiedFrom
            self.targetTenFrom = targetTenFrom
            self.fragmented = fragmented
            self.ranged = ranged
            self.markers = markers
            self.failing = failing
            self.repeatsEveryThird = repeatsEveryThird
            self.finishedFromStart = finishedFromStart
        }

        static let epoch = 1_795_000_000

        func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
            let base = "http://127.0.0.1/"
            guard request.url.hasPrefix(base) else { return HTTPTransportResponse(status: 404) }
            let path = String(request.url.dropFirst(base.count))
            if let fragmented, let bytes = fragmented.file(path) { return HTTPTransportResponse(status: 200, body: bytes) }
            if path == "master.m3u8" {
                let text = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000\nv0/live.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=300000\nv1/live.m3u8\n"
                return HTTPTransportResponse(status: 200, body: Array(text.utf8))
            }
            if path == "renditions.m3u8" {
                let text = """
                    #EXTM3U
                    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",DEFAULT=YES,URI="a/live.m3u8"
                    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="en",LANGUAGE="en",URI="s/live.m3u8"
                    #EXT-X-STREAM-INF:BANDWIDTH=900000,AUDIO="aud",SUBTITLES="subs"
                    v0/live.m3u8

                    """
                return HTTPTransportResponse(status: 200, body: Array(text.utf8))
            }
            // The other playlists are loaded after the first variant, and are a segment ahead of it.
            let ahead = ["v1/live.m3u8", "a/live.m3u8", "s/live.m3u8"].contains(path) ? 1 : 0
            guard ["live.m3u8", "v0/live.m3u8", "v1/live.m3u8", "a/live.m3u8", "s/live.m3u8"].contains(path) else { return HTTPTransportResponse(status: 404) }
            let load = lock.withLock { () -> Int in
                if ahead == 0 { loads += 1 }
                return loads
            }
            if failing.contains(load) { return HTTPTransportResponse(status: 503) }
            var published = finishedFromStart ? count : min(count, 3 + ahead + (repeatsEveryThird ? load - load / 3 : load))
            var first = max(0, published - 6)
            if let emptiedFrom, load >= emptiedFrom {
                // What the load before published, all of it removed.
                published = min(count, 3 + ahead + emptiedFrom - 1)
                first = published
            }
            var text = "#EXTM3U\n#EXT-X-VERSION:\(fragmented == nil ? 3 : 7)\n#EXT-X-TARGETDURATION:\(targetTenFrom.map { load >= $0 } == true ? 10 : 2)\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            if let fragmented {
                text += ranged ? "#EXT-X-MAP:URI=\"all.mp4\",BYTERANGE=\"\(fragmented.initSection.count)@0\"\n" : "#EXT-X-MAP:URI=\"init.mp4\"\n"
            }
            for n in first..<published {
                if let marker = markers[n] { text += marker + "\n" }
                text += "#EXT-X-PROGRAM-DATE-TIME:\(HLSDateTime(secondsSinceEpoch: MediaTime(seconds: Int64(Self.epoch + 2 * n))))\n"
                if let fragmented, ranged, let range = fragmented.ranges[n] {
                    text += "#EXTINF:2.0,\n#EXT-X-BYTERANGE:\(range.count)@\(range.lowerBound)\nall.mp4\n"
                } else {
                    text += "#EXTINF:2.0,\nseg\(n).\(path.hasPrefix("s/") ? "vtt" : fragmented == nil ? "ts" : "m4s")\n"
                }
            }
            if published == count { text += "#EXT-X-ENDLIST\n" }
            return HTTPTransportResponse(status: 200, body: Array(text.utf8))
        }
    }

    /// Live content in fragmented MP4: content.mp4's 2 s segments over and over, segment `n`
    /// timestamped from 7200 + 2n s (its decode time a B-frame lead before).
    final class FragmentedContent: Sendable {
        static let clockStart = MediaTime(seconds: 7200)
        static let shared = try! FragmentedContent(count: 30)

        let initSection: [UInt8]
        let segments: [[UInt8]]

        init(count: Int) throws {
            let packaging = try MP4Packaging(
                movie: try MP4Reader.read(path: FilePath(MP4Fixtures.path("content.mp4"))), container: .fragmentedMP4,
                targetDuration: MediaTime(seconds: 2), cuts: [])
            var writer = try packaging.segmentWriter()
            initSection = try #require(writer.initSegment())
            var segments: [[UInt8]] = [], stream = PackagedStream(), bytes = OutputBytes()
            for n in 0..<count {
                let index = n % packaging.segments.count
                let placement = SegmentPlacement(
                    piece: packaging.segments[index].range, compositionStart: MediaTime(seconds: Int64(2 * n)), clockStart: Self.clockStart)
                try writer.segment(index, placedAt: placement, continuing: &stream, into: &bytes)
                segments.append(bytes.withUnsafeBytes { Array($0) })
            }
            self.segments = segments
        }

        /// Where each segment is in `all.mp4`.
        var ranges: [Int: Range<Int>] {
            var ranges: [Int: Range<Int>] = [:], offset = initSection.count
            for (n, segment) in segments.enumerated() {
                ranges[n] = offset..<offset + segment.count
                offset += segment.count
            }
            return ranges
        }

        /// The bytes the origin serves at `path`: `init.mp4`, `segN.m4s`, or all of them after
        /// each other, `all.mp4` (whatever range is asked: a server that ignores `Range`).
        func file(_ path: String) -> [UInt8]? {
            if path == "init.mp4" { return initSection }
            if path == "all.mp4" { return initSection + segments.joined() }
            guard path.hasPrefix("seg"), path.hasSuffix(".m4s"), let n = Int(path.dropFirst(3).dropLast(4)), segments.indices.contains(n) else { return nil }
            return segments[n]
        }

        /// Segment `n`'s decode time.
        func decodeTime(_ n: Int) throws -> MediaTime {
            try FragmentDecodeTime.start(initSection: initSection, initName: "init.mp4", segment: segments[n], segmentName: "seg\(n).m4s")
        }
    }

    static func schedule(_ breaks: String, content: String = "http://127.0.0.1/live.m3u8") throws -> LiveSchedule {
        let fixtures = MP4Fixtures.folder
        let text = """
            { "content": [ { "id": "channel", "url": "\(content)" } ],
              "breaks": [ \(breaks.replacingOccurrences(of: "FIXTURES", with: fixtures)) ] }
            """
        return try ScheduleDocument.decodeLive(Array(text.utf8), baseFolder: nil)
    }

    /// Runs the stitcher against `origin` into a new folder; returns each stitched playlist as
    /// read back after the reload that wrote it, and the statuses.
    static func follow(
        _ schedule: LiveSchedule, origin: ScriptedOrigin, clock: InstantClock = InstantClock(), join: LiveHLSStitching.JoinRule = .fullBreaksOnly,
        form: LiveHLSStitching.Form = .stitched, output: FilePath? = nil, before: (LiveHLSStitching) async throws -> Void = { _ in },
        after: (LiveReloadStatus, FilePath) -> Void = { _, _ in }
    ) async throws -> (playlists: [HLSMediaPlaylist], statuses: [LiveReloadStatus], folder: FilePath) {
        let output = output ?? FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        let folder = output.resolved(against: currentFolder())
        let live = LiveHLSStitching(
            schedule: schedule, output: output, joinRule: join, form: form, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
        try await before(live)
        var playlists: [HLSMediaPlaylist] = [], statuses: [LiveReloadStatus] = []
        let playlistPath = folder.appending("stitched.m3u8").description
        try await live.run(for: nil, clock: clock) { status in
            statuses.append(status)
            if status.wrote, let bytes = FileManager.default.contents(atPath: playlistPath) {
                playlists.append((try? HLSMediaPlaylist(parsing: Array(bytes), url: "file://" + playlistPath))!)
            }
            after(status, folder)
        }
        return (playlists, statuses, folder)
    }

    /// Every segment the playlists list, by media sequence number, as `describe` says (by default
    /// its discontinuity, date and URI): what a stream is, over its reloads.
    static func stream(
        _ playlists: [HLSMediaPlaylist],
        _ describe: (HLSMediaSegment) -> String = { "\($0.isDiscontinuity) \($0.programDateTime!) \($0.uri)" }
    ) -> [UInt64: String] {
        var found: [UInt64: String] = [:]
        for playlist in playlists {
            for (offset, segment) in playlist.segments.enumerated() { found[playlist.mediaSequence! + UInt64(offset)] = describe(segment) }
        }
        return found
    }

    static let ad1For4Seconds = #"{ "id": "ssai", "at": "markers", "ads": [ { "url": "FIXTURES/ad1.mp4", "end": 4 } ] }"#

    @Test func theTimelineAbove() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        let (playlists, statuses, folder) = try await Self.follow(try Self.schedule(Self.ad1For4Seconds), origin: origin)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        // Every reload a good reload of the one before; the last one ends.
        for (previous, next) in zip(playlists, playlists.dropFirst()) {
            #expect(LiveReloadCheck.violations(from: previous, to: next) == [])
        }
        let last = try #require(playlists.last)
        #expect(last.hasEndList && statuses.last?.ended == true)
        // The whole stream, by media sequence number, from every reload.
        var stream: [UInt64: String] = [:]
        for playlist in playlists {
            for (offset, segment) in playlist.segments.enumerated() {
                stream[playlist.mediaSequence! + UInt64(offset)] = (segment.isDiscontinuity ? "/" : "") + segment.uri
            }
        }
        let uris = stream.keys.sorted().map { stream[$0]! }
        let content = { (n: Int) in "http://127.0.0.1/seg\(n).ts" }
        #expect(uris == (0..<3).map(content) + ["/ads/ad1-0.ts", "ads/ad1-1.ts", "/" + content(5)] + (6..<14).map(content))
        // The ads were packaged once, in the content's format, beside the playlist.
        let ads = try FileManager.default.contentsOfDirectory(atPath: folder.appending("ads").description).filter { !$0.hasPrefix(".") }.sorted()
        #expect(ads == ["ad1-0.ts", "ad1-1.ts"])
        // Their dates go on from the break's start; the content's cue tags are gone.
        let withAds = try #require(playlists.first { $0.segments.contains { $0.uri == "ads/ad1-1.ts" } })
        let adDates = withAds.segments.filter { $0.uri.hasPrefix("ads/") }.map { $0.programDateTime!.secondsSinceEpoch }
        #expect(adDates == [MediaTime(seconds: Int64(ScriptedOrigin.epoch + 6)), MediaTime(seconds: Int64(ScriptedOrigin.epoch + 8))])
        #expect(playlists.allSatisfy { $0.segments.allSatisfy { $0.cueOut == nil && $0.cueIn == nil } })
    }

    /// Content always plays (issue 68): an ad whose file is missing is dropped once, with a note,
    /// and its break plays the other ad; the dated break whose only ad is missing plays as content.
    /// ```
    /// content  | 0 | 1 | 2 | 3 | 4 | 5 | ... |END     CUE-OUT:DURATION=4 on 3, CUE-IN on 5
    /// stitched | 0 | 1 | 2 |/ad1-0|/ad1-1|/5 | ...   gone.mp4 dropped from the pod; "dated" none
    /// ```
    @Test func anAdThatCannotPlayIsDroppedAndTheStreamGoesOn() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        let schedule = try Self.schedule("""
            { "id": "ssai", "at": "markers", "ads": [ { "id": "gone", "url": "FIXTURES/gone.mp4" }, { "url": "FIXTURES/ad1.mp4", "end": 4 } ] },
            { "id": "dated", "at": "\(HLSDateTime(secondsSinceEpoch: MediaTime(seconds: Int64(ScriptedOrigin.epoch + 16))))",
              "ads": [ { "id": "gone-too", "url": "FIXTURES/gone-too.mp4" } ] }
            """)
        let (playlists, statuses, folder) = try await Self.follow(schedule, origin: origin)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let notes = statuses.flatMap(\.notes).filter { $0.contains("dropped") }
        #expect(notes.count == 2, "\(notes)")
        #expect(notes.first?.hasPrefix("ad 'gone': ") == true && notes.first?.hasSuffix("so it is dropped: its breaks play their other ads (content where none is left)") == true,
                "\(notes)")
        let uris = Self.stream(playlists) { ($0.isDiscontinuity ? "/" : "") + $0.uri }
        let content = { (n: Int) in "http://127.0.0.1/seg\(n).ts" }
        #expect(uris.keys.sorted().map { uris[$0]! } == (0..<3).map(content) + ["/ads/ad1-0.ts", "ads/ad1-1.ts", "/" + content(5)] + (6..<14).map(content))
        #expect(playlists.last?.hasEndList == true)
    }

    /// `live … --output out`, a folder relative to the working one, wrote `out/ads/ad1-0.ts` into
    /// `out/stitched.m3u8` (the fourth campaign: 7 of 7 URIs did not resolve from the playlist).
    @Test func aRelativeOutputFolderWritesURIsRelativeToThePlaylist() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        // The temporary folder, by a path relative to the working folder (`../../tmp/…`).
        let working = currentFolder().description.split(separator: "/")
        let relative = FilePath(String(repeating: "../", count: working.count)
                                + FileManager.default.temporaryDirectory.path.drop { $0 == "/" } + "/live-relative-\(UUID().uuidString)")
        let (playlists, _, folder) = try await Self.follow(try Self.schedule(Self.ad1For4Seconds), origin: origin, output: relative)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        #expect(folder.isAbsolute)
        let written = Set(playlists.flatMap(\.segments).map(\.uri).filter { !$0.hasPrefix("http:") })
        #expect(written == ["ads/ad1-0.ts", "ads/ad1-1.ts"])
        for uri in written { #expect(FileManager.default.fileExists(atPath: folder.appending(uri).description), "\(uri)") }
    }

    /// In fragmented MP4 content each break plays copies of its own of its ads, their decode
    /// times going on from the content's at the break's first replaced segment (GStreamer's
    /// hlsdemux2 keeps decode times across discontinuities). Once the window has moved a whole
    /// window past a break, its copies go.
    ///
    ///     content tfdt | 7200 | 7202 | 7204 | 7206 | 7208 | 7210 |     CUE-OUT:DURATION=4 on 3, CUE-IN on 5
    ///     stitched     |  0   |  1   |  2   |/ad1 7206|ad1 7208|/5 |     and again on 8 and 10
    ///
    /// The content's segments are files of their own, or byte ranges of one file.
    @Test(arguments: [false, true])
    func fragmentedAdsGoOnTheContentsClock(ranged: Bool) async throws {
        let content = FragmentedContent.shared
        let markers = [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN", 8: "#EXT-X-CUE-OUT:DURATION=4", 10: "#EXT-X-CUE-IN"]
        var folders: [(window: ClosedRange<UInt64>, breaks: [String])] = []
        var written: [String: [UInt8]] = [:]
        let (playlists, _, folder) = try await Self.follow(
            try Self.schedule(Self.ad1For4Seconds), origin: ScriptedOrigin(count: 24, markers: markers, fragmented: content, ranged: ranged),
            after: { status, folder in
            guard let window = status.content else { return }
            let ads = folder.appending("breaks").description
            let breaks = ((try? FileManager.default.contentsOfDirectory(atPath: ads)) ?? []).filter { $0.hasPrefix("ssai") }.sorted()
            folders.append((window, breaks))
            for name in breaks.flatMap({ id in ((try? FileManager.default.contentsOfDirectory(atPath: ads + "/" + id)) ?? []).map { id + "/" + $0 } }) {
                written[name] = FileManager.default.contents(atPath: ads + "/" + name).map(Array.init)
            }
        })
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let stream = Self.stream(playlists) { ($0.isDiscontinuity ? "/" : "") + $0.uri }
        let uris = stream.keys.sorted().map { stream[$0]! }
        let segment = { (n: Int) in ranged ? "http://127.0.0.1/all.mp4" : "http://127.0.0.1/seg\(n).m4s" }
        let ads = { (id: String) in ["/breaks/\(id)/0-ad1-0.m4s", "breaks/\(id)/0-ad1-1.m4s"] }
        #expect(uris == (0..<3).map(segment) + ads("ssai-3") + ["/" + segment(5)] + (6..<8).map(segment) + ads("ssai-8") + ["/" + segment(10)] + (11..<24).map(segment))

        // Each ad segment's decode time is the content's at its break's start plus its break time.
        for (id, start) in [("ssai-3", 3), ("ssai-8", 8)] {
            let clock = try content.decodeTime(start)
            #expect(clock > FragmentedContent.clockStart + MediaTime(seconds: Int64(2 * start - 1)))
            var breakTime = MediaTime.zero
            for name in ["0-ad1-0.m4s", "0-ad1-1.m4s"] {
                let time = try FragmentDecodeTime.start(
                    initSection: Array(try Data(contentsOf: URL(fileURLWithPath: folder.appending("ads/ad1-init.mp4").description))), initName: "ad1-init.mp4",
                    segment: try #require(written[id + "/" + name]), segmentName: name)
                #expect(abs((time - (clock + breakTime)).seconds) < 0.001, "\(id)/\(name): \(time) s")
                breakTime += try #require(playlists.lazy.compactMap { $0.segments.first { $0.uri == "breaks/\(id)/\(name)" } }.first).duration
            }
        }
        // The decisions say each break's clock, for a stitcher restarted after its segment left.
        let decisions = try String(contentsOfFile: folder.appending("live-decisions.json").description, encoding: .utf8)
        #expect(decisions.contains("\"clock\":\"\(try content.decodeTime(3).value)/\(try content.decodeTime(3).timescale)\""), "\(decisions)")

        // A break's copies stay until the window has moved a whole window (6) past its return.
        for (window, breaks) in folders {
            #expect(breaks.contains("ssai-3") == (window.lowerBound < 5 + 6 && window.upperBound >= 3), "window \(window): \(breaks)")
            #expect(breaks.contains("ssai-8") == (window.lowerBound < 10 + 6 && window.upperBound >= 8), "window \(window): \(breaks)")
        }
    }

    /// When the content's segment cannot be read, the break's ads keep their own decode times
    /// (from 0), and the reload says why.
    @Test func aBreakWhoseSegmentCannotBeReadKeepsItsAdsOwnClock() async throws {
        let markers = [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"]
        let (_, statuses, folder) = try await Self.follow(
            try Self.schedule(Self.ad1For4Seconds), origin: ScriptedOrigin(markers: markers, fragmented: try FragmentedContent(count: 0)))
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        #expect(statuses.flatMap(\.notes).contains { $0 == "break 'ssai-3' plays its ads on their own clock: http://127.0.0.1/seg3.m4s: HTTP 404 (not found)" }, "\(statuses.flatMap(\.notes))")
        let time = try FragmentDecodeTime.start(
            initSection: Array(try Data(contentsOf: URL(fileURLWithPath: folder.appending("ads/ad1-init.mp4").description))), initName: "ad1-init.mp4",
            segment: Array(try Data(contentsOf: URL(fileURLWithPath: folder.appending("breaks/ssai-3/0-ad1-0.m4s").description))), segmentName: "0-ad1-0.m4s")
        #expect(time <= MediaTime(seconds: 1))
        let decisions = try String(contentsOfFile: folder.appending("live-decisions.json").description, encoding: .utf8)
        #expect(decisions.contains("\"clock\":null"))
    }

    /// Two variants, the second loaded a segment ahead of the first: each stitched playlist is a
    /// good reload of its last, and the two agree, segment for segment, on sequence numbers,
    /// discontinuities, dates and ads, once the second's extra segment is taken.
    @Test func everyVariantFromTheSameDecisions() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        let schedule = try Self.schedule(Self.ad1For4Seconds, content: "http://127.0.0.1/master.m3u8")
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let live = LiveHLSStitching(schedule: schedule, output: folder, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
        var loads: [[HLSMediaPlaylist]] = [[], []]
        try await live.run(for: nil, clock: InstantClock()) { _ in
            for variant in 0..<2 {
                let path = folder.appending("stitched-\(variant).m3u8").description
                guard let bytes = FileManager.default.contents(atPath: path) else { continue }
                loads[variant].append((try? HLSMediaPlaylist(parsing: Array(bytes), url: "file://" + path))!)
            }
        }
        let multivariant = try #require(FileManager.default.contents(atPath: folder.appending("stitched.m3u8").description))
        #expect(String(decoding: multivariant, as: UTF8.self).contains("stitched-1.m3u8"))
        for variant in loads {
            for (previous, next) in zip(variant, variant.dropFirst()) { #expect(LiveReloadCheck.violations(from: previous, to: next) == []) }
        }
        func shape(_ playlist: HLSMediaPlaylist) -> [String] {
            playlist.segments.enumerated().map { offset, segment in
                "\(playlist.mediaSequence! + UInt64(offset)) \(segment.isDiscontinuity) \(segment.programDateTime!) \(segment.uri.hasPrefix("ads/") ? segment.uri : "content")"
            }
        }
        // Each segment by media sequence number, with its discontinuity number (RFC 8216bis 6.2.2:
        // what renditions must agree on): the same in both variants wherever both list it.
        func numbered(_ playlist: HLSMediaPlaylist) -> [UInt64: String] {
            var number = playlist.discontinuitySequence ?? 0
            var found: [UInt64: String] = [:]
            for (offset, line) in shape(playlist).enumerated() {
                if playlist.segments[offset].isDiscontinuity { number += 1 }
                found[playlist.mediaSequence! + UInt64(offset)] = "\(line) d\(number)"
            }
            return found
        }
        #expect(loads[0].count == loads[1].count && loads[0].count > 5)
        for (first, second) in zip(loads[0], loads[1]) {
            let (a, b) = (numbered(first), numbered(second))
            let both = Set(a.keys).intersection(b.keys)
            #expect(both.count >= 4 && both.allSatisfy { a[$0] == b[$0] }, "\(shape(first)) against \(shape(second))")
        }
        #expect(loads[0].contains { $0.segments.contains { $0.uri == "ads/ad1-1.ts" } })
    }

    /// A variant with an audio and a subtitles rendition in playlists of their own, each loaded a
    /// segment ahead of the variant: all three stitched from the same decisions, so at every
    /// reload they agree segment for segment (wherever both list one) on sequence and
    /// discontinuity numbers and dates; the
    /// audio rendition plays the ads' muxed segments, the subtitles one an empty WebVTT file.
    @Test func renditionsAgreeWithTheirVariant() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        let schedule = try Self.schedule(Self.ad1For4Seconds, content: "http://127.0.0.1/renditions.m3u8")
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let live = LiveHLSStitching(schedule: schedule, output: folder, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
        let names = ["stitched-0.m3u8", "stitched-audio-0.m3u8", "stitched-subtitles-0.m3u8"]
        var loads: [[HLSMediaPlaylist]] = [[], [], []]
        try await live.run(for: nil, clock: InstantClock()) { _ in
            for (index, name) in names.enumerated() {
                let path = folder.appending(name).description
                guard let bytes = FileManager.default.contents(atPath: path) else { continue }
                loads[index].append((try? HLSMediaPlaylist(parsing: Array(bytes), url: "file://" + path))!)
            }
        }
        let multivariant = String(decoding: try #require(FileManager.default.contents(atPath: folder.appending("stitched.m3u8").description)), as: UTF8.self)
        #expect(multivariant.contains(#"URI="stitched-audio-0.m3u8""#) && multivariant.contains(#"URI="stitched-subtitles-0.m3u8""#))
        #expect(FileManager.default.contents(atPath: folder.appending("stitched-empty.vtt").description) == Data("WEBVTT\n".utf8))
        for playlists in loads {
            for (previous, next) in zip(playlists, playlists.dropFirst()) { #expect(LiveReloadCheck.violations(from: previous, to: next) == []) }
        }
        // Each segment by media sequence number: discontinuity number, date, and what it is.
        func numbered(_ playlist: HLSMediaPlaylist) -> [UInt64: String] {
            var number = playlist.discontinuitySequence ?? 0
            var found: [UInt64: String] = [:]
            for (offset, segment) in playlist.segments.enumerated() {
                if segment.isDiscontinuity { number += 1 }
                let what = segment.uri.hasPrefix("http") ? "content" : "ad"
                found[playlist.mediaSequence! + UInt64(offset)] = "d\(number) \(segment.programDateTime!) \(what)"
            }
            return found
        }
        #expect(loads[0].count == loads[1].count && loads[0].count == loads[2].count && loads[0].count > 5)
        for reload in loads[0].indices {
            let video = numbered(loads[0][reload])
            for rendition in [loads[1][reload], loads[2][reload]] {
                // The rendition, loaded a segment later, may have lost the variant's first
                // segments (a break's ads, which leave with the content the break replaced).
                let other = numbered(rendition)
                let head = try #require(other.keys.min())
                #expect(video.keys.filter { $0 >= head }.allSatisfy { video[$0] == other[$0] }, "reload \(reload): \(video) against \(other)")
                #expect(video.keys.filter { $0 < head }.count <= 2, "reload \(reload): \(video) against \(other)")
            }
        }
        // What each lists in the break, by media sequence number over every reload.
        let (audio, subtitles) = (Self.stream(loads[1], \.uri), Self.stream(loads[2], \.uri))
        #expect([audio[3], audio[4], audio[5]] == ["ads/ad1-0.ts", "ads/ad1-1.ts", "http://127.0.0.1/a/seg5.ts"])
        #expect([subtitles[3], subtitles[4], subtitles[5]] == ["stitched-empty.vtt", "stitched-empty.vtt", "http://127.0.0.1/s/seg5.vtt"])
    }

    /// A stitcher stopped after four reloads and another started on the same folder carry on one
    /// stream: the reload across the restart is a good one, and the stream is the one a single
    /// stitcher writes. In fragmented MP4, so are the breaks' copies of their ads, byte for byte.
    @Test(arguments: [false, true])
    func aRestartedStitcherCarriesOnTheStream(fragmented: Bool) async throws {
        let markers = [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN", 8: "#EXT-X-CUE-OUT:DURATION=6", 11: "#EXT-X-CUE-IN"]
        let schedule = try Self.schedule(Self.ad1For4Seconds)
        let content = fragmented ? FragmentedContent.shared : nil
        let whole = try await Self.follow(schedule, origin: ScriptedOrigin(markers: markers, fragmented: content))
        defer { try? FileManager.default.removeItem(atPath: whole.folder.description) }

        let origin = ScriptedOrigin(markers: markers, fragmented: content)
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        var playlists: [HLSMediaPlaylist] = [], notes: [String] = []
        for duration in [Duration.seconds(7), nil] {
            let live = LiveHLSStitching(schedule: schedule, output: folder, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
            let path = folder.appending("stitched.m3u8").description
            try await live.run(for: duration, clock: InstantClock()) { status in
                notes += status.notes
                if status.wrote, let bytes = FileManager.default.contents(atPath: path) {
                    playlists.append((try? HLSMediaPlaylist(parsing: Array(bytes), url: "file://" + path))!)
                }
            }
        }
        #expect(notes.contains { $0.hasPrefix("carried on from live-decisions.json: 1 breaks") })
        for (previous, next) in zip(playlists, playlists.dropFirst()) {
            #expect(LiveReloadCheck.violations(from: previous, to: next) == [])
        }
        #expect(Self.stream(playlists) == Self.stream(whole.playlists))
        #expect(playlists.last?.hasEndList == true)
        let ads = { (folder: FilePath) -> [String: Data] in
            let root = folder.description
            let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            return Dictionary(uniqueKeysWithValues: names.compactMap { name in FileManager.default.contents(atPath: root + "/" + name).map { (name, $0) } })
        }
        #expect(ads(folder).filter { $0.key.hasPrefix("ads/") || $0.key.hasPrefix("breaks/") } == ads(whole.folder).filter { $0.key.hasPrefix("ads/") || $0.key.hasPrefix("breaks/") })
        #expect(ads(folder).keys.contains("breaks/ssai-8/0-ad1-1.m4s") == fragmented)

        // A decisions file that is not one, or names ads the schedule does not have: said, not guessed.
        try Data("{\"format\": \"other\"}".utf8).write(to: URL(fileURLWithPath: folder.appending("live-decisions.json").description))
        let again = LiveHLSStitching(schedule: schedule, output: folder, transport: ScriptedOrigin(), limits: HTTPTransportLimits(maximumRetries: 0))
        await #expect(throws: LiveStitchingError.self) { try await again.run(for: nil, clock: InstantClock()) { _ in } }
    }

    /// A slate fills what the ads leave of a span whose length the marker gives, repeated, each a
    /// new ad (a discontinuity); a span open until its CUE-IN gets none. A stitcher restarted
    /// mid-break finds the slate's repeats again in the decisions it left.
    ///
    ///     content  | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | ...    CUE-OUT:DURATION=8 on 3, CUE-IN on 7
    ///     stitched | 0 | 1 | 2 |/ad1-0|ad1-1|/slate|/slate|/7 | ...
    @Test func aSlateFillsTheRestOfAMarkedSpan() async throws {
        let slated = #"{ "id": "ssai", "at": "markers", "ads": [ { "url": "FIXTURES/ad1.mp4", "end": 4 } ], "slate": { "url": "FIXTURES/ad1.mp4", "end": 2 } }"#
        let schedule = try Self.schedule(slated)
        #expect(schedule.breaks.first?.slate?.id == "ssai-slate")
        let markers = [3: "#EXT-X-CUE-OUT:DURATION=8", 7: "#EXT-X-CUE-IN", 9: "#EXT-X-CUE-OUT", 11: "#EXT-X-CUE-IN"]
        func uris(_ playlists: [HLSMediaPlaylist]) -> [String] {
            let found = Self.stream(playlists) { ($0.isDiscontinuity ? "/" : "") + $0.uri.replacingOccurrences(of: "http://127.0.0.1/", with: "") }
            return found.keys.sorted().map { found[$0]! }
        }
        let whole = try await Self.follow(schedule, origin: ScriptedOrigin(markers: markers))
        defer { try? FileManager.default.removeItem(atPath: whole.folder.description) }
        for (previous, next) in zip(whole.playlists, whole.playlists.dropFirst()) {
            #expect(LiveReloadCheck.violations(from: previous, to: next) == [])
        }
        let slate = "ads/ad1-2-0.ts"
        #expect(uris(whole.playlists) == ["seg0.ts", "seg1.ts", "seg2.ts", "/ads/ad1-0.ts", "ads/ad1-1.ts", "/" + slate, "/" + slate, "/seg7.ts", "seg8.ts",
                                            "/ads/ad1-0.ts", "ads/ad1-1.ts", "/seg11.ts", "seg12.ts", "seg13.ts"])

        // Stopped after the break's first reloads and started again on the folder: the same stream.
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let origin = ScriptedOrigin(markers: markers)
        var playlists: [HLSMediaPlaylist] = []
        for duration in [Duration.seconds(5), nil] {
            let live = LiveHLSStitching(schedule: schedule, output: folder, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
            let path = folder.appending("stitched.m3u8").description
            try await live.run(for: duration, clock: InstantClock()) { status in
                if status.wrote, let bytes = FileManager.default.contents(atPath: path) {
                    playlists.append((try? HLSMediaPlaylist(parsing: Array(bytes), url: "file://" + path))!)
                }
            }
        }
        #expect(uris(playlists) == uris(whole.playlists))

        // Only a break at markers takes a slate.
        #expect(throws: ScheduleDocumentError.self) {
            _ = try Self.schedule(#"{ "id": "news", "at": "on-demand", "ads": [ { "url": "FIXTURES/ad1.mp4" } ], "slate": { "url": "FIXTURES/ad1.mp4" } }"#)
        }
    }

    /// Restarts at random: over origins of 60 segments with breaks at random (a duration or not,
    /// pods falling short or running long, a slate), a stitcher stopped after a random number of
    /// reloads and started again on its folder, again and again, writes the stream one
    /// uninterrupted stitcher writes, every reload across a restart a good one.
    @Test func restartsAtRandomCarryOnTheStream() async throws {
        var random = SeededGenerator(seed: 555)
        let breaks = #"{ "id": "ssai", "at": "markers", "ads": [ { "url": "FIXTURES/ad1.mp4", "end": 4 }, { "url": "FIXTURES/ad1.mp4", "start": 4, "end": 6 } ], "slate": { "url": "FIXTURES/ad1.mp4", "end": 2 } }"#
        let schedule = try Self.schedule(breaks)
        var restarts = 0
        for scenario in 0..<3 {
            var markers: [Int: String] = [:]
            var n = 2 + Int(random.next() % 4)
            while n < 50 {
                let length = 1 + Int(random.next() % 6)
                markers[n] = random.next() % 3 == 0 ? "#EXT-X-CUE-OUT" : "#EXT-X-CUE-OUT:DURATION=\(2 * length)"
                markers[n + length] = "#EXT-X-CUE-IN"
                n += length + 1 + Int(random.next() % 6)
            }
            let whole = try await Self.follow(schedule, origin: ScriptedOrigin(count: 60, markers: markers))
            defer { try? FileManager.default.removeItem(atPath: whole.folder.description) }

            let origin = ScriptedOrigin(count: 60, markers: markers)
            let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
            defer { try? FileManager.default.removeItem(atPath: folder.description) }
            var playlists: [HLSMediaPlaylist] = []
            var ended = false
            while !ended {
                // A run of 1 to 8 reloads (2 s each), then a stop; the last run goes to the end.
                let reloads = 1 + Int(random.next() % 8)
                let live = LiveHLSStitching(schedule: schedule, output: folder, transport: origin, limits: HTTPTransportLimits(maximumRetries: 0))
                let path = folder.appending("stitched.m3u8").description
                let last = try await live.run(for: .seconds(2 * reloads), clock: InstantClock()) { status in
                    if status.wrote, let bytes = FileManager.default.contents(atPath: path) {
                        playlists.append((try? HLSMediaPlaylist(parsing: Array(bytes), url: "file://" + path))!)
                    }
                }
                ended = last?.ended == true || playlists.last?.hasEndList == true
                restarts += 1
            }
            for (previous, next) in zip(playlists, playlists.dropFirst()) {
                #expect(LiveReloadCheck.violations(from: previous, to: next) == [], "scenario \(scenario)")
            }
            #expect(Self.stream(playlists) == Self.stream(whole.playlists), "scenario \(scenario): \(markers)")
        }
        #expect(restarts >= 15)
    }

    /// `live --duration 12` stopped at its last reload before 12 s (at 5 s once): a reload falling
    /// due after the deadline is made at it, the last one.
    ///
    ///     reloads  0 ---- 2 ---- 4 -- 5      (2 s apart, the content's target duration)
    ///     deadline                    5
    @Test func aDurationIsFollowedToItsEnd() async throws {
        let clock = InstantClock()
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let live = LiveHLSStitching(schedule: try Self.schedule(Self.ad1For4Seconds), output: folder, transport: ScriptedOrigin(),
                                    limits: HTTPTransportLimits(maximumRetries: 0))
        var reloads = 0
        let last = try await live.run(for: .seconds(5), clock: clock) { _ in reloads += 1 }
        #expect(clock.sleeps == [.seconds(2), .seconds(2), .seconds(1)])
        #expect(reloads == 4 && last?.ended == false)
    }

    /// A window that empties (the fourth campaign) was written as a playlist with no segments: the
    /// last one stays, and each such reload says so.
    @Test func anEmptiedWindowLeavesTheLastPlaylist() async throws {
        let origin = ScriptedOrigin(emptiedFrom: 3)
        let clock = InstantClock()
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let live = LiveHLSStitching(schedule: try Self.schedule(Self.ad1For4Seconds), output: folder, transport: origin,
                                    limits: HTTPTransportLimits(maximumRetries: 0))
        var statuses: [LiveReloadStatus] = []
        var kept: [String] = []
        try await live.run(for: .seconds(8), clock: clock) { status in
            statuses.append(status)
            kept.append(String(decoding: FileManager.default.contents(atPath: folder.appending("stitched.m3u8").description) ?? Data(), as: UTF8.self))
        }
        #expect(statuses.count >= 4)
        #expect(!statuses[1].notes.contains { $0.contains("lists no segment") })
        // The load that emptied it says so; the loads after it are the same playlist (unchanged).
        #expect(statuses[2].notes.contains("stitched.m3u8: the content lists no segment; the stitched playlist is left as it was"), "\(statuses[2].notes)")
        #expect(statuses[3...].allSatisfy { $0.change == .unchanged })
        #expect(kept[2...].allSatisfy { $0 == kept[1] } && kept[1].contains("#EXTINF"), "\(kept)")
    }

    /// An origin whose EXT-X-TARGETDURATION went 2 -> 10 was reported, yet the stitched playlist
    /// changed its own too (RFC 8216bis 6.2.1 forbids it). It keeps the first load's (in
    /// live-decisions.json, for a restart), and each reload says so; longer segments are counted.
    @Test func theTargetDurationIsKept() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"], targetTenFrom: 4)
        let (playlists, statuses, folder) = try await Self.follow(try Self.schedule(Self.ad1For4Seconds), origin: origin)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        #expect(playlists.count > 4 && playlists.allSatisfy { $0.targetDuration == 2 })
        let noted = statuses.filter { $0.notes.contains { $0.hasPrefix("the content's EXT-X-TARGETDURATION is 10 s; the stitched playlists keep 2 s") } }
        #expect(!noted.isEmpty)
        let decisions = try #require(FileManager.default.contents(atPath: folder.appending("live-decisions.json").description))
        #expect(String(decoding: decisions, as: UTF8.self).contains("\"targetDuration\":2"))
        // A segment of 3 s (rounded, over 2) and one of 2.4 s (rounded 2): one counted.
        var content = try #require(playlists.last)
        content.targetDuration = 10
        content.segments[0].duration = MediaTime(seconds: 3)
        content.segments[1].duration = MediaTime(value: 12, timescale: 5)
        #expect(LiveHLSStitching.targetDurationNote(content: content, kept: 2)
                == "the content's EXT-X-TARGETDURATION is 10 s; the stitched playlists keep 2 s (RFC 8216bis 6.2.1); "
                + "1 of its segments last longer (the first 3 s), listed as they are")
    }

    /// What an app's session reads from each reload: the stitched playlist as bytes.
    @Test func aStitchedPlaylistReadAsALiveTimeline() async throws {
        let origin = ScriptedOrigin(markers: [3: "#EXT-X-CUE-OUT:DURATION=4", 5: "#EXT-X-CUE-IN"])
        let (playlists, _, folder) = try await Self.follow(try Self.schedule(Self.ad1For4Seconds), origin: origin)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let withBreak = try #require(playlists.last { $0.segments.contains { $0.uri == "ads/ad1-1.ts" } })
        let timeline = try LiveTimeline(stitchedPlaylist: Array(withBreak.text.utf8), url: "http://127.0.0.1/out/stitched.m3u8")
        let start = MediaTime(seconds: Int64(ScriptedOrigin.epoch + 6))
        #expect(timeline.breaks == [LiveTimeline.Break(
            id: "ssai-3", start: start, ads: [LiveTimeline.Ad(id: "ssai-ad-1", duration: MediaTime(seconds: 4))], replaced: MediaTime(seconds: 4))])
        #expect(timeline.windowStart == withBreak.segments[0].programDateTime!.secondsSinceEpoch && !timeline.hasEnded)
        #expect(throws: LiveTimelineError.self) {
            _ = try LiveTimeline(stitchedPlaylist: Array("#EXTM3U\n#EXTINF:x,\na.ts\n".utf8), url: "http://127.0.0.1/bad.m3u8")
        }
        #expect(throws: LiveTimelineError(url: "http://127.0.0.1/undated.m3u8",
                                          reason: "no segment with EXT-X-PROGRAM-DATE-TIME: a live stream's clock is its dates")) {
            _ = try LiveTimeline(stitchedPlaylist: Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8), url: "http://127.0.0.1/undated.m3u8")
        }
    }

    @Test func reloadsWaitATargetDurationAndHalfOfOneAfterNoChange() async throws {
        let origin = ScriptedOrigin(count: 10, repeatsEveryThird: true)
        let clock = InstantClock()
        let (_, statuses, folder) = try await Self.follow(try Self.schedule(Self.ad1For4Seconds), origin: origin, clock: clock)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        #expect(statuses.contains { $0.change == .unchanged })
        for (status, sleep) in zip(statuses, clock.sleeps) {
            #expect(sleep == (status.change == .unchanged ? .seconds(1) : .seconds(2)), "\(status)")
        }
    }

    @Test func aFailedLoadKeepsThePlaylistAndTriesAgain() async throws {
        let origin = ScriptedOrigin(count: 10, failing: [4, 5])
        let (playlists, statuses, folder) = try await Self.follow(try Self.schedule(Self.ad1For4Seconds), origin: origin)
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        #expect(statuses.filter { if case .failed = $0.change { true } else { false } }.count == 2)
        #expect(playlists.last?.hasEndList == true)
    }

    @Test func aDatedBreakAndAnInsertedOne() async throws {
        // "news", asked for before the first load (segments 0-3: the scripted origin publishes one
        // more per load), plays from the first segment published after it, 4, for 2.002 s; content
        // is back at 5 (2 ms late), and the dated break starts at 6, on the stitched clock: 2 ms
        // after segment 6's own date.
        let date = HLSDateTime(secondsSinceEpoch: MediaTime(seconds: Int64(ScriptedOrigin.epoch + 2 * 6)))
        let schedule = try Self.schedule("""
            { "id": "six", "at": "\(date)", "ads": [ { "url": "FIXTURES/ad1.mp4", "end": 2 } ] },
            { "id": "news", "at": "on-demand", "ads": [ { "url": "FIXTURES/ad2.mp4", "end": 2 } ] }
            """)
        let (playlists, _, folder) = try await Self.follow(schedule, origin: ScriptedOrigin(count: 16)) { live in
            try await live.insertNow("news")
            await #expect(throws: LiveStitchingError(.noSuchBreak(id: "six", known: ["news"]))) { try await live.insertNow("six") }
        }
        defer { try? FileManager.default.removeItem(atPath: folder.description) }
        let ranges = Set(playlists.flatMap { $0.segments.flatMap { $0.dateRanges.map(\.id) } })
        #expect(ranges == ["six", "news-4"])
        let starts = Dictionary(playlists.flatMap { $0.segments.flatMap { segment in segment.dateRanges.map { ($0.id, $0.startDate!.secondsSinceEpoch) } } },
                                uniquingKeysWith: { first, _ in first })
        #expect(starts["six"] == MediaTime(seconds: Int64(ScriptedOrigin.epoch + 12)) + MediaTime(value: 2, timescale: 1000))
        for (previous, next) in zip(playlists, playlists.dropFirst()) {
            #expect(LiveReloadCheck.violations(from: previous, to: next) == [])
        }
    }

    @Test func contentThatIsNotLiveOrNotThereIsATypedError() async throws {
        let schedule = try Self.schedule(Self.ad1For4Seconds)
        await #expect(throws: LiveStitchingError.self) {
            _ = try await Self.follow(schedule, origin: ScriptedOrigin(finishedFromStart: true))
        }
        do {
            _ = try await Self.follow(schedule, origin: ScriptedOrigin(failing: [1]))
            Issue.record("a first load that fails must stop the stitcher")
        } catch let error as LiveStitchingError {
            #expect(error.description.contains("http://127.0.0.1/live.m3u8"))
        }
    }

    @Test(arguments: [
        (#"{ "content": [ { "url": "a.m3u8" }, { "url": "b.m3u8" } ] }"#, "content: live content is one clip"),
        (#"{ "content": [ { "url": "a.m3u8", "end": 10 } ] }"#, "content[0]: live content plays as it comes"),
        (#"{ "content": [ { "url": "a.m3u8" } ], "breaks": [ { "at": 30, "ads": [ { "url": "x.mp4" } ] } ] }"#, "breaks[0].at: a break of live content is at"),
        (#"{ "content": [ { "url": "a.m3u8" } ], "breaks": [ { "at": "tomorrow", "ads": [ { "url": "x.mp4" } ] } ] }"#, "breaks[0].at: expected \"markers\", \"on-demand\" or a date-time"),
        (#"{ "content": [ { "url": "a.m3u8" } ], "breaks": [ { "at": "markers", "ads": [] } ] }"#, "breaks[0].ads: a live break needs at least one ad"),
        (#"{ "content": [ { "url": "a.m3u8" } ], "breaks": [ { "at": "markers", "vast": "v.xml" } ] }"#, "breaks[0].vast: a break of live content takes no"),
        (#"{ "content": [ { "url": "a.m3u8" } ], "breaks": [ { "id": "x", "at": "on-demand", "ads": [ { "url": "x.mp4" } ] }, { "id": "x", "at": "markers", "ads": [ { "url": "x.mp4" } ] } ] }"#, "breaks[1].id: break 'x' is named twice"),
    ])
    func aLiveScheduleSaysWhereItIsWrong(_ text: String, _ expected: String) {
        #expect {
            _ = try ScheduleDocument.decodeLive(Array(text.utf8), baseFolder: nil)
        } throws: { error in
            "\(error)".hasPrefix(expected)
        }
    }
}
