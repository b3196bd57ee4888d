import Foundation
import Testing
import CompositorTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// The calls a newcomer's first program makes (issue 53): locations from a path or a URL, one call
/// from a schedule to a composition, and a render that runs off the caller's thread and stops when
/// its task is cancelled.
@Suite("Adoption: the first program's calls")
struct AdoptionAPITests {
    static let fixtures = packageRoot.appendingPathComponent("Fixtures").path

    @Test("a location from a path string, from a file URL and from a remote URL")
    func locations() throws {
        #expect(MediaLocation(path: "/media/a%20b.mp4").kind == .file(FilePath("/media/a%20b.mp4")))   // a path: not decoded
        #expect(try MediaLocation(URL(fileURLWithPath: "/media/ad 1.mp4")).kind == .file(FilePath("/media/ad 1.mp4")))
        #expect(try MediaLocation(URL(string: "https://cdn.example/show.m3u8?t=1")!).kind == .remote(url: "https://cdn.example/show.m3u8?t=1"))
        #expect(throws: MediaLocationError.remoteFileHost("file://nas/m.mp4", host: "nas")) { try MediaLocation(URL(string: "file://nas/m.mp4")!) }
    }

    /// ```
    /// demo.json   clips without "end": their durations come from the files
    /// ```
    @Test("Composition.loading probes every source once and compiles: the same as probing by hand")
    func loading() throws {
        let schedule = try ScheduleDocument.read(path: FilePath(Self.fixtures + "/demo.json"))
        let loaded = try Composition.loading(schedule)
        let probed = SourceProbe.probeAll(schedule).results.mapValues(\.naturalDuration)
        #expect(loaded == (try Composition(schedule: schedule, naturalDurations: probed)))
        #expect(loaded.duration > .zero)
    }

    @Test("a clip whose duration cannot be probed is an error naming the item, the source and why")
    func loadingRefusal() throws {
        var schedule = Schedule()
        try schedule.appendContentClip(ContentClip(id: "feature", source: MediaLocation(path: Self.fixtures + "/missing.mp4")))
        #expect {
            try Composition.loading(schedule)
        } throws: { error in
            guard case .unreadableSource(item: "feature", _, _) = error as? CompositionLoadError else { return false }
            return "\(error)" == "'feature' needs the duration of \(Self.fixtures)/missing.mp4, which could not be probed: \(Self.fixtures)/missing.mp4: no such file"
        }
    }

    @Test("the async render writes the same bytes as the blocking one, and reports progress to the end")
    func asyncRender() async throws {
        let composition = try Composition.loading(try ScheduleDocument.read(path: FilePath(Self.fixtures + "/demo.json")))
        let folder = try MP4Fixtures.makeScratchFolder("async-render")
        defer { MP4Fixtures.remove(folder) }
        // A synchronous closure calls the blocking overload (an async context prefers the async one).
        let blocking = { () throws in try MP4Exporter.render(composition, to: FilePath(folder + "/blocking.mp4")) }
        _ = try blocking()
        let last = ResultBox<MP4StitchProgress>()
        try await MP4Exporter.render(composition, to: FilePath(folder + "/async.mp4")) { last.set($0) }
        #expect(try MP4Fixtures.bytes(folder + "/async.mp4") == MP4Fixtures.bytes(folder + "/blocking.mp4"))
        #expect(last.get().map { $0.bytesWritten == $0.totalBytes && $0.totalBytes > 0 } == true)
    }

    @Test("a cancelled render throws CancellationError and leaves nothing at the output path")
    func cancelledRender() async throws {
        let composition = try Composition.loading(try ScheduleDocument.read(path: FilePath(Self.fixtures + "/demo.json")))
        let folder = try MP4Fixtures.makeScratchFolder("cancelled-render")
        defer { MP4Fixtures.remove(folder) }
        let output = FilePath(folder + "/out.mp4")
        let task = Task {
            // Cancelled before the render starts: deterministic, whatever the machine's speed.
            withUnsafeCurrentTask { $0?.cancel() }
            return try await MP4Exporter.render(composition, to: output)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(MP4Fixtures.listing(folder).isEmpty)
    }

    /// `demo.json` stitched with every MP4 piece packaged: files written one by one.
    static func stitchedDemo(into folder: String, segments: HLSSegmentContainer = .mpegTS) throws -> HLSExport {
        let composition = try Composition.loading(try ScheduleDocument.read(path: FilePath(Self.fixtures + "/demo.json")))
        let stitcher = HLSExporter(
            outputURL: folder + "/stitched.m3u8", options: try HLSExportOptions(segmentContainer: segments, packagesEveryPiece: true))
        return try stitcher.stitch(composition)
    }

    @Test("the async HLS write writes what the blocking one does, reporting every file (init segments too)",
          arguments: [HLSSegmentContainer.mpegTS, .fragmentedMP4])
    func asyncStitchWrite(segments: HLSSegmentContainer) async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("async-hls")
        defer { MP4Fixtures.remove(scratch) }
        let stitched = try Self.stitchedDemo(into: scratch + "/a", segments: segments)
        let blocking = { () throws in try Self.stitchedDemo(into: scratch + "/b", segments: segments).write(into: FilePath(scratch + "/b")) }
        try blocking()
        let last = ResultBox<HLSWriteProgress>()
        try await stitched.write(into: FilePath(scratch + "/a")) { last.set($0) }
        let names = MP4Fixtures.listing(scratch + "/a")
        #expect(names == MP4Fixtures.listing(scratch + "/b") && names.count > 10)
        for name in names where name != "stitched.m3u8" {
            #expect(try MP4Fixtures.bytes(scratch + "/a/" + name) == MP4Fixtures.bytes(scratch + "/b/" + name), "\(name)")
        }
        // The manifest is not counted: every file the folder lists is.
        #expect(last.get().map { $0.filesWritten == $0.totalFiles && $0.totalFiles == names.count - 1 } == true, "\(String(describing: last.get()))")
    }

    @Test("a cancelled HLS write throws CancellationError; the previous output stays as it was, nothing else is left")
    func cancelledStitchWrite() async throws {
        let scratch = try MP4Fixtures.makeScratchFolder("cancelled-hls")
        defer { MP4Fixtures.remove(scratch) }
        try MP4Fixtures.write(Array("#EXTM3U\n".utf8), to: scratch + "/previous.m3u8")
        let stitched = try Self.stitchedDemo(into: scratch + "/out")
        let first = { () throws in try stitched.write(into: FilePath(scratch + "/out")) }
        try first()
        let before = try MP4Fixtures.listing(scratch + "/out").map { try MP4Fixtures.bytes(scratch + "/out/" + $0) }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await stitched.write(into: FilePath(scratch + "/out"))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try MP4Fixtures.listing(scratch + "/out").map { try MP4Fixtures.bytes(scratch + "/out/" + $0) } == before)
        #expect(MP4Fixtures.listing(scratch) == ["out", "previous.m3u8"])
    }
}
