import Compositor

/// A schedule file read, with its sources' natural durations where they can be known, compiled.
struct LoadedSchedule {
    let path: FilePath
    /// The schedule file's folder, which its relative URLs are resolved against.
    var folder: FilePath { path.parent }
    let schedule: Schedule
    let naturalDurations: [MediaLocation: MediaTime]
    let composition: Composition

    /// Reads and compiles the schedule at `path`, saying on stderr what it changed and, with
    /// `warningOfUnreadableSources`, which local sources cannot be read. A command that reads every
    /// source itself (a render, a stitch) names one it cannot read in its own error, so it passes
    /// `false` and that is said once.
    init(path: FilePath, warningOfUnreadableSources: Bool = true) throws(DemoError) {
        self.path = path
        var readDiagnostics: [ScheduleDocumentDiagnostic] = []
        do {
            schedule = try ScheduleDocument.read(path: path, diagnostics: &readDiagnostics)
        } catch {
            if case .unreadable = error { throw .failure("\(error)") }
            throw .failure("\(path): \(error)")
        }
        let probed = SourceProbe.probeAll(schedule)
        naturalDurations = probed.results.mapValues(\.naturalDuration)
        do { composition = try Composition.loading(schedule, probed: probed) } catch { throw .failure("\(path): \(error)") }
        for diagnostic in readDiagnostics { Output.err("warning: \(path): \(diagnostic)") }
        for diagnostic in composition.diagnostics { Output.err("warning: \(path): \(diagnostic)") }
        // A local source that cannot be read still places (its clips give their ends) but will
        // not render or play: say so now rather than at render time.
        for (_, failure) in probed.failures.sorted(by: { $0.key.description < $1.key.description }) where warningOfUnreadableSources {
            if case .remote = failure { continue }
            Output.err("warning: \(path): \(failure) (its clips are placed by the times the schedule gives)")
        }
    }
}

/// A source's natural duration, from the file itself where it can be read.
enum NaturalDurationProbe {
    static func duration(of source: MediaLocation) -> MediaTime? {
        try? SourceProbe.probe(source).naturalDuration
    }
}
