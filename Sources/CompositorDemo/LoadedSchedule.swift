import Compositor
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        let data = try Self.readScheduleFile(path)
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

    /// The file's bytes. Only a regular file is read (a FIFO or a device could block or never
    /// end), and one larger than `ScheduleDocument.maximumBytes` is refused before reading.
    static func readScheduleFile(_ path: String) throws(DemoError) -> [UInt8] {
        func failure(_ reason: String) -> DemoError { .failure("\(path): \(reason)") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            throw failure(code == ENOENT ? "no such file" : String(cString: strerror(code)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure("is a folder")
        default: throw failure("not a regular file")
        }
        let limit = ScheduleDocument.maximumBytes
        guard info.st_size <= limit else {
            throw failure("the schedule is \(info.st_size) bytes, more than the limit of \(limit)")
        }
        // One byte more than allowed, to notice a file that grew past the limit while being read.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            filled += n
            if filled == bytes.count, filled <= limit { bytes.append(contentsOf: repeatElement(0, count: min(64 << 10, limit + 1 - filled))) }
        }
        guard filled <= limit else { throw failure("the schedule grew past the limit of \(limit) bytes while being read") }
        bytes.removeLast(bytes.count - filled)
        return bytes
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
