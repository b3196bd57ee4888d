import CompositorAds
import CompositorCore
import CompositorTestSupport
import Foundation
import Testing

/// IAB's public VAST samples (`../shared/vast-samples`, 75 documents, VAST 1 to 4.2), every absolute
/// URL moved to 127.0.0.1 first, each read here and by an independent reader
/// (`Tests/Tools/vast_summary.py`, Python's ElementTree), which must agree on every value both read.
@Suite(.needsSharedData("vast-samples")) struct IABSampleTests {
    struct Sample: Sendable {
        var name: String
        var path: String
    }

    /// The samples, rewritten to the loopback into one temporary folder (once per run).
    static let rewritten: (folder: URL, samples: [Sample]) = {
        let root = URL(fileURLWithPath: SharedData.path("vast-samples") ?? "/nonexistent")
        // One folder, rewritten at every run (so runs leave one copy, not one each).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compositor-vast-samples")
        var samples: [Sample] = []
        let names = (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".xml") }.sorted()
        for name in names {
            guard let text = try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8) else { continue }
            let target = folder.appendingPathComponent(name)
            try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? LoopbackURLs.rewrite(text).write(to: target, atomically: true, encoding: .utf8)
            samples.append(Sample(name: name, path: target.path))
        }
        return (folder, samples)
    }()

    @Test func thereAreSeventyFive() {
        #expect(Self.rewritten.samples.count == 75)
        for sample in Self.rewritten.samples {
            let text = (try? String(contentsOfFile: sample.path, encoding: .utf8)) ?? ""
            // Every "://" is followed by the loopback address.
            let pieces = text.components(separatedBy: "://").dropFirst()
            #expect(pieces.allSatisfy { $0.hasPrefix("127.0.0.1/") }, "\(sample.name)")
        }
    }

    @Test func eachReadsAsTheIndependentReaderReadsIt() async throws {
        let samples = Self.rewritten.samples
        let script = packageRoot.appendingPathComponent("Tests/Tools/vast_summary.py").path
        let output = try await ChildProcess.run("/usr/bin/env", ["python3", script] + samples.map(\.path))
        try #require(output.status == 0, "\(output.stderr)")
        let summaries = try #require(try JSONSerialization.jsonObject(with: Data(output.stdoutBytes)) as? [String: Any])
        var versions: [String: Int] = [:]
        for sample in samples {
            let summary = try #require(summaries[sample.path] as? [String: Any], "\(sample.name)")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: sample.path)))
            if let version = summary["unsupportedVersion"] as? String {
                #expect(throws: VASTError.self, "\(sample.name)") { try VASTDocument(parsing: bytes) }
                do { _ = try VASTDocument(parsing: bytes) } catch { #expect(error.code == .versionNotSupported, "\(sample.name)") }
                versions["1 (\(version))", default: 0] += 1
                continue
            }
            let document: VASTDocument
            do { document = try VASTDocument(parsing: bytes, source: sample.name) } catch {
                Issue.record("\(sample.name): \(error)")
                continue
            }
            versions[document.version, default: 0] += 1
            #expect(document.version == summary["version"] as? String, "\(sample.name)")
            let ads = (summary["ads"] as? [[String: Any]] ?? []).filter { $0["kind"] is String }
            try #require(document.ads.count == ads.count, "\(sample.name)")
            for (ad, expected) in zip(document.ads, ads) {
                compare(ad, expected, in: sample.name, diagnostics: document.diagnostics)
            }
        }
        // Every version the samples hold was read.
        #expect(versions.keys.sorted() == ["1 (1.0)", "2.0", "3.0", "4.0", "4.1", "4.2"], "\(versions)")
    }

    private func compare(_ ad: VASTAd, _ expected: [String: Any], in name: String, diagnostics: [VASTDiagnostic]) {
        let place = "\(name), ad \(ad.id ?? "-")"
        #expect(ad.id == expected["id"] as? String, "\(place)")
        #expect(ad.sequence == expected["sequence"] as? Int, "\(place)")
        #expect((ad.wrapper == nil ? "inline" : "wrapper") == expected["kind"] as? String, "\(place)")
        #expect(ad.wrapper?.adTagURI == expected["adTagURI"] as? String, "\(place)")
        #expect(ad.impressions == expected["impressions"] as? [String], "\(place)")
        #expect(ad.errors == expected["errors"] as? [String], "\(place)")
        #expect(ad.verifications.count == expected["verifications"] as? Int, "\(place)")
        guard let linearSummary = expected["linear"] as? [String: Any] else {
            #expect(ad.linear == nil, "\(place)")
            return
        }
        guard let linear = ad.linear else { Issue.record("\(place): no linear read"); return }
        let ids = (expected["universalAdIds"] as? [[String: Any]] ?? []).map {
            VASTUniversalAdID(registry: $0["idRegistry"] as? String ?? "", value: $0["value"] as? String ?? "")
        }
        #expect(linear.universalAdIDs == ids, "\(place)")
        #expect(linear.duration.map(VASTOffset.time) == (linearSummary["duration"] as? String).flatMap(VASTOffset.init(parsing:)), "\(place)")
        #expect(linear.skipOffset == (linearSummary["skipoffset"] as? String).flatMap(VASTOffset.init(parsing:)), "\(place)")
        #expect(linear.clickThrough == linearSummary["clickThrough"] as? String, "\(place)")
        let files = linearSummary["mediaFiles"] as? [[String: Any]] ?? []
        #expect(linear.mediaFiles.count == files.count, "\(place)")
        for (file, expectedFile) in zip(linear.mediaFiles, files) {
            #expect(file.url == expectedFile["url"] as? String, "\(place)")
            #expect(file.type == expectedFile["type"] as? String ?? "", "\(place)")
            #expect(file.delivery.rawValue == (expectedFile["delivery"] as? String ?? "progressive"), "\(place)")
            #expect(file.width == expectedFile["width"] as? Int && file.height == expectedFile["height"] as? Int, "\(place)")
            #expect(file.bitrate == expectedFile["bitrate"] as? Int, "\(place)")
            #expect(file.apiFramework == expectedFile["apiFramework"] as? String, "\(place)")
        }
        // Tracking: every event both know, with the same URLs in order; an event this library does
        // not report is one it said it left out.
        let tracking = linearSummary["tracking"] as? [String: [String]] ?? [:]
        for (key, urls) in tracking {
            if key.hasPrefix("progress@") {
                let offset = VASTOffset(parsing: String(key.dropFirst("progress@".count)))
                #expect(linear.tracking.filter { $0.event == offset.map(VASTTrackingEvent.progress) }.map(\.url) == urls, "\(place): \(key)")
            } else if linear.tracking.contains(where: { $0.event.name == key }) || urls.isEmpty {
                #expect(linear.tracking.filter { $0.event.name == key }.map(\.url) == urls, "\(place): \(key)")
            } else {
                #expect(diagnostics.contains { $0.message.contains("\"\(key)\"") }, "\(place): \(key) neither read nor said to be left out")
            }
        }
    }
}

@Suite struct LoopbackURLTests {
    @Test func everyHostMovesToTheLoopback() {
        #expect(LoopbackURLs.rewrite("<a>https://example.com/x?u=http://b.example:81/y&z=1</a>", base: "http://127.0.0.1:9")
                == "<a>http://127.0.0.1:9/example.com/x?u=http://127.0.0.1:9/b.example:81/y&z=1</a>")
        #expect(LoopbackURLs.rewrite("rtsp://cam.example/raw C9=http://www.x.com&C10=xn") == "rtsp://127.0.0.1/cam.example/raw C9=http://127.0.0.1/www.x.com&C10=xn")
        #expect(LoopbackURLs.rewrite("myErrorUrl.com and :// alone") == "myErrorUrl.com and :// alone")
    }
}
