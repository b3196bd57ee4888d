import Foundation
import Testing
@testable import Compositor
import CompositorCore
import CompositorTestSupport
import CompositorUmbrellaTestSupport

private func fixture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/\(name)")))
}

/// `content.mp4` (ftyp, free, mdat, moov) with a `free` box of `padding` bytes put between its
/// `mdat` and its `moov`: the `moov` after a large `mdat`, sample offsets unchanged.
private func moovAfterLargeMdat(padding: Int) throws -> [UInt8] {
    let file = try fixture("content.mp4")
    var offset = 0, moovAt = 0
    while offset + 8 <= file.count {
        let size = Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3])
        if Array(file[(offset + 4)..<(offset + 8)]) == Array("moov".utf8) { moovAt = offset }
        offset += size
    }
    let free = [UInt8(padding >> 24 & 0xFF), UInt8(padding >> 16 & 0xFF), UInt8(padding >> 8 & 0xFF), UInt8(padding & 0xFF)]
        + Array("free".utf8) + [UInt8](repeating: 0, count: padding - 8)
    return Array(file[..<moovAt]) + free + Array(file[moovAt...])
}

@Suite("Remote MP4 sources: read by ranges, checked at every read")
struct RemoteMP4Tests {
    /*
     ad1.mp4       |ftyp|moov|free|mdat ......|          moov at the front: 1 request (the file is < 256 KiB)
     content.mp4   |ftyp|free|mdat ..........|moov|      moov at the end: 2 requests
     padded        |ftyp|free|mdat ...|free 50 MB ...|moov|   moov after 50 MB: 3 requests, under 1 MB read
     */
    @Test("a remote MP4 probes to its local report in at most 3 requests, never reading it whole")
    func requestCounts() async throws {
        let padded = try moovAfterLargeMdat(padding: 50 << 20)
        let transport = FileServingTransport(["ad1.mp4": try fixture("ad1.mp4"), "content.mp4": try fixture("content.mp4"), "padded.mp4": padded])
        for (name, local, most) in [("ad1.mp4", "Fixtures/ad1.mp4", 2), ("content.mp4", "Fixtures/content.mp4", 3), ("padded.mp4", "Fixtures/content.mp4", 3)] {
            let before = transport.requests.count
            let report = try await probe(MediaLocation(remoteURL: "http://127.0.0.1:1/\(name)"), transport: transport)
            #expect(report == (try SourceProbe.probe(MediaLocation(path: packageRoot.appendingPathComponent(local).path))), "\(name)")
            #expect(transport.requests.count - before <= most, "\(name): \(transport.requests.dropFirst(before).map(\.byteRange))")
        }
        #expect(transport.requests.allSatisfy { $0.byteRange != nil })
        #expect(transport.bytesSent < 2 << 20, "\(transport.bytesSent) bytes for three probes, one of a 50 MB file")
    }

    /*
     fragmented     |ftyp|moov|moof|mdat ....|moof|mdat ....|...|mfra|     the walk goes moof to moof
     with sidx      |ftyp|moov|sidx|sidx|moof|mdat ....|moof|...|          the sidx says where each moof is
     */
    @Test("a fragmented remote MP4 probes from its fragment headers (never its media); with a sidx, they are fetched together", .needsFFmpeg)
    func fragmented() async throws {
        let ffmpeg = try FFmpeg.require()
        let folder = try MP4Fixtures.makeScratchFolder("remote-fragmented")
        defer { MP4Fixtures.remove(folder) }
        for (name, flags) in [("plain.mp4", "+frag_keyframe+empty_moov+default_base_moof"),
                              ("indexed.mp4", "+frag_keyframe+empty_moov+default_base_moof+global_sidx")] {
            try await ffmpeg.make(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25,noise=alls=30:allf=t", "-t", "20",
                                   "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "3M", "-g", "25", "-movflags", flags, folder + "/" + name])
        }
        for name in ["plain.mp4", "indexed.mp4"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            let counting = InFlightCounting(FileServingTransport([name: bytes]))
            let report = try await probe(MediaLocation(remoteURL: "http://127.0.0.1:1/\(name)"), transport: counting)
            #expect(report == (try SourceProbe.probe(MediaLocation(path: folder + "/" + name))), "\(name)")
            let sent = counting.inner.bytesSent
            #expect(sent < bytes.count / 4, "\(name): \(sent) of \(bytes.count) bytes fetched")
            if name == "indexed.mp4" { #expect(counting.most >= 2, "the fragment headers fetched together") }
            else { #expect(counting.most == 1, "without an index, one after another") }
        }
    }

    @Test("the catalog says what each source is and which version of it was read")
    func identities() async throws {
        let transport = FileServingTransport(["ad1.mp4": try fixture("ad1.mp4")])
        let remote = MediaLocation(remoteURL: "http://127.0.0.1:1/ad1.mp4")
        let local = MediaLocation(path: packageRoot.appendingPathComponent("Fixtures/ad1.mp4").path)
        let playlist = MediaLocation(path: packageRoot.appendingPathComponent("Fixtures/hls/ts/content/index.m3u8").path)
        let catalog = try await SourceCatalog.load([remote, local, playlist, remote], transport: transport)
        #expect(catalog.failures.isEmpty, "\(catalog.failures)")
        #expect(catalog.entries[remote]?.identity == .remote(url: "http://127.0.0.1:1/ad1.mp4", entityTag: "\"v1\"", lastModified: nil, length: 101_885))
        guard case .file(_, _, let size, _)? = catalog.entries[local]?.identity else { Issue.record("no file identity"); return }
        #expect(size == 101_885)
        #expect(catalog.entries[remote]?.kind == .mp4 && catalog.entries[playlist]?.kind == .mediaPlaylist)
        #expect(catalog.entries[remote]?.naturalDuration == catalog.entries[local]?.naturalDuration)
    }

    @Test("a catalog's spool files are never on disk (unlinked, read through their descriptors), and close with it")
    func spoolsRemoved() async throws {
        let transport = FileServingTransport(["content.mp4": try fixture("content.mp4")])
        var catalog: SourceCatalog? = try await SourceCatalog.load([MediaLocation(remoteURL: "http://127.0.0.1:1/content.mp4")], transport: transport)
        #expect(catalog?.entries.count == 1)
        weak let spool = catalog?.spools?.all.values.first
        let path = try #require(spool?.path)
        #expect(path.string?.hasPrefix("/proc/self/fd/") == true)
        var status = stat()
        #expect(stat(path.string ?? "", &status) == 0 && status.st_nlink == 0, "no name on disk links to it")
        catalog = nil
        // The last reference may be a fetch's task, ending a moment after its result was handed over.
        for _ in 0..<100 where spool != nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(spool == nil, "the spool (and its descriptor) went with the catalog")
    }

    /// Issue 68: a server that ignores `Range` (RFC 9110 allows it; `python3 -m http.server` does)
    /// answers the first read with the whole body, cut at 256 KiB: the file is then read whole by
    /// one GET, within the body limit, and nothing more is asked of the server.
    @Test("a server that ignores Range: the file read whole, within the body limit, once")
    func ignoresRange() async throws {
        let content = try fixture("content.mp4")
        let location = MediaLocation(remoteURL: "http://127.0.0.1:1/content.mp4")
        let local = try SourceProbe.probe(MediaLocation(path: MP4Fixtures.content))
        let transport = FileServingTransport(["content.mp4": content], fault: .ignoresRange)
        let catalog = try await SourceCatalog.load([location], transport: transport)
        #expect(catalog.failures.isEmpty, "\(catalog.failures)")
        #expect(catalog.entries[location]?.naturalDuration == local.naturalDuration)
        #expect(transport.requests.map(\.byteRange) == [0...262_143, nil])
        // Reading every byte through the spool asks nothing more.
        let spool = try #require(catalog.spools?.all.values.first)
        try spool.fill([0..<UInt64(content.count)])
        #expect(transport.requests.count == 2)
        #expect(try MP4Fixtures.bytes(spool.path.string ?? "") == content)

        let small = FileServingTransport(["content.mp4": content], fault: .ignoresRange)
        await #expect(throws: SourceProbeError.transport(HTTPTransportError(url: location.url, problem: .badResponse(
            "the server ignores byte ranges, so the file is read whole, and it is over the body limit of 400000 bytes "
                + "(HTTPTransportLimits.maximumBodyBytes)")))) {
            try await probe(location, transport: small, limits: HTTPTransportLimits(maximumBodyBytes: 400_000))
        }
    }

    @Test("faults: an ETag changing between reads, a short body: typed errors")
    func faults() async throws {
        let content = try fixture("content.mp4")
        let url = "http://127.0.0.1:1/content.mp4"
        let location = MediaLocation(remoteURL: url)
        let cases: [(FileServingTransport.Fault, HTTPTransportError.Problem)] = [
            (.changesETag(fromRequest: 2), .changed("ETag \"v1\" then, \"v2\" now")),
            (.shortBody(fromRequest: 2), .badResponse("bytes 511597-526783 came short: 15186 of 15187")),
        ]
        for (fault, problem) in cases {
            let transport = FileServingTransport(["content.mp4": content], fault: fault)
            await #expect(throws: SourceProbeError.transport(HTTPTransportError(url: url, problem: problem)), "\(fault)") {
                try await probe(location, transport: transport)
            }
        }
    }

    @Test("a reset connection is tried again, with backoff; too many resets are the error")
    func retries() async throws {
        let limits = HTTPTransportLimits(retryDelay: .milliseconds(5))
        let twice = FileServingTransport(["ad1.mp4": try fixture("ad1.mp4")], fault: .resets(fromRequest: 1, times: 2))
        let report = try await probe(MediaLocation(remoteURL: "http://127.0.0.1:1/ad1.mp4"), transport: twice, limits: limits)
        #expect(report.format == .mp4 && twice.requests.count == 3)
        let thrice = FileServingTransport(["ad1.mp4": try fixture("ad1.mp4")], fault: .resets(fromRequest: 1, times: 3))
        await #expect(throws: SourceProbeError.transport(HTTPTransportError(url: "http://127.0.0.1:1/ad1.mp4", problem: .connectionFailed("the connection was lost")))) {
            try await probe(MediaLocation(remoteURL: "http://127.0.0.1:1/ad1.mp4"), transport: thrice, limits: limits)
        }
        #expect(thrice.requests.count == 3)
    }

    @Test("Retry-After: honoured within the bound, reported beyond it")
    func retryAfter() async throws {
        let busy = ScriptedTransport { _ in HTTPTransportResponse(status: 503, headers: ["Retry-After": "60"]) }
        await #expect(throws: HTTPTransportError(url: "http://127.0.0.1:1/x.m3u8", problem: .status(503))) {
            try await HTTPFetch.get("http://127.0.0.1:1/x.m3u8", transport: busy, limits: .default)
        }
        #expect(busy.requests.count == 1)
        #expect(HTTPFetch.retryAfter("2") == .seconds(2) && HTTPFetch.retryAfter(" 0 ") == .zero)
        #expect(HTTPFetch.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil && HTTPFetch.retryAfter("-1") == nil)
    }

    @Test("at most maximumConcurrentRequests requests in flight, over a load and a render together")
    func requestsInFlight() async throws {
        var files: [String: [UInt8]] = [:]
        for index in 0..<8 { files["ad\(index).mp4"] = try fixture("ad1.mp4") }
        files["content.mp4"] = try moovAfterLargeMdat(padding: 40 << 20)
        let counting = InFlightCounting(FileServingTransport(files))
        let limits = HTTPTransportLimits(maximumConcurrentRequests: 3)
        let schedule = try Schedule(
            content: [ContentClip(id: "c", source: MediaLocation(parsing: "http://127.0.0.1:1/content.mp4"))],
            breaks: try (0..<8).map { index in
                AdBreak(id: "b\(index)", placement: .midroll(at: MediaTime(seconds: Int64(index + 1))),
                        ads: [Ad(id: "a\(index)", source: try MediaLocation(parsing: "http://127.0.0.1:1/ad\(index).mp4"))])
            })
        // No deadline to speak of: this is about requests in flight, and the cooperative threads it
        // waits for are shared with every other test (under AddressSanitizer, for minutes).
        let catalog = try await SourceCatalog.load(schedule, transport: counting, limits: limits, timeout: .seconds(3600))
        #expect(catalog.failures.isEmpty, "\(catalog.failures)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-in-flight-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: output) }
        try await MP4Exporter.render(try Composition.loading(schedule, catalog: catalog), catalog: catalog, to: FilePath(output.path))
        #expect(counting.most <= 3 && counting.most >= 2, "\(counting.most) at most")
        #expect(counting.total >= 11, "\(counting.total) requests")
    }

    @Test("the whole load is bounded: sources not loaded in time fail with loadTimedOut")
    func loadTimeout() async throws {
        // Every answer takes 120 s and is a 404: a load that waited for it would say so. (No
        // wall-clock bound here: other tests share the few cooperative threads this runs on.)
        let slow = SlowTransport(delay: .seconds(120))
        let location = MediaLocation(remoteURL: "http://127.0.0.1:1/slow.m3u8")
        let catalog = try await SourceCatalog.load([location], transport: slow, timeout: .milliseconds(200))
        #expect(catalog.failures[location] == .transport(HTTPTransportError(url: location.url, problem: .loadTimedOut(after: .milliseconds(200)))))
    }

    @Test("a cancelled load ends with CancellationError, without waiting for its requests")
    func cancelled() async throws {
        let location = MediaLocation(remoteURL: "http://127.0.0.1:1/slow.mp4")
        let load = Task { try await SourceCatalog.load([location], transport: SlowTransport(delay: .seconds(120))) }
        try await Task.sleep(for: .milliseconds(100))
        load.cancel()
        await #expect(throws: CancellationError.self) { _ = try await load.value }
    }

    @Test("a render of remote MP4s is byte for byte the render of the same files on disk")
    func renderMatchesLocal() async throws {
        let names = ["content.mp4", "ad1.mp4", "ad2.mp4"]
        var files: [String: [UInt8]] = [:]
        for name in names { files[name] = try fixture(name) }
        let transport = FileServingTransport(files)
        func schedule(_ base: String) throws -> Schedule {
            try Schedule(
                content: [ContentClip(id: "feature", source: MediaLocation(parsing: base + "content.mp4"))],
                breaks: [AdBreak(id: "pre", placement: .preroll, ads: [Ad(id: "a1", source: try MediaLocation(parsing: base + "ad1.mp4"))]),
                         AdBreak(id: "mid", placement: .midroll(at: MediaTime(seconds: 4)),
                                 ads: [Ad(id: "a2", source: try MediaLocation(parsing: base + "ad2.mp4"))])])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-remote-render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let remote = try schedule("http://127.0.0.1:1/")
        let catalog = try await SourceCatalog.load(remote, transport: transport)
        let composition = try Composition.loading(remote, catalog: catalog)
        try await MP4Exporter.render(composition, catalog: catalog, to: FilePath(folder.appendingPathComponent("remote.mp4").path))
        let local = try schedule(packageRoot.appendingPathComponent("Fixtures").path + "/")
        let localComposition = try Composition.loading(local)
        try await MP4Exporter.render(localComposition, to: FilePath(folder.appendingPathComponent("local.mp4").path))
        let remoteBytes = try Data(contentsOf: folder.appendingPathComponent("remote.mp4"))
        #expect(remoteBytes == (try Data(contentsOf: folder.appendingPathComponent("local.mp4"))))
        #expect(transport.requests.allSatisfy { $0.byteRange != nil })
    }

    /// `content.mp4` as the one remote clip of a schedule, loaded (two reads), on a server whose
    /// `ETag` changes from the third read on: the first read of its samples.
    private func contentChangingAtThirdRead() async throws -> (SourceCatalog, Composition) {
        let transport = FileServingTransport(["content.mp4": try fixture("content.mp4")], fault: .changesETag(fromRequest: 3))
        let schedule = try Schedule(content: [ContentClip(id: "feature", source: MediaLocation(parsing: "http://127.0.0.1:1/content.mp4"))], breaks: [])
        let catalog = try await SourceCatalog.load(schedule, transport: transport)
        return (catalog, try Composition.loading(schedule, catalog: catalog))
    }

    @Test("a fetch that fails while hls packages a remote MP4 leaves no output folder")
    func hlsFaultWritesNothing() async throws {
        let (catalog, composition) = try await contentChangingAtThirdRead()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-remote-hls-fault-\(UUID().uuidString)")
        do {
            let stitched = try await HLSExporter(outputURL: folder.appendingPathComponent("stitched.m3u8").path)
                .stitch(composition, catalog: catalog)
            try await stitched.write(into: FilePath(folder.path))
            Issue.record("wrote a stitch whose source changed while it was read")
        } catch {
            #expect("\(error)".contains("http://127.0.0.1:1/content.mp4") && "\(error)".contains("changed on the server"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// A clip whose range the schedule gives needs no probe, so its composition is built although
    /// its source failed to load: the render and the stitch say that failure (they said only that a
    /// remote source needs a catalog that loaded it, the very call made).
    @Test("a remote clip that failed to load: render, hls and dash say its URL and why")
    func loadFailureIsTheError() async throws {
        let transport = FileServingTransport(["content.mp4": try fixture("content.mp4")])
        let schedule = try Schedule(
            content: [ContentClip(id: "feature", source: MediaLocation(parsing: "http://127.0.0.1:1/content.mp4"))],
            breaks: [AdBreak(id: "mid", placement: .midroll(at: MediaTime(seconds: 2)),
                             ads: [Ad(id: "gone", source: try MediaLocation(parsing: "http://127.0.0.1:1/gone.mp4"), end: MediaTime(seconds: 3))])])
        let catalog = try await SourceCatalog.load(schedule, transport: transport)
        let composition = try Composition.loading(schedule, catalog: catalog)
        let cause = "could not be loaded: http://127.0.0.1:1/gone.mp4: HTTP 404"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-load-failure-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try await MP4Exporter.render(composition, catalog: catalog, to: FilePath(folder.appendingPathComponent("out.mp4").path))
            Issue.record("rendered a composition whose ad failed to load")
        } catch let error as MP4ExportError {
            #expect(error.cause == .remoteSource && error.item == "gone" && "\(error)".contains(cause), "\(error)")
        }
        let options = try HLSExportOptions(packagesEveryPiece: true)
        do throws(HLSExportError) {
            _ = try await HLSExporter(outputURL: folder.appendingPathComponent("stitched.m3u8").path, options: options)
                .stitch(composition, catalog: catalog)
            Issue.record("stitched a composition whose ad failed to load")
        } catch {
            #expect(error.cause == .unreadable && "\(error)".contains(cause), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test("a fetch that fails during a render writes nothing and says which URL and why")
    func renderFaultWritesNothing() async throws {
        let (catalog, composition) = try await contentChangingAtThirdRead()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-remote-fault-\(UUID().uuidString).mp4")
        await #expect(throws: MP4ExportError(.transport(HTTPTransportError(url: "http://127.0.0.1:1/content.mp4", problem: .changed("ETag \"v1\" then, \"v2\" now"))))) {
            try await MP4Exporter.render(composition, catalog: catalog, to: FilePath(output.path))
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

/// A transport whose every answer takes `delay` (or until its task is cancelled).
struct SlowTransport: HTTPTransport {
    let delay: Duration

    func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        do { try await Task.sleep(for: delay) } catch { throw HTTPTransportError(url: request.url, problem: .cancelled) }
        return HTTPTransportResponse(status: 404)
    }
}

/// A transport that counts the requests in flight through it (each held 20 ms), and the most at once.
final class InFlightCounting: HTTPTransport, @unchecked Sendable {
    let inner: FileServingTransport
    private let lock = NSLock()
    private var now = 0
    private(set) var most = 0
    private(set) var total = 0

    init(_ inner: FileServingTransport) { self.inner = inner }

    func get(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        lock.withLock {
            now += 1
            total += 1
            most = max(most, now)
        }
        defer { lock.withLock { now -= 1 } }
        try? await Task.sleep(for: .milliseconds(20))
        return try await inner.get(request)
    }
}
