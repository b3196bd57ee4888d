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

/// The fuzzers start from Tests/Fuzz/seeds: seeds that already fail at the first check would
/// leave most of the code unexplored, so each must be a valid input of its kind.
@Suite("Fuzz seeds")
struct FuzzSeedTests {
    static func seeds(_ target: String) -> [String] {
        MP4Fixtures.listing(Robust.fuzzFolder + "/seeds/" + target).map { Robust.fuzzFolder + "/seeds/\(target)/" + $0 }
    }

    @Test("MP4 seeds: complete clips read, and plan; moov-only ones fail only for their missing samples")
    func mp4() {
        let seeds = Self.seeds("mp4")
        #expect(seeds.count >= 8)
        for path in seeds {
            let outcome = Robust.exerciseMP4(path)
            if path.hasSuffix("-moov-only.mp4") {
                guard case .malformed(_, _, _, let reason)? = outcome.readError else { Issue.record("\(path): \(String(describing: outcome.readError))"); continue }
                #expect(reason.contains("runs past the end"), "\(path): \(reason)")
            } else {
                #expect(outcome.readError == nil, "\(path): \(String(describing: outcome.readError))")
                #expect(outcome.planOutcomes.contains { $0.contains(": planned ") }, "\(path): \(outcome.planOutcomes)")
            }
        }
    }

    @Test("HLS seeds parse")
    func hls() throws {
        let seeds = Self.seeds("hls")
        #expect(seeds.count >= 3)
        for path in seeds {
            #expect(throws: Never.self, "\(path)") { try HLSPlaylistParser().parse(try MP4Fixtures.bytes(path), url: "https://cdn.example/a/index.m3u8") }
        }
    }

    /// The `segments` target's seeds: HLS media segments ffmpeg cut (TS with H.264 and with HEVC,
    /// video or audio only, a discontinuity; fragmented MP4) read, plan and render in both cut
    /// modes, each render reading back; its regressions replay without a broken invariant.
    @Test("segments seeds read, render in both cut modes and read back; segments regressions replay clean")
    func segments() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("segments-fuzz")
        defer { MP4Fixtures.remove(scratch) }
        let seeds = Self.seeds("segments")
        #expect(seeds.count >= 6)
        for path in seeds {
            let outcome = SegmentsFuzzHarness.run(try MP4Fixtures.bytes(path), scratch: FilePath(scratch))
            #expect(outcome.readError == nil, "\(path): \(String(describing: outcome.readError))")
            #expect(outcome.steps.count == MP4CutMode.allCases.count && outcome.steps.allSatisfy { $0.contains(": rendered ") },
                    "\(path): \(outcome.steps)")
            #expect(outcome.broken == [], "\(path)")
        }
        let folder = Robust.fuzzFolder + "/regressions/segments"
        for name in MP4Fixtures.listing(folder) where !name.hasPrefix(".") {
            let outcome = SegmentsFuzzHarness.run(try MP4Fixtures.bytes(folder + "/" + name), scratch: FilePath(scratch))
            #expect(outcome.broken == [], "\(name)")
        }
    }

    /// The `packaging` target's seeds: MP4 files of H.264 (with and without B-frames and an edit
    /// list), of HEVC, video or audio only, packaged into both containers, the segments reading
    /// back; its regressions replay without a broken invariant.
    @Test("packaging seeds package into both containers and read back; packaging regressions replay clean")
    func packaging() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("packaging-fuzz")
        defer { MP4Fixtures.remove(scratch) }
        let seeds = Self.seeds("packaging")
        #expect(seeds.count >= 5)
        for path in seeds {
            let outcome = PackagingFuzzHarness.run(try MP4Fixtures.bytes(path), scratch: FilePath(scratch))
            #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(path): \(outcome.steps)")
            #expect(outcome.broken == [], "\(path)")
        }
        let folder = Robust.fuzzFolder + "/regressions/packaging"
        for name in MP4Fixtures.listing(folder) where !name.hasPrefix(".") {
            #expect(PackagingFuzzHarness.run(try MP4Fixtures.bytes(folder + "/" + name), scratch: FilePath(scratch)).broken == [], "\(name)")
        }
    }

    @Test("schedule seeds decode")
    func schedules() throws {
        let seeds = Self.seeds("schedule")
        #expect(seeds.count >= 3)
        for path in seeds {
            #expect(throws: Never.self, "\(path)") { try ScheduleDocument.decode(try MP4Fixtures.bytes(path), baseFolder: "/media") }
        }
    }

    /// The `mapping` target's seeds: a schedule that decodes and compiles, then requests; each
    /// answers within its invariants (the harness is the fuzz target's own). Its regressions, once
    /// it finds any, replay the same way.
    @Test("mapping seeds decode, compile and keep every invariant; mapping regressions replay clean")
    func mapping() throws {
        let seeds = Self.seeds("mapping")
        #expect(seeds.count >= 4)
        for path in seeds {
            let bytes = try MP4Fixtures.bytes(path)
            let split = try #require(bytes.firstRange(of: Array("\n%%\n".utf8)), "\(path): no %% line")
            let schedule = try ScheduleDocument.decode(bytes[..<split.lowerBound], baseFolder: "/media")
            let durations = MappingFuzzHarness.naturalDurations(for: schedule)
            #expect(throws: Never.self, "\(path)") { try Composition(schedule: schedule, naturalDurations: durations) }
            #expect(MappingFuzzHarness.run(bytes) == [], "\(path)")
        }
        let folder = Robust.fuzzFolder + "/regressions/mapping"
        for name in MP4Fixtures.listing(folder) where !name.hasPrefix(".") {
            #expect(MappingFuzzHarness.run(try MP4Fixtures.bytes(folder + "/" + name)) == [], "\(name)")
        }
    }

    /// The `markers` target's seeds: cue tags, SCTE-35 date ranges, and markers that clamp to
    /// nothing (issue 50); each read without a broken rule, the spans placed as breaks.
    @Test("markers seeds read into spans and breaks without a broken rule; markers regressions replay clean")
    func markers() throws {
        let outcomes = try Dictionary(uniqueKeysWithValues: Self.seeds("markers").map { path in
            (String(path.split(separator: "/").last!), MarkersFuzzHarness.run(try MP4Fixtures.bytes(path)))
        })
        #expect(outcomes.count >= 3)
        #expect(outcomes.values.allSatisfy { $0.broken.isEmpty }, "\(outcomes)")
        #expect(outcomes["cue-tags.m3u8"]?.summary == "2 spans, 0 ignored")
        #expect(outcomes["scte35-dateranges.m3u8"]?.summary == "2 spans, 0 ignored")
        #expect(outcomes["clamps-to-nothing.m3u8"]?.summary == "0 spans, 3 ignored")
        let folder = Robust.fuzzFolder + "/regressions/markers"
        for name in MP4Fixtures.listing(folder) where !name.hasPrefix(".") {
            #expect(MarkersFuzzHarness.run(try MP4Fixtures.bytes(folder + "/" + name)).broken == [], "\(name)")
        }
    }

    /// The `manifest` target's seeds: a previous output's manifest of plain names (with and
    /// without their files), and ones listing paths out of the folder, in the folder and in a
    /// killed writer's hidden folder (issue 50): nothing outside is touched.
    @Test("manifest seeds write or refuse without touching anything outside; manifest regressions replay clean")
    func manifest() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("manifest-fuzz")
        defer { MP4Fixtures.remove(scratch) }
        var outcomes: [String: OutputManifestFuzzHarness.Outcome] = [:]
        for path in Self.seeds("manifest") {
            outcomes[String(path.split(separator: "/").last!)] = OutputManifestFuzzHarness.run(try MP4Fixtures.bytes(path), scratch: FilePath(scratch))
        }
        #expect(outcomes.count >= 4)
        #expect(outcomes.values.allSatisfy { $0.broken.isEmpty }, "\(outcomes)")
        #expect(outcomes["with-files.bin"]?.result == "written")
        #expect(outcomes["hidden-escape.bin"]?.result == "written")
        #expect(outcomes["escape.bin"]?.result.contains("its manifest lists '../victim.txt', which is not a file inside the folder") == true)
        // a.txt and b.txt listed but absent: the folder holds what its manifest lists, and less.
        #expect(outcomes["listed-names.bin"]?.result == "written")
        let folder = Robust.fuzzFolder + "/regressions/manifest"
        for name in MP4Fixtures.listing(folder) where !name.hasPrefix(".") {
            #expect(OutputManifestFuzzHarness.run(try MP4Fixtures.bytes(folder + "/" + name), scratch: FilePath(scratch)).broken == [], "\(name)")
        }
    }
}
