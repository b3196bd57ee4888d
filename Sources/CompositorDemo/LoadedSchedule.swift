import Compositor
import Foundation

/// A schedule file read, with its sources' natural durations where they can be known, compiled.
struct LoadedSchedule {
    let path: String
    let schedule: Schedule
    let composition: Composition

    init(path: String) throws(DemoError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw .failure("\(path): " + (exists ? (isDirectory.boolValue ? "is a folder" : "cannot be read") : "no such file"))
        }
        let folder = (path as NSString).deletingLastPathComponent
        do {
            schedule = try ScheduleDocument.decode(data, baseDirectory: folder.isEmpty ? "." : folder)
        } catch {
            throw .failure("\(path): \(error)")
        }
        let durations = NaturalDurationProbe.durations(of: schedule)
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
    struct Result {
        var known: [MediaSource: MediaTime] = [:]
        /// Why a source's duration is not known.
        var failures: [MediaSource: String] = [:]
    }

    static func durations(of schedule: Schedule) -> Result {
        var result = Result()
        let sources = Set(schedule.content.map(\.source) + schedule.breaks.flatMap { $0.ads.map(\.source) })
        for source in sources {
            result.failures[source] = "this build cannot probe media files yet; give an explicit end"
        }
        return result
    }
}
