import Foundation

/// Paths to the committed fixtures and scratch space for tests.
package enum MP4Fixtures {
    package static let folder: String = packageRoot.appendingPathComponent("Fixtures").path

    package static func path(_ name: String) -> String { folder + "/" + name }

    package static let content = path("content.mp4")
    package static let content2 = path("content2.mp4")
    package static let ad1 = path("ad1.mp4")
    package static let ad2 = path("ad2.mp4")
    package static let videoOnly = path("bumper-video-only.mp4")
    package static let audioOnly = path("jingle-audio-only.mp4")
    package static let mpeg4Video = path("mpeg4-part2.mp4")
    package static let webAd = path("web-ad.mp4")

    /// A fresh, empty folder under the system's temporary folder; removed by `remove`.
    package static func makeScratchFolder(_ label: String = "mp4") throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("compositor-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    package static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    package static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    package static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The names in `folder`, sorted.
    package static func listing(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}
