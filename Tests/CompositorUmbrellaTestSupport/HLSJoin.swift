import CompositorTestSupport
import Foundation
import Testing
import Compositor

/// Schedules over the committed HLS fixtures, and ffmpeg as the judge of what a stitch wrote.
package enum HLSJoin {
    package static let fixtures = packageRoot.appendingPathComponent("Fixtures").path

    /// A schedule file of `Fixtures/`, compiled with its sources' probed durations.
    package static func composition(_ name: String) throws -> Composition {
        try composition(json: try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
    }

    /// A schedule given as JSON, URLs relative to `Fixtures/`.
    package static func composition(json: some Collection<UInt8>) throws -> Composition {
        let schedule = try ScheduleDocument.decode(json, baseFolder: FilePath(fixtures))
        let (probed, failures) = SourceProbe.probeAll(schedule)
        #expect(failures.isEmpty, "\(failures)")
        return try Composition(schedule: schedule, naturalDurations: probed.mapValues(\.naturalDuration))
    }

    /// Stitches `composition` into a fresh scratch folder and writes every playlist there.
    package static func stitch(_ composition: Composition, folder: String) throws -> HLSExport {
        let stitched = try HLSExporter(outputURL: folder + "/stitched.m3u8").stitch(composition)
        for file in stitched.files { try Data(file.text.utf8).write(to: URL(fileURLWithPath: file.url)) }
        return stitched
    }

    /// The segment boundaries of the media playlist at `url`, from 0.
    package static func boundaries(_ url: String) throws -> [MediaTime] {
        guard case .media(let playlist) = try HLSProbe.load(url) else { throw DemoTestError("\(url) is not a media playlist") }
        return try playlist.segmentBoundaries
    }

    /// The schedule in `json` (URLs relative to `Fixtures/`) with its sources' probed durations.
    package static func schedule(json: String) throws -> (Schedule, [MediaLocation: MediaTime]) {
        let schedule = try ScheduleDocument.decode(Array(json.utf8), baseFolder: FilePath(HLSJoin.fixtures))
        let (probed, failures) = SourceProbe.probeAll(schedule)
        #expect(failures.isEmpty, "\(failures)")
        return (schedule, probed.mapValues(\.naturalDuration))
    }

    /// The text of a file of `Fixtures/`.
    package static func fixture(_ name: String) throws -> String {
        try String(contentsOfFile: HLSJoin.fixtures + "/" + name, encoding: .utf8)
    }
}

/// Reads a schedule file from `Fixtures/`.
package func fixtureSchedule(_ name: String) throws -> Schedule {
    let url = packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    return try ScheduleDocument.decode(try Data(contentsOf: url))
}

/// A failure a test reports in its own words.
package struct DemoTestError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
