// swift-tools-version:6.0
// Benchmarks live in their own package so the library's users never build them.
// Run them through the scripts in the folders beside this file (e.g. `bash Benchmarks/mapping/run.sh`).
import PackageDescription

let package = Package(
    name: "CompositorBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Compositor", path: "..")],
    targets: [
        .executableTarget(
            name: "MappingBenchmark",
            dependencies: [.product(name: "Compositor", package: "Compositor")]
        ),
        .executableTarget(
            name: "RenderBenchmark",
            dependencies: [.product(name: "Compositor", package: "Compositor")]
        ),
        .executableTarget(
            name: "HLSParseBenchmark",
            dependencies: [.product(name: "Compositor", package: "Compositor")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
