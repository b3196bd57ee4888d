import CompositorCore

extension Composition {
    /// Probes every source of `schedule` (once each) for its natural duration, then compiles it:
    /// the one call from a schedule to a composition.
    ///
    /// ```swift
    /// let schedule = try ScheduleDocument.read(path: "show.json")
    /// let composition = try Composition.loading(schedule)
    /// composition.compositionTime(forContentTime: MediaTime(seconds: 23))
    /// ```
    ///
    /// A source that cannot be probed is fine while every clip of it gives its `end`; one that a
    /// clip needs the duration of is an error naming the item, the source and why it could not
    /// be read.
    ///
    /// - Parameters:
    ///   - schedule: The clips and breaks.
    ///   - excludedBreakIDs: Breaks to leave out, as `init(schedule:naturalDurations:excludingBreaks:)`.
    /// - Returns: The composition, its `diagnostics` saying what was clamped or rounded.
    /// - Throws: `CompositionLoadError`: a schedule rule broken, or a duration that could not be probed.
    public static func loading(_ schedule: Schedule, excludingBreaks excludedBreakIDs: Set<String> = []) throws(CompositionLoadError) -> Composition {
        try loading(schedule, probed: SourceProbe.probeAll(schedule), excludingBreaks: excludedBreakIDs)
    }

    /// Compiles `schedule` with the durations of sources already loaded: the step after
    /// `SourceCatalog.load`, and the way to a composition of remote sources.
    ///
    /// ```swift
    /// let catalog = try await SourceCatalog.load(schedule)
    /// let composition = try Composition.loading(schedule, catalog: catalog)
    /// ```
    ///
    /// - Parameters:
    ///   - schedule: The clips and breaks.
    ///   - catalog: Its sources, loaded.
    ///   - excludedBreakIDs: Breaks to leave out, as `init(schedule:naturalDurations:excludingBreaks:)`.
    /// - Returns: The composition.
    /// - Throws: `CompositionLoadError`: a schedule rule broken, or a duration the catalog could
    ///   not load (with why).
    public static func loading(
        _ schedule: Schedule, catalog: SourceCatalog, excludingBreaks excludedBreakIDs: Set<String> = []
    ) throws(CompositionLoadError) -> Composition {
        try loading(schedule, naturalDurations: catalog.naturalDurations, failures: catalog.failures, excludingBreaks: excludedBreakIDs)
    }

    /// `loading(_:excludingBreaks:)` from sources already probed (`SourceProbe.probeAll`).
    package static func loading(
        _ schedule: Schedule, probed: (results: [MediaLocation: SourceProbe.Report], failures: [MediaLocation: SourceProbeError]),
        excludingBreaks excludedBreakIDs: Set<String> = []
    ) throws(CompositionLoadError) -> Composition {
        try loading(schedule, naturalDurations: probed.results.mapValues(\.naturalDuration), failures: probed.failures,
                    excludingBreaks: excludedBreakIDs)
    }

    private static func loading(
        _ schedule: Schedule, naturalDurations: [MediaLocation: MediaTime], failures: [MediaLocation: SourceProbeError],
        excludingBreaks excludedBreakIDs: Set<String>
    ) throws(CompositionLoadError) -> Composition {
        do {
            return try Composition(schedule: schedule, naturalDurations: naturalDurations, excludingBreaks: excludedBreakIDs)
        } catch {
            if case .unknownDuration(let item, let source) = error, let why = failures[source] {
                throw .unreadableSource(item: item, source: source, why)
            }
            throw .schedule(error)
        }
    }
}

/// Why `Composition.loading(_:)` made no composition.
public enum CompositionLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The schedule breaks a rule (see `ScheduleError`).
    case schedule(ScheduleError)
    /// A clip without `end` whose source could not be probed for its duration, and why.
    case unreadableSource(item: String, source: MediaLocation, SourceProbeError)

    public var description: String {
        switch self {
        case .schedule(let error): return error.description
        case .unreadableSource(let item, let source, let why):
            return "\(quoted(item)) needs the duration of \(source.displayDescription), which could not be probed: \(why)"
        }
    }
}
