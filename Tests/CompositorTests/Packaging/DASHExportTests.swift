import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTestSupport
import CompositorUmbrellaTestSupport

/// The schedule as a multi-period MPD: one period per piece of the reconciled composition,
/// starting where the piece does, each playing exactly the piece's frames from its segments.
///
///     composition | content 0-10 | ad1 | ad2 | content 10-20 |
///     periods     | 1            | 2   | 3   | 4 (continuity with 1) |
/// An element of the MPD as `XMLParser` reads it, not by the code that wrote it. (The DOM classes
/// of swift-corelibs-foundation, `XMLDocument`, leak their libxml2 trees under LeakSanitizer.)
final class MPDElement {
    let name: String
    let attributes: [String: String]
    private(set) var elements: [MPDElement] = []
    /// The text in it (outside its children).
    private(set) var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The child elements named `name`.
    func children(_ name: String) -> [MPDElement] { elements.filter { $0.name == name } }

    func value(_ name: String) -> String? { attributes[name] }

    /// The document at `path`, read whole.
    static func read(_ path: String) throws -> MPDElement {
        final class Builder: NSObject, XMLParserDelegate {
            var stack: [MPDElement] = []
            var root: MPDElement?
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                let element = MPDElement(name: name, attributes: attributes)
                stack.last?.elements.append(element)
                if stack.isEmpty { root = element }
                stack.append(element)
            }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                stack.removeLast()
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) {
                stack.last?.text += string.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else { throw DemoTestError("\(path): \(parser.parserError.map { "\($0)" } ?? "no root")") }
        return root
    }
}

@Suite("DASH: the schedule as a multi-period MPD")
struct DASHExportTests {
    /// `composition` exported by `exporter` and written into `folder`, on a thread of its own: an
    /// export blocks while it reads and packages, which would hold one of the cooperative pool's
    /// few threads (and starve other suites' timers).
    static func exported(_ composition: Composition, into folder: String, by exporter: DASHExporter = DASHExporter()) async throws -> DASHExport {
        try await runOffCooperativePool {
            Result { () throws(DASHExportError) -> DASHExport in
                let presentation = try exporter.export(composition)
                try presentation.write(into: FilePath(folder))
                return presentation
            }
        }.get()
    }

    /// A period's video as the MPD lists it: the init segment and media segments, where the
    /// period starts, and its first segment's time against its `presentationTimeOffset`.
    struct Period {
        var id: String
        var start: MediaTime
        var files: [String] = []
        var firstSegmentLead: Int64?
        var continuity: String?
        /// The audio's files, and its first segment's time against its `presentationTimeOffset`.
        var audioFiles: [String] = []
        var audioLead: Int64?
        /// Every representation of each kind, in the order listed.
        var representations: [String: [Representation]] = [:]
        /// Each audio adaptation set: its attributes and `Role`, and its representations.
        var audioSets: [(attributes: [String: String], role: String?, representations: [Representation])] = []
        /// Each text adaptation set: its attributes and `Role`, its file, and its `presentationTimeOffset`.
        var textSets: [(attributes: [String: String], role: String?, file: String, offset: MediaTime)] = []
    }

    /// One representation: its attributes, the files it plays (the init segment first), and its
    /// first segment's time against its `presentationTimeOffset`.
    struct Representation {
        var attributes: [String: String]
        var files: [String]
        var lead: Int64?
    }

    /// The MPD's periods, read by Foundation's XML parser.
    static func periods(_ path: String) throws -> (duration: MediaTime, periods: [Period]) {
        let root = try MPDElement.read(path)
        func seconds(_ text: String?) throws -> MediaTime {
            let text = try #require(text)
            #expect(text.hasPrefix("PT") && text.hasSuffix("S"), "\(text)")
            return try MediaTime(parsing: String(text.dropFirst(2).dropLast()))
        }
        var periods: [Period] = []
        for element in root.children("Period") {
            var period = Period(id: element.value("id") ?? "", start: try seconds(element.value("start")))
            for set in element.children("AdaptationSet") {
                let kind = set.value("contentType") ?? ""
                if kind == "video" {
                    period.continuity = set.children("SupplementalProperty").first {
                        $0.value("schemeIdUri") == "urn:mpeg:dash:period-continuity:2015"
                    }?.value("value")
                }
                if kind == "text" {
                    let representation = try #require(set.children("Representation").first)
                    let base = try #require(representation.children("SegmentBase").first)
                    let offset = MediaTime(
                        value: try #require(Int64(base.value("presentationTimeOffset") ?? "")),
                        timescale: try #require(Int32(base.value("timescale") ?? "")))
                    let file = try #require(representation.children("BaseURL").first?.text)
                    period.textSets.append((set.attributes, set.children("Role").first?.value("value"), file, offset))
                    continue
                }
                var listed: [Representation] = []
                for element in set.children("Representation") {
                    let template = try #require(element.children("SegmentTemplate").first)
                    let value = { (name: String) in template.value(name) ?? "" }
                    var number = try #require(Int(value("startNumber")))
                    var representation = Representation(attributes: element.attributes, files: [value("initialization")])
                    for s in try #require(template.children("SegmentTimeline").first).children("S") {
                        let t = try #require(Int64(s.value("t") ?? ""))
                        if representation.lead == nil { representation.lead = t - (Int64(value("presentationTimeOffset")) ?? 0) }
                        for _ in 0...(Int(s.value("r") ?? "0") ?? 0) {
                            representation.files.append(value("media").replacingOccurrences(of: "$Number$", with: "\(number)"))
                            number += 1
                        }
                    }
                    period.representations[kind, default: []].append(representation)
                    listed.append(representation)
                }
                if kind == "audio" { period.audioSets.append((set.attributes, set.children("Role").first?.value("value"), listed)) }
            }
            if let video = period.representations["video"]?.first { (period.files, period.firstSegmentLead) = (video.files, video.lead) }
            if let audio = period.representations["audio"]?.first { (period.audioFiles, period.audioLead) = (audio.files, audio.lead) }
            periods.append(period)
        }
        return (try seconds(root.value("mediaPresentationDuration")), periods)
    }

    @Test(.needsFFmpeg, arguments: ["demo.json", "demo-hls.json", "demo-hls-fmp4.json", "seed-scenario.json"])
    func everyPeriodPlaysItsPiece(_ name: String) async throws {
        try await Self.checkPeriods(of: try HLSJoin.composition(name), name: name)
    }

    /// Random schedules of the fixture clips (pre-, mid- and post-rolls, pods, the video-only
    /// bumper, cuts anywhere): the periods' durations sum to the composition's, and each period
    /// plays exactly its piece's frames from the one the reconciled composition names
    /// (`checkPeriods`). `COMPOSITOR_DASH_SEED=N` runs another seed.
    @Test(.needsFFmpeg)
    func randomSchedules() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["COMPOSITOR_DASH_SEED"] ?? "") ?? 56
        var random = SeededGenerator(seed: seed)
        let clips = [("content.mp4", 200), ("content2.mp4", 160)], ads = [("ad1.mp4", 100), ("ad2.mp4", 70), ("bumper-video-only.mp4", 20)]
        /// A range of a clip `tenths` long, in tenths of a second, at least `shortest` tenths long.
        func range(_ tenths: Int, shortest: Int = 10) -> String {
            let start = Int.random(in: 0...(tenths - shortest), using: &random)
            let end = Int.random(in: (start + shortest)...tenths, using: &random)
            return #""start": \#(Double(start) / 10), "end": \#(Double(end) / 10)"#
        }
        func pod(_ id: String) -> String {
            (0..<Int.random(in: 1...2, using: &random)).map { index in
                let (url, tenths) = ads.randomElement(using: &random)!
                return #"{ "id": "\#(id)-\#(index)", "url": "\#(url)", \#(range(tenths)) }"#
            }.joined(separator: ", ")
        }
        var checked = 0
        for round in 0..<6 {
            let content = (0..<Int.random(in: 1...2, using: &random)).map { index in
                let (url, tenths) = clips.randomElement(using: &random)!
                return #"{ "id": "c\#(index)", "url": "\#(url)", \#(range(tenths, shortest: 100)) }"#
            }
            var breaks: [String] = []
            if Bool.random(using: &random) { breaks.append(#"{ "id": "pre", "at": "preroll", "ads": [\#(pod("pre"))] }"#) }
            // Mid-rolls at different times inside the content (at least 10 s long).
            let times = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Int.random(in: 10...90, using: &random) })
            for (index, tenths) in times.sorted().enumerated() {
                let (id, at) = ("mid\(index)", Double(tenths) / 10)
                breaks.append(#"{ "id": "\#(id)", "at": \#(at), "ads": [\#(pod(id))] }"#)
            }
            if Bool.random(using: &random) { breaks.append(#"{ "id": "post", "at": "postroll", "ads": [\#(pod("post"))] }"#) }
            let json = #"{ "content": [\#(content.joined(separator: ", "))], "breaks": [\#(breaks.joined(separator: ", "))] }"#
            let name = "seed \(seed), schedule \(round): \(json)"
            do {
                try await Self.checkPeriods(of: try HLSJoin.composition(json: Array(json.utf8)), name: name)
                checked += 1
            } catch let error as DASHExportError where error.hlsError?.cause == .snapsToNothing {
                // A piece shorter than the keyframe spacing around it: the export's typed refusal.
                continue
            }
        }
        #expect(checked >= 3, "seed \(seed): only \(checked) of 6 schedules exported")
    }

    /// Exports `composition` as DASH (from its HLS export with every piece in fMP4) and holds the
    /// MPD to the composition: a period per piece, at its start, their durations summing to the
    /// composition's; each period's video exactly its piece's frames from the first; audio in
    /// every period or none, from the period's start (`name` says which schedule in messages).
    static func checkPeriods(of composition: Composition, name: String) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("dash")
        defer { MP4Fixtures.remove(folder) }
        let presentation = try await Self.exported(composition, into: folder + "/out")
        let played = presentation.reconciled.played

        let (duration, periods) = try Self.periods(folder + "/out/stitched.mpd")
        let micro = { (time: MediaTime) in try time.converted(to: 1_000_000, rounding: .toNearestOrAwayFromZero) }
        #expect(periods.count == played.segments.count)
        #expect(duration == (try micro(played.duration)))
        #expect(periods.map(\.start) == (try played.segments.map { try micro($0.compositionRange.start) }))
        #expect(Set(periods.map(\.id)).count == periods.count, "period IDs are unique")
        // Each period lasts until the next starts (the last, to the end): the durations sum to the composition's.
        let durations = zip(periods.map(\.start), periods.dropFirst().map(\.start) + [duration]).map { $1 - $0 }
        #expect(durations == (try played.segments.map { try micro($0.compositionRange.end) - micro($0.compositionRange.start) }), "\(name)")
        #expect(durations.reduce(MediaTime.zero, +) == duration, "\(name)")

        // Each period's video, its segments joined after its init segment, is exactly the piece's
        // frames; its first segment starts at its presentationTimeOffset (its first frame is the
        // piece's first).
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        let sources = played.segments.map { $0.source.filePath?.description ?? $0.source.url }
        let expected = try await judge.expectedFrames(played, sourcePlaylists: sources)
        for (index, period) in periods.enumerated() {
            var bytes: [UInt8] = []
            for file in period.files { bytes += try MP4Fixtures.bytes(folder + "/out/" + file) }
            let joined = folder + "/period-\(index)"
            try MP4Fixtures.write(bytes, to: joined)
            let frames = try await ffmpeg.decodedFrames(joined)
            #expect(!expected[index].isEmpty)
            #expect(frames.map(\.hash) == expected[index].map(\.hash), "\(name): period \(period.id) ('\(played.segments[index].id)')")
            #expect(period.firstSegmentLead == 0, "\(name): period \(period.id)")
        }
        // Audio in every period, or in none: a piece without audio of its own plays silence as
        // long as it (players that keep one audio buffer across periods wait at a gap). Audio
        // starts at its period, or less than an AAC frame (1024 samples) after it, never before
        // (GStreamer's DASH demuxers find no segment that starts before its period).
        #expect(periods.allSatisfy { $0.audioFiles.isEmpty } || periods.allSatisfy { !$0.audioFiles.isEmpty }, "\(name)")
        for (index, period) in periods.enumerated() where !period.audioFiles.isEmpty {
            var bytes: [UInt8] = []
            for file in period.audioFiles { bytes += try MP4Fixtures.bytes(folder + "/out/" + file) }
            let joined = folder + "/period-\(index)-audio"
            try MP4Fixtures.write(bytes, to: joined)
            let lead = try #require(period.audioLead)
            #expect(lead >= 0 && lead < 1024, "\(name): period \(period.id): audio starts \(lead) samples after it")
            #expect(try await ffmpeg.audioDecodeErrors(joined).isEmpty, "\(name): period \(period.id)")
            if period.audioFiles.first == "silence-init.mp4" {
                let sound = try await ffmpeg.placedSound(joined)
                let length = MediaTime(value: Int64(sound.count), timescale: 48_000)
                let piece = played.segments[index].compositionRange.duration
                #expect(sound.allSatisfy { $0 == 0 }, "\(name): period \(period.id)'s silence")
                #expect(length >= piece && length < piece + MediaTime(value: 1024, timescale: 48_000), "\(name): period \(period.id): \(length) s of silence")
            }
        }
        // A content clip resumed where its last period left off says so.
        for (index, piece) in played.segments.enumerated() where !piece.isAd {
            let earlier = played.segments[..<index].lastIndex { !$0.isAd && $0.id == piece.id && $0.source == piece.source }
            let resumes = earlier.map { played.segments[$0].sourceRange.end == piece.sourceRange.start } ?? false
            #expect((periods[index].continuity != nil) == resumes, "\(name): period \(periods[index].id)")
        }
    }

    /// A multivariant source gives each variant as a representation of its periods, all starting
    /// where the period does; the audio the variants mux alike is listed once:
    ///
    ///     master.m3u8   hi 320x180 ─┐  keyframes aligned
    ///                   lo 160x90  ─┘
    ///     period        video: hi, lo   audio: one
    ///
    /// Each representation plays exactly its variant's frames of the piece, and the folder holds
    /// what the MPD names, nothing more.
    @Test(.needsFFmpeg)
    func aMultivariantSourceGivesARepresentationPerVariant() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("dash-variants")
        defer { MP4Fixtures.remove(folder) }
        let presentation = try await Self.exported(try HLSJoin.composition("demo-hls-multivariant.json"), into: folder + "/out")
        let played = presentation.reconciled.played
        let (_, periods) = try Self.periods(folder + "/out/stitched.mpd")
        #expect(periods.count == played.segments.count)

        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        var expected: [String: [[DecodedFrame]]] = [:]
        for (width, variant) in [("320", "hi/index.m3u8"), ("160", "lo/index.m3u8")] {
            let playlists = try played.segments.map { piece in
                URL(fileURLWithPath: try #require(piece.source.filePath).description).deletingLastPathComponent().appendingPathComponent(variant).path
            }
            expected[width] = try await judge.expectedFrames(played, sourcePlaylists: playlists)
        }
        var named: Set<String> = ["stitched.mpd"]
        for (index, period) in periods.enumerated() {
            let video = period.representations["video"] ?? []
            #expect(video.compactMap { $0.attributes["width"] }.sorted() == ["160", "320"], "period \(period.id)")
            #expect(Set(video.compactMap { $0.attributes["id"] }).count == video.count, "period \(period.id): IDs are unique")
            #expect(period.representations["audio"]?.count == 1, "period \(period.id): the variants' audio is the same")
            for representation in video + (period.representations["audio"] ?? []) {
                named.formUnion(representation.files)
                #expect(representation.lead == 0 || representation.attributes["audioSamplingRate"] != nil, "period \(period.id)")
            }
            for representation in video {
                var bytes: [UInt8] = []
                for file in representation.files { bytes += try MP4Fixtures.bytes(folder + "/out/" + file) }
                let joined = folder + "/period-\(index)-\(representation.attributes["width"] ?? "")"
                try MP4Fixtures.write(bytes, to: joined)
                let frames = try await ffmpeg.decodedFrames(joined)
                let wanted = try #require(expected[representation.attributes["width"] ?? ""])[index]
                #expect(!wanted.isEmpty)
                #expect(frames.map(\.hash) == wanted.map(\.hash), "period \(period.id), \(representation.attributes["id"] ?? "")")
            }
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: folder + "/out").filter { !$0.hasPrefix(".") }
        #expect(Set(written) == named)
    }

    /// A source's audio renditions are audio adaptation sets of their own, by language, which
    /// every period fills as the HLS export's renditions do (an ad with its own rendition of the
    /// language, else its default audio):
    ///
    ///     video          |C 0-4     |ad 0-4      |C 4-12    |
    ///     2 en (main)    |C 440 Hz  |ad 660 Hz   |C 440 Hz  |
    ///     3 fr           |C 880 Hz  |ad 1320 Hz  |C 880 Hz  |
    ///
    /// Each period's audio in each set decodes cleanly to its tone, from the period's start.
    @Test(.needsFFmpeg)
    func audioRenditionsAreAdaptationSetsByLanguage() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("dash-renditions")
        defer { MP4Fixtures.remove(folder) }
        let json = try await HLSJoinFFmpegTests.demuxedContentAndAd(ffmpeg, in: folder)
        _ = try await Self.exported(try HLSJoin.composition(json: Array(json.utf8)), into: folder + "/out")
        let (_, periods) = try Self.periods(folder + "/out/stitched.mpd")
        #expect(periods.map { $0.representations["video"]?.count } == [1, 1, 1], "the audio-only variants are not video representations")
        for (period, tones) in zip(periods, [(440.0, 880.0), (660.0, 1320.0), (440.0, 880.0)]) {
            #expect(period.audioSets.map { $0.attributes["id"] } == ["2", "3"], "period \(period.id)")
            #expect(period.audioSets.map { $0.attributes["lang"] } == ["en", "fr"], "period \(period.id)")
            #expect(period.audioSets.map(\.role) == ["main", "alternate"], "period \(period.id)")
            for (set, hertz) in zip(period.audioSets, [tones.0, tones.1]) {
                let representation = try #require(set.representations.first)
                #expect(set.representations.count == 1)
                let lead = try #require(representation.lead)
                #expect(lead >= 0 && lead < 1024, "period \(period.id): audio starts \(lead) samples after it")
                var bytes: [UInt8] = []
                for file in representation.files { bytes += try MP4Fixtures.bytes(folder + "/out/" + file) }
                let joined = folder + "/period-\(period.id)-\(set.attributes["lang"] ?? "")"
                try MP4Fixtures.write(bytes, to: joined)
                let samples = try await HLSJoinFFmpegTests.decodedAudio(ffmpeg, joined)
                let seconds = Double(samples.count) / 48_000
                let tone = HLSJoinFFmpegTests.frequency(samples, seconds: 0.2..<(seconds - 0.2))
                #expect(abs(tone - hertz) < 10, "period \(period.id), \(set.attributes["lang"] ?? ""): \(tone) Hz, not \(hertz)")
            }
        }
    }

    /// 12 s of content with English subtitles as ffmpeg packages them (WebVTT segments of 2 s) in
    /// `segments` "ts" or "fmp4", and hls/ts/ad1 at 5; returns the schedule. For transport
    /// streams, which ffmpeg 5.1 starts at 1.4 s, the timestamp map it leaves out is written in;
    /// fragmented MP4 starts its `tfdt` timeline at 0, where cue time 0 is without a map. The cues,
    /// on the content's timeline:
    ///
    ///     content   0 ─ "first" 0.5-1.5 ─ "across" 3.5-4.5 ─ "second" 5-6 ─ "third" 9-10 ─ 12
    static func subtitledContentAndAd(_ ffmpeg: FFmpeg, in folder: String, segments: String = "ts") async throws -> String {
        let srt = "1\n00:00:00,500 --> 00:00:01,500\nfirst\n\n2\n00:00:03,500 --> 00:00:04,500\nacross\n\n"
            + "3\n00:00:05,000 --> 00:00:06,000\nsecond\n\n4\n00:00:09,000 --> 00:00:10,000\nthird\n"
        try Data(srt.utf8).write(to: URL(fileURLWithPath: folder + "/cues.srt"))
        // (ffmpeg makes the variant's folder for transport streams, not for fragmented MP4.)
        try FileManager.default.createDirectory(atPath: folder + "/v", withIntermediateDirectories: true)
        try await ffmpeg.make([
            "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=12",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=12:sample_rate=48000", "-i", folder + "/cues.srt",
            "-map", "0:v", "-map", "1:a", "-map", "2:s", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", "-c:a", "aac", "-c:s", "webvtt",
            "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
            "-var_stream_map", "v:0,a:0,s:0,sgroup:subs,language:en,name:v",
        ] + (segments == "fmp4"
            ? ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", folder + "/v/s%d.m4s"]
            : ["-hls_segment_filename", folder + "/%v/s%d.ts"]) + [folder + (segments == "fmp4" ? "/v/index.m3u8" : "/%v/index.m3u8")])
        let cues = try FileManager.default.contentsOfDirectory(atPath: folder + "/v").filter { $0.hasSuffix(".vtt") }
        #expect(cues.count == 6)
        for name in cues where segments == "ts" {
            let path = folder + "/v/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains("X-TIMESTAMP-MAP"))
            let mapped = text.replacingOccurrences(of: "WEBVTT\n", with: "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n")
            try Data(mapped.utf8).write(to: URL(fileURLWithPath: path))
        }
        // (With fragmented MP4, ffmpeg writes the multivariant playlist beside the variant's.)
        let master = segments == "fmp4" ? folder + "/v/master.m3u8" : folder + "/master.m3u8"
        return #"{ "content": [ { "id": "C", "url": "\#(master)" } ], "#
            + #""breaks": [ { "id": "b", "at": 5, "ads": [ { "id": "ad", "url": "hls/ts/ad1/index.m3u8" } ] } ] }"#
    }

    /// A subtitle rendition is a text adaptation set (`lang`, `Role` `subtitle`) in every period,
    /// a WebVTT file each, with the cues the piece shows, cut to it: none for the ad.
    ///
    ///     composition  |C 0-5            |ad1 0-4 |C 5-12                 |
    ///     text         |"first" "across" |(none)  |"second" "third"       |   on the composition's clock
    ///
    /// Each cue is where the composition shows that moment of the content: the period's start
    /// plus the cue's time past the set's `presentationTimeOffset`, to the millisecond.
    @Test(.needsFFmpeg, arguments: ["ts", "fmp4"])
    func subtitleRenditionsAreTextAdaptationSets(_ segments: String) async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("dash-subtitles")
        defer { MP4Fixtures.remove(folder) }
        let json = try await Self.subtitledContentAndAd(ffmpeg, in: folder, segments: segments)
        let presentation = try await Self.exported(try HLSJoin.composition(json: Array(json.utf8)), into: folder + "/out")
        let played = presentation.reconciled.played
        let (_, periods) = try Self.periods(folder + "/out/stitched.mpd")
        #expect(periods.count == 3)
        let source: [(start: Double, end: Double, text: String)] = [(0.5, 1.5, "first"), (3.5, 4.5, "across"), (5, 6, "second"), (9, 10, "third")]
        func millis(_ time: MediaTime) throws -> Int64 { try time.converted(to: 1000, rounding: .toNearestOrAwayFromZero).value }
        for (period, piece) in zip(periods, played.segments) {
            #expect(period.textSets.map { $0.attributes["id"] } == ["3"], "period \(period.id)")
            #expect(period.textSets.map { $0.attributes["lang"] } == ["en"], "period \(period.id)")
            #expect(period.textSets.map(\.role) == ["subtitle"], "period \(period.id)")
            let set = try #require(period.textSets.first)
            let document = try WebVTTDocument(parsing: try MP4Fixtures.bytes(folder + "/out/" + set.file))
            let shown = try document.cues.map { cue in
                (try millis(period.start + cue.start - set.offset), try millis(period.start + cue.end - set.offset), cue.text)
            }
            // The content's cues the piece plays, cut to it, where the composition plays them.
            var expected: [(Int64, Int64, String)] = []
            if !piece.isAd {
                for cue in source {
                    let start = MediaTime.max(try MediaTime(parsing: "\(cue.start)"), piece.sourceRange.start)
                    let end = MediaTime.min(try MediaTime(parsing: "\(cue.end)"), piece.sourceRange.end)
                    guard start < end else { continue }
                    let shift = piece.compositionRange.start - piece.sourceRange.start
                    expected.append((try millis(start + shift), try millis(end + shift), cue.text))
                }
            }
            #expect(shown.map { "\($0.0)-\($0.1) \($0.2)" } == expected.map { "\($0.0)-\($0.1) \($0.2)" }, "period \(period.id) ('\(piece.id)')")
        }
        #expect(periods.map { $0.textSets.first?.file } == ["subtitles-0-1.vtt", "subtitles-0-2.vtt", "subtitles-0-3.vtt"])
        #expect(try String(contentsOfFile: folder + "/out/subtitles-0-2.vtt", encoding: .utf8) == "WEBVTT\n")
    }

    /// A cue's time on its source's timeline: its timestamp map's MPEG-2 timestamp after the
    /// variant's first picture, less the map's local time; without a map, cue time 0 is timestamp
    /// 0 (RFC 8216bis 3.1.4). Transport stream timestamps compare the nearer way round their 2^33
    /// wrap; fragmented MP4's `tfdt` times do not wrap.
    @Test("timestamp maps place cue times on the source's timeline, across the 33-bit wrap")
    func timestampMapsPlaceCues() throws {
        typealias Map = WebVTTDocument.TimestampMap
        let wrap: Int64 = 1 << 33
        let cases: [(map: Map?, zero: TimestampOrigin, seconds: MediaTime)] = [
            (Map(mpegts: 126_000, local: .zero), .transportStream(133_200), MediaTime(value: -7_200, timescale: 90_000)),
            (Map(mpegts: 900_000, local: MediaTime(value: 10, timescale: 1)), .transportStream(900_000), MediaTime(value: -10, timescale: 1)),
            (nil, .transportStream(133_200), MediaTime(value: -133_200, timescale: 90_000)),
            // The map just past the wrap, the first picture just before it: 2 s later, not 26.5 hours earlier.
            (Map(mpegts: 90_000, local: .zero), .transportStream(wrap - 90_000), MediaTime(value: 2, timescale: 1)),
            (Map(mpegts: wrap - 90_000, local: .zero), .transportStream(90_000), MediaTime(value: -2, timescale: 1)),
            (Map(mpegts: 90_000 + wrap, local: .zero), .fragmented(.zero), MediaTime(value: 90_000 + wrap, timescale: 90_000)),
        ]
        for (map, zero, seconds) in cases {
            #expect(try HLSExportStages.sourceTime(of: map, zero: zero) == seconds, "\(String(describing: map)), zero \(zero)")
        }
    }

    /// MP4 renditions named in the schedule (`"renditions"`) are representations of their
    /// source's periods, each exactly its own frames of the piece; one whose keyframes are apart
    /// from the source's at a cut is refused, `.unaligned`:
    ///
    ///     hi.mp4 (320x180)  keyframes every 1 s ─┐ representations of periods 1 and 3
    ///     lo.mp4 (160x90)   keyframes every 1 s ─┘
    ///     odd.mp4 (160x90)  keyframes every 1.6 s: the cut at 3 s falls between them
    ///     composition  | hi 0-3 | ad1 | hi 3-8 |
    @Test(.needsFFmpeg)
    func mp4RenditionsNamedInTheScheduleAreRepresentations() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("dash-mp4-renditions")
        defer { MP4Fixtures.remove(folder) }
        for (name, size, gop) in [("hi", "320x180", 25), ("lo", "160x90", 25), ("odd", "160x90", 40)] {
            let made = try await ChildProcess.run(ffmpeg.ffmpeg, [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25:duration=8",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=8:sample_rate=48000",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "2", "-g", "\(gop)", "-keyint_min", "\(gop)", "-sc_threshold", "0",
                "-c:a", "aac", "-b:a", "64k", folder + "/\(name).mp4",
            ])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let composition = try HLSJoin.composition(json: Array(#"""
            { "content": [{ "id": "c", "url": "\#(folder)/hi.mp4" }],
              "breaks": [{ "id": "mid", "at": 3, "ads": [{ "id": "ad", "url": "ad1.mp4" }] }] }
            """#.utf8))
        let hi = MediaLocation(FilePath(folder + "/hi.mp4"))
        let presentation = try await Self.exported(
            composition, into: folder + "/out", by: DASHExporter(renditions: [hi: [MediaLocation(FilePath(folder + "/lo.mp4"))]]))
        let played = presentation.reconciled.played
        let (_, periods) = try Self.periods(folder + "/out/stitched.mpd")
        #expect(periods.map { $0.representations["video"]?.count } == [2, 1, 2])
        var judge = HLSJoinJudge(ffmpeg: ffmpeg)
        for (width, file) in [("320", "hi.mp4"), ("160", "lo.mp4")] {
            let sources = played.segments.map { $0.isAd ? $0.source.filePath?.description ?? $0.source.url : folder + "/" + file }
            let expected = try await judge.expectedFrames(played, sourcePlaylists: sources)
            // The ad (320x180) has one representation.
            for (index, period) in periods.enumerated() where !(played.segments[index].isAd && width == "160") {
                let representation = try #require(period.representations["video"]?.first { $0.attributes["width"] == width }, "period \(period.id)")
                #expect(representation.lead == 0)
                var bytes: [UInt8] = []
                for name in representation.files { bytes += try MP4Fixtures.bytes(folder + "/out/" + name) }
                try MP4Fixtures.write(bytes, to: folder + "/joined")
                let frames = try await ffmpeg.decodedFrames(folder + "/joined")
                #expect(!frames.isEmpty && frames.map(\.hash) == expected[index].map(\.hash), "period \(period.id), \(file)")
            }
        }
        #expect {
            try DASHExporter(renditions: [hi: [MediaLocation(FilePath(folder + "/odd.mp4"))]]).export(composition)
        } throws: { error in
            let error = try #require(error as? DASHExportError)
            return error.cause == .unaligned && error.item == "c" && error.description.contains("odd.mp4")
        }
    }

    /// Variants whose keyframes differ at a cut cannot share a period: refused, naming the item.
    ///
    ///     variant a   keyframes 0 1.5 2.25 4 …      piece 0-2 snaps to 0-2.25 in a
    ///     variant b   keyframes 0 1.3 2 3.1         and to 0-2 in b
    @Test
    func variantsWithKeyframesApartAreRefused() throws {
        let folder = try MP4Fixtures.makeScratchFolder("dash-unaligned")
        defer { MP4Fixtures.remove(folder) }
        let fixtures = packageRoot.appendingPathComponent("Fixtures/hls/multivariant").path
        try FileManager.default.createSymbolicLink(atPath: folder + "/a", withDestinationPath: fixtures + "/content/hi")
        try FileManager.default.createSymbolicLink(atPath: folder + "/b", withDestinationPath: fixtures + "/ad1/hi")
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180
            a/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=200000,RESOLUTION=320x180
            b/index.m3u8

            """
        try Data(master.utf8).write(to: URL(fileURLWithPath: folder + "/master.m3u8"))
        let json = #"{ "content": [{ "id": "feature", "url": "\#(folder)/master.m3u8", "end": 2 }], "breaks": [] }"#
        #expect {
            try DASHExporter().export(try HLSJoin.composition(json: Array(json.utf8)))
        } throws: { error in
            let error = try #require(error as? DASHExportError)
            return error.cause == .unaligned && error.item == "feature" && error.description.contains("b/index.m3u8")
        }
    }

    /// The MPD validates against MPEG-DASH's schema (`../shared/dash-schema`), offline: XLink's
    /// attributes come from `Tests/dash/xlink.xsd` through an XML catalog.
    @Test(.needsSharedData("dash-schema"), .enabled(if: LocalServers.find("xmllint") != nil || FFmpeg.required, "needs xmllint (libxml2-utils)"),
          arguments: ["demo.json", "demo-hls-multivariant.json"])
    func theMPDIsSchemaValid(_ name: String) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("dash-schema")
        defer { MP4Fixtures.remove(folder) }
        _ = try await Self.exported(try HLSJoin.composition(name), into: folder + "/out")
        try await Self.validate(folder + "/out/stitched.mpd", in: folder)
    }

    /// The audio renditions' adaptation sets (`lang`, `Role`) validate too, and the subtitles'.
    @Test(.needsFFmpeg, .needsSharedData("dash-schema"),
          .enabled(if: LocalServers.find("xmllint") != nil || FFmpeg.required, "needs xmllint (libxml2-utils)"),
          arguments: ["audio", "subtitles"])
    func theMPDOfRenditionsIsSchemaValid(_ renditions: String) async throws {
        let folder = try MP4Fixtures.makeScratchFolder("dash-schema")
        defer { MP4Fixtures.remove(folder) }
        let ffmpeg = try FFmpeg.require()
        let json = renditions == "audio"
            ? try await HLSJoinFFmpegTests.demuxedContentAndAd(ffmpeg, in: folder) : try await Self.subtitledContentAndAd(ffmpeg, in: folder)
        _ = try await Self.exported(try HLSJoin.composition(json: Array(json.utf8)), into: folder + "/out")
        try await Self.validate(folder + "/out/stitched.mpd", in: folder)
    }

    /// Validates `mpd` against MPEG-DASH's schema with xmllint, offline (its catalog written in `folder`).
    static func validate(_ mpd: String, in folder: String) async throws {
        let xmllint = try #require(LocalServers.find("xmllint"), "xmllint (libxml2-utils)")
        let xlink = packageRoot.appendingPathComponent("Tests/dash/xlink.xsd").path
        let catalog = """
            <?xml version="1.0"?>
            <catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">
              <uri name="http://www.w3.org/XML/2008/06/xlink.xsd" uri="file://\(xlink)"/>
              <system systemId="http://www.w3.org/XML/2008/06/xlink.xsd" uri="file://\(xlink)"/>
            </catalog>
            """
        try Data(catalog.utf8).write(to: URL(fileURLWithPath: folder + "/catalog.xml"))
        let schema = try #require(SharedData.path("dash-schema")) + "/DASH-MPD.xsd"
        let script = "XML_CATALOG_FILES=\(folder)/catalog.xml exec \(xmllint) --nonet --noout --schema \(schema) \(mpd)"
        let output = try await ChildProcess.run("/bin/sh", ["-c", script])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("validates"), "\(output.stderr)")
    }
}
