import Compositor
import Foundation

/// A schedule file read, with its sources' natural durations where they can be known, compiled.
struct LoadedSchedule {
    let path: String
    /// The schedule file's folder, which its relative URLs are resolved against.
    let folder: String
    let schedule: Schedule
    let naturalDurations: [MediaSource: MediaTime]
    let trackLayouts: [MediaSource: SourceTrackLayout]
    let composition: Composition

    init(path: String) throws(DemoError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw .failure("\(path): " + (exists ? (isDirectory.boolValue ? "is a folder" : "cannot be read") : "no such file"))
        }
        let parent = (path as NSString).deletingLastPathComponent
        folder = parent.isEmpty ? "." : parent
        do {
            schedule = try ScheduleDocument.decode(data, baseDirectory: folder)
        } catch {
            throw .failure("\(path): \(error)")
        }
        let durations = NaturalDurationProbe.durations(of: schedule)
        naturalDurations = durations.known
        trackLayouts = durations.tracks
        do {
            composition = try Composition(schedule: schedule, naturalDurations: durations.known)
        } catch {
            var message = "\(path): \(error)"
            if case .unknownDuration(_, let source) = error, let why = durations.failures[source] {
                message += " (\(why))"
            }
            throw .failure(message)
        }
        for diagnostic in composition.diagnostics { Output.err("warning: \(path): \(diagnostic)") }
    }
}

/// Natural durations of a schedule's sources, from the files themselves where they can be read.
enum NaturalDurationProbe {
    struct Durations {
        var known: [MediaSource: MediaTime] = [:]
        var tracks: [MediaSource: SourceTrackLayout] = [:]
        /// Why a source's duration is not known.
        var failures: [MediaSource: String] = [:]
    }

    static func durations(of schedule: Schedule) -> Durations {
        let (results, failures) = SourceProbe.probeAll(schedule)
        return Durations(
            known: results.mapValues(\.naturalDuration), tracks: results.mapValues(\.tracks),
            failures: failures.mapValues(\.description))
    }

    static func duration(of source: MediaSource) -> MediaTime? {
        try? SourceProbe.probe(source).naturalDuration
    }
}
