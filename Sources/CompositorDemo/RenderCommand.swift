import Compositor
import CompositorIO
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `render SCHEDULE.json --output OUT.mp4 [--cut sample|keyframe|web]`: one stitched MP4, samples copied.
enum RenderCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        guard let output = try arguments.pathOption("--output") else { throw .usage("render needs --output OUT.mp4") }
        let cut = try cutMode(try arguments.option("--cut")) ?? .sampleAccurate
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        // The library guards the sources; the schedule is the demo's own input.
        do { try OutputDestination.check(output, inputs: [path]) } catch { throw .failure(error.description) }
        // The schedule itself is not kept: a schedule of 10,000 breaks is megabytes.
        let loaded = try LoadedSchedule(path: path, warningOfUnreadableSources: false, placingOnly: false)
        let rendered = try render(loaded.composition, catalog: loaded.catalog, to: output, cut: cut, scheduleFile: path)
        report(rendered, output: output, cut: cut)
    }

    /// The cut mode a `--cut` value names (`sample`, `keyframe`, `web`); `nil` when none was given.
    static func cutMode(_ name: String?) throws(DemoError) -> MP4CutMode? {
        switch name {
        case nil: return nil
        case "sample": return .sampleAccurate
        case "keyframe": return .keyframeAligned
        case "web": return .webSafe
        case let name?: throw .usage("--cut: expected sample, keyframe or web, got \(quoted(name))")
        }
    }

    /// Renders with a progress bar on stderr when it is a terminal.
    static func render(_ composition: Composition, catalog: SourceCatalog, to output: FilePath, cut: MP4CutMode,
                       scheduleFile: FilePath) throws(DemoError) -> MP4Export {
        let bar = ProgressBar()
        defer { bar.finish() }
        // The main thread waits for the render's task; the bar is updated from the rendering
        // thread alone.
        nonisolated(unsafe) let updating = bar
        let result = waitForTask { () -> Result<MP4Export, any Error> in
            do {
                return .success(try await MP4Exporter.render(composition, catalog: catalog, to: output, cut: cut) { updating.update($0.fraction) })
            } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw .failure("\(scheduleFile): \(error)") }
    }

    static func summary(_ rendered: MP4Export, output: FilePath, cut: MP4CutMode) -> String {
        let size = rendered.plan.outputSize
        var lines = ["wrote \(output): \(rendered.composition.duration) s, \(rendered.composition.segments.count) segments, "
            + "\(size) bytes (\(describe(cut)))"]
        let moved = rendered.plan.pieces.filter { $0.sourceRange != $0.requestedRange }
        for piece in moved {
            lines.append("  \(piece.path): \(piece.requestedRange) snapped to \(piece.sourceRange)")
        }
        return lines.joined(separator: "\n")
    }

    /// Says what was written on stdout (`summary`), and what the render changed on stderr.
    static func report(_ rendered: MP4Export, output: FilePath, cut: MP4CutMode, leadingBlankLine: Bool = false) {
        Output.out((leadingBlankLine ? "\n" : "") + summary(rendered, output: output, cut: cut))
        for diagnostic in rendered.diagnostics { Output.err("note: \(diagnostic)") }
    }

    private static func describe(_ cut: MP4CutMode) -> String {
        switch cut {
        case .sampleAccurate: "sample-accurate cuts"
        case .keyframeAligned: "cuts on keyframes"
        case .webSafe: "cuts on keyframes, web-safe: one format per track"
        }
    }
}

/// A one-line progress bar on stderr, redrawn in place.
final class ProgressBar {
    private let enabled: Bool
    private var shown = -1

    /// Shown only when stderr is a terminal (a log or a pipe gets no redrawn line).
    init(enabled: Bool = isatty(STDERR_FILENO) == 1) { self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard percent != shown else { return }
        shown = percent
        let filled = percent * 40 / 100
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 40 - filled) + "] \(percent)%"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        if enabled && shown >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
