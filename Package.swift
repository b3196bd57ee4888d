// swift-tools-version:6.0
import PackageDescription

// The layers are targets, so the arrows between them are enforced by the build:
//
//   CompositorCore         Time, Schedule, Timeline, Playback: pure values, no file system, no Foundation
//   CompositorIO           the one file reader and the atomic output writers, POSIX  (Core)
//   CompositorTS           MPEG-2 transport stream packets, PES, ADTS, H.264 Annex B: bytes only
//   CompositorMP4          boxes, reader, writer, stitcher; transport stream sources (Core, IO, TS)
//   CompositorHLS          playlist model, parser, writer, stitcher (Core)
//   CompositorAds          VMAP and VAST: model, reader (Foundation's XMLParser), resolver, beacons (Core)
//   Compositor             probing, exporters, schedule documents; re-exports Core (what apps import)
//   CompositorAVFoundation the AVFoundation adapters               (Compositor)
//   CompositorTesting      simulated players and a recording composition, for tests and the demo
//   <Target>Tests          a test target per library target, reaching only its layers; helpers in *TestSupport
//
// Where Apple's frameworks are absent (Linux here), the adapters build against stand-ins of the
// AVFoundation and CoreMedia declarations they use (Sources/StandIns), so every adapter file is
// compiled and tested on every platform.
//
// Internals shared between targets use `package` access; `public` is what apps use.
let withoutAppleFrameworks: [Platform] = [.linux, .windows, .android, .wasi, .openbsd]
let avFoundationStandIn = Target.Dependency.target(name: "AVFoundationStandIn", condition: .when(platforms: withoutAppleFrameworks))

/// A target of test helpers, `Tests/<name>`: the test targets' own code, which no library target
/// and no product names (so no app builds it, and the Apple SDK checks, which build the library
/// targets, leave it out).
func testSupport(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: "Tests/\(name)")
}

let package = Package(
    name: "Compositor",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "Compositor", targets: ["Compositor"]),
        .library(name: "CompositorAVFoundation", targets: ["CompositorAVFoundation"]),
        .library(name: "CompositorTesting", targets: ["CompositorTesting"]),
        .executable(name: "CompositorDemo", targets: ["CompositorDemo"]),
    ],
    targets: [
        .target(name: "CompositorCore"),
        .target(name: "CompositorIO", dependencies: ["CompositorCore"]),
        .target(name: "CompositorTS", dependencies: ["CompositorCore"]),
        .target(name: "CompositorMP4", dependencies: ["CompositorCore", "CompositorIO", "CompositorTS"]),
        .target(name: "CompositorHLS", dependencies: ["CompositorCore"]),
        .target(name: "CompositorAds", dependencies: ["CompositorCore"]),
        .target(name: "Compositor", dependencies: ["CompositorCore", "CompositorIO", "CompositorMP4", "CompositorHLS", "CompositorAds"]),
        .target(name: "CoreMediaStandIn", path: "Sources/StandIns/CoreMedia"),
        .target(name: "AVFoundationStandIn", dependencies: ["CoreMediaStandIn"], path: "Sources/StandIns/AVFoundation"),
        .target(name: "CompositorAVFoundation", dependencies: ["Compositor", avFoundationStandIn]),
        .target(name: "CompositorTesting", dependencies: ["Compositor", "CompositorCore", "CompositorIO", "CompositorMP4", "CompositorTS", "CompositorHLS"]),
        .executableTarget(name: "CompositorDemo", dependencies: ["Compositor", "CompositorIO", "CompositorTesting"]),
        // Benchmark harnesses (release builds, run by the scripts in Benchmarks/); they use `package`
        // API, so they live in this package, but no product names them: apps never build them.
        .target(name: "BenchmarkSupport", dependencies: ["Compositor"], path: "Benchmarks/Sources/BenchmarkSupport"),
        .executableTarget(name: "MappingBenchmark", dependencies: ["Compositor", "BenchmarkSupport"], path: "Benchmarks/Sources/MappingBenchmark"),
        .executableTarget(name: "HLSParseBenchmark", dependencies: ["Compositor"], path: "Benchmarks/Sources/HLSParseBenchmark"),
        .executableTarget(name: "RenderBenchmark", dependencies: ["Compositor", "CompositorIO"], path: "Benchmarks/Sources/RenderBenchmark"),
        .executableTarget(name: "SessionBenchmark", dependencies: ["Compositor", "BenchmarkSupport"], path: "Benchmarks/Sources/SessionBenchmark"),
        .executableTarget(name: "AdsBenchmark", dependencies: ["Compositor"], path: "Benchmarks/Sources/AdsBenchmark"),
        .executableTarget(name: "LiveBenchmark", dependencies: ["Compositor"], path: "Benchmarks/Sources/LiveBenchmark"),
        // The tests: one target per library target, each depending on its library target (and what
        // that one depends on, where its tests use it) and on the support targets of its layer, so a
        // test reaches no module above its own (.ci/check-layers.sh shows it). A test that spans
        // layers (renders through Compositor, then judges MP4 internals) is in the higher target.
        .testTarget(name: "CompositorCoreTests", dependencies: ["CompositorCore", "CompositorTestSupport"]),
        .testTarget(name: "CompositorIOTests", dependencies: ["CompositorIO", "CompositorCore", "CompositorTestSupport"]),
        .testTarget(name: "CompositorTSTests", dependencies: ["CompositorTS", "CompositorCore", "CompositorTestSupport"]),
        .testTarget(name: "CompositorMP4Tests", dependencies: ["CompositorMP4", "CompositorCore", "CompositorIO", "CompositorTS",
                                                               "CompositorTestSupport", "CompositorMP4TestSupport"]),
        .testTarget(name: "CompositorHLSTests", dependencies: ["CompositorHLS", "CompositorCore",
                                                               "CompositorTestSupport", "CompositorHLSTestSupport"]),
        .testTarget(name: "CompositorAdsTests", dependencies: ["CompositorAds", "CompositorCore", "CompositorTestSupport"]),
        .testTarget(name: "CompositorTests", dependencies: ["Compositor", "CompositorCore", "CompositorIO", "CompositorTS", "CompositorMP4",
                                                            "CompositorHLS", "CompositorTesting", "CompositorTestSupport",
                                                            "CompositorHLSTestSupport", "CompositorMP4TestSupport",
                                                            "CompositorUmbrellaTestSupport"]),
        .testTarget(name: "CompositorAVFoundationTests", dependencies: ["CompositorAVFoundation", avFoundationStandIn, "Compositor",
                                                                        "CompositorCore", "CompositorHLS", "CompositorTesting",
                                                                        "CompositorTestSupport", "CompositorUmbrellaTestSupport"]),
        .testTarget(name: "CompositorDemoTests", dependencies: ["CompositorDemo", "Compositor", "CompositorCore", "CompositorHLS",
                                                                "CompositorTestSupport", "CompositorUmbrellaTestSupport"]),
        // What the test targets share, layered as the library is (regular targets no product names:
        // apps never build them). CompositorTestSupport sits on CompositorCore alone, so every test
        // target can use it; the others sit on the layer whose internals their judges read.
        testSupport("CompositorTestSupport", ["CompositorCore"]),
        testSupport("CompositorHLSTestSupport", ["CompositorHLS", "CompositorCore", "CompositorTestSupport"]),
        testSupport("CompositorMP4TestSupport", ["CompositorMP4", "CompositorCore", "CompositorIO", "CompositorTestSupport"]),
        testSupport("CompositorUmbrellaTestSupport", ["Compositor", "CompositorTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
