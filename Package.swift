// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Compositor",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "Compositor", targets: ["Compositor"]),
        .executable(name: "CompositorDemo", targets: ["CompositorDemo"]),
    ],
    targets: [
        .target(name: "Compositor"),
        .executableTarget(name: "CompositorDemo", dependencies: ["Compositor"]),
        .testTarget(
            name: "CompositorTests",
            dependencies: ["Compositor"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
