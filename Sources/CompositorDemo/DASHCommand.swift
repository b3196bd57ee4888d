import Compositor
import CompositorIO

/// `dash SCHEDULE.json --output DIR [--snap RULE]`: the schedule as a static multi-period MPEG-DASH
/// presentation, `DIR/stitched.mpd`, one period per piece of the composition over fragmented MP4
/// segments made by passthrough (`DASHExporter`), every variant of a multivariant source a
/// representation, and the timeline that plays in it (`timeline
/// --json`'s shape) in `DIR/timeline.json`: the same timeline as `hls --package-every-piece
/// --segments fmp4` writes for the schedule.
///
/// The folder appears whole or not at all, as `hls` writes it.
enum DASHCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        guard let output = try arguments.pathOption("--output") else { throw .usage("dash needs --output DIR") }
        var snapping = HLSCutSnapping.nearest
        if let name = try arguments.option("--snap") {
            guard let rule = HLSCommand.snappingRules.first(where: { $0.name == name })?.rule else {
                throw .usage("--snap: expected \(HLSCommand.snappingRules.map(\.name).joined(separator: ", ")), got \(quoted(name))")
            }
            snapping = rule
        }
        let schedule = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        let loaded = try LoadedSchedule(path: schedule, warningOfUnreadableSources: false, placingOnly: false, adsFor: .hls)
        let target = output.resolved(against: currentFolder())
        let presentation: DASHExport
        do { presentation = try DASHExporter(snapping: snapping, renditions: loaded.schedule.renditions).readingSources(from: loaded.catalog).export(loaded.composition) } catch {
            throw .failure("\(loaded.path): \(error)")
        }
        let timeline = HLSExport.File(url: HLSCommand.timelineName, text: TimelineReport.json(presentation.reconciled.played).serialized + "\n")
        do { try presentation.write(into: target, extraFiles: [timeline]) } catch { throw .failure("\(error)") }
        let periods = presentation.reconciled.played.segments.count
        Output.out("\(target.appending(DASHExport.manifestName)): \(periods) period\(periods == 1 ? "" : "s"), "
            + "\(presentation.reconciled.played.duration.formatted(.milliseconds)) (timeline.json beside it)")
    }
}
