import Compositor

/// A schedule file read, with its sources' natural durations where they can be known, compiled.
struct LoadedSchedule {
    let path: FilePath
    /// The schedule file's folder, which its relative URLs are resolved against.
    var folder: FilePath { path.parent }
    let schedule: Schedule
    /// What the ad servers (a `vmap`, a break's `vast`) asked to be told, and the errors owed them.
    let ads: AdSchedule
    let naturalDurations: [MediaLocation: MediaTime]
    /// Every source loaded once: local files and http(s) URLs.
    let catalog: SourceCatalog
    let composition: Composition

    /// Reads and compiles the schedule at `path` (resolving its ads from ad servers, their media
    /// files chosen for `output`), saying on stderr what it changed and, with
    /// `warningOfUnreadableSources`, which sources cannot be read. A command that reads every
    /// source itself (a render, a stitch) names one it cannot read in its own error, so it passes
    /// `false` and that is said once. An ad that cannot be read is dropped, unless the command
    /// only places the schedule (`placingOnly`) and the ad gives its `end`.
    init(path: FilePath, warningOfUnreadableSources: Bool = true, placingOnly: Bool = true,
         adsFor output: MediaFileSelection.Output = .progressiveMP4) throws(DemoError) {
        self.path = path
        var options = VASTResolver.Options()
        options.selection.output = output
        let adOptions = options
        // The demo's commands are synchronous, on the main thread (not one of Swift concurrency's),
        // which may wait for the load.
        let loaded = waitForTask { () async -> Result<(AdSchedule, SourceCatalog)?, ScheduleDocumentError> in
            do throws(ScheduleDocumentError) {
                var ads = try await ScheduleDocument.load(path: path, ads: adOptions)
                guard let catalog = try? await ads.loadSources(placingOnly: placingOnly) else { return .success(nil) }
                return .success((ads, catalog))
            } catch {
                return .failure(error)
            }
        }
        switch loaded {
        case .failure(let error):
            if case .unreadable = error { throw .failure("\(error)") }
            throw .failure("\(path): \(error)")
        case .success(nil): throw .failure("\(path): the load was cancelled")
        case .success(let (ads, catalog)?):
            self.ads = ads
            self.catalog = catalog
        }
        schedule = ads.schedule
        naturalDurations = catalog.naturalDurations
        // Content that cannot be read stops a command that plays it: that is the one error, not
        // preceded by the drops of ads that would not matter.
        let failures = catalog.failures
        if !placingOnly, let failure = schedule.content.lazy.compactMap({ failures[$0.source] }).first {
            throw .failure("\(path): \(failure)")
        }
        do { composition = try Composition.loading(schedule, catalog: catalog) } catch { throw .failure("\(path): \(error)") }
        for diagnostic in ads.diagnostics { Output.err("warning: \(path): \(diagnostic)") }
        for diagnostic in composition.diagnostics { Output.err("warning: \(path): \(diagnostic)") }
        // A source that cannot be read still places (its clips give their ends) but will
        // not render or play: say so now rather than at render time.
        // (An ad's failure is told once, as its drop, above.)
        let scheduled = Set(schedule.content.map(\.source) + schedule.breaks.flatMap(\.ads).map(\.source))
        for (source, failure) in catalog.failures.sorted(by: { $0.key.description < $1.key.description })
        where warningOfUnreadableSources && scheduled.contains(source) {
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
