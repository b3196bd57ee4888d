import Compositor

/// A schedule file read, with its sources' natural durations where they can be known, compiled.
struct LoadedSchedule {
    let path: FilePath
    /// The schedule file's folder, which its relative URLs are resolved against.
    var folder: FilePath { path.parent }
    let schedule: Schedule
    let naturalDurations: [MediaLocation: MediaTime]
    /// Every source loaded once: local files and http(s) URLs.
    let catalog: SourceCatalog
    let composition: Composition

    /// Reads and compiles the schedule at `path`, saying on stderr what it changed and, with
    /// `warningOfUnreadableSources`, which sources cannot be read. A command that reads every
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
        // The demo's commands are synchronous, on the main thread (not one of Swift concurrency's),
        // which may wait for the load.
        let schedule = schedule
        guard let catalog = waitForTask({ try? await SourceCatalog.load(schedule) }) else { throw .failure("\(path): the load was cancelled") }
        self.catalog = catalog
        naturalDurations = catalog.naturalDurations
        do { composition = try Composition.loading(schedule, catalog: catalog) } catch { throw .failure("\(path): \(error)") }
        for diagnostic in readDiagnostics { Output.err("warning: \(path): \(diagnostic)") }
        for diagnostic in composition.diagnostics { Output.err("warning: \(path): \(diagnostic)") }
        // A source that cannot be read still places (its clips give their ends) but will
        // not render or play: say so now rather than at render time.
        for (_, failure) in catalog.failures.sorted(by: { $0.key.description < $1.key.description }) where warningOfUnreadableSources {
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
