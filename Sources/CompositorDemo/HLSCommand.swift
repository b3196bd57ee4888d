import Compositor
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `hls SCHEDULE.json --output DIR`: the schedule's HLS sources stitched into `DIR/stitched.m3u8`
/// (a multivariant playlist with `stitched-N.m3u8` beside it when the content has variants), the
/// exact-cut queue plan in `DIR/queue-plan.json`, and the timeline that plays in the playlist (cuts
/// snapped; `timeline --json`'s shape) in `DIR/timeline.json`.
///
/// The folder appears whole or not at all: everything is written into a new folder beside it, which
/// then takes its name. An existing `DIR` is replaced only when it holds nothing but a previous
/// stitch (those file names); anything else in it is refused, untouched.
enum HLSCommand {
    static let playlistName = "stitched.m3u8"
    static let queuePlanName = "queue-plan.json"
    static let timelineName = "timeline.json"

    static func run(_ arguments: inout Arguments) throws(DemoError) {
        guard let folder = try arguments.option("--output") else { throw .usage("hls needs --output DIR") }
        let path = try arguments.positional("SCHEDULE.json")
        try arguments.finish()
        let loaded = try LoadedSchedule(path: path)
        let stitched = try stitch(loaded.composition, into: folder, scheduleFile: path)
        Output.out(summary(stitched, folder: folder))
    }

    /// Stitches `composition` and writes the playlists and the queue plan into `folder`, atomically.
    static func stitch(_ composition: Composition, into folder: String, scheduleFile: String) throws(DemoError) -> HLSStitchedComposition {
        let target = URL(fileURLWithPath: folder).standardizedFileURL.path
        try checkOutputFolder(target, shown: folder)
        let stitched: HLSStitchedComposition
        do {
            stitched = try HLSCompositionStitcher(outputURL: target + "/" + playlistName).stitch(composition)
        } catch {
            throw .failure("\(scheduleFile): \(error)")
        }
        var files = stitched.files.map { ($0.name, $0.text) }
        files.append((queuePlanName, queuePlanJSON(stitched.queuePlan, folder: target).serialized + "\n"))
        files.append((timelineName, TimelineReport.json(stitched.composition).serialized + "\n"))
        try writeFolder(target, shown: folder, files: files)
        return stitched
    }

    /// Whether `name` is a file a stitch writes, so a folder holding only those can be replaced.
    static func isStitchOutput(_ name: String) -> Bool {
        if [playlistName, queuePlanName, timelineName].contains(name) { return true }
        guard name.hasPrefix("stitched-"), name.hasSuffix(".m3u8") else { return false }
        let index = name.dropFirst("stitched-".count).dropLast(".m3u8".count)
        return !index.isEmpty && index.allSatisfy(\.isASCII) && index.allSatisfy(\.isNumber)
    }

    /// Refuses a target that is a file, that holds anything but a previous stitch, or whose parent
    /// folder is missing.
    private static func checkOutputFolder(_ target: String, shown: String) throws(DemoError) {
        var isFolder: ObjCBool = false
        let parent = (target as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
            throw .failure("\(shown): the folder it would go in, \(parent), does not exist")
        }
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else { throw .failure("\(shown): exists and is not a folder") }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: target) } catch {
            throw .failure("\(shown): cannot list: \(error.localizedDescription)")
        }
        let others = names.filter { !isStitchOutput($0) }.sorted()
        guard others.isEmpty else {
            let listed = others.prefix(3).joined(separator: ", ") + (others.count > 3 ? ", ..." : "")
            throw .failure("\(shown): holds files that are not from a previous stitch (\(listed)); "
                + "give a new or empty folder, or one a previous stitch wrote")
        }
    }

    /// Writes `files` into a new folder beside `target`, then puts it in `target`'s place (moving a
    /// previous stitch aside first and deleting it last). On failure nothing new is left behind and a
    /// previous stitch is back in place.
    private static func writeFolder(_ target: String, shown: String, files: [(name: String, text: String)]) throws(DemoError) {
        let manager = FileManager.default
        let parent = (target as NSString).deletingLastPathComponent
        let base = parent + "/." + (target as NSString).lastPathComponent + ".hls-\(getpid())"
        let fresh = base + "-new", previous = base + "-old"
        do {
            try manager.createDirectory(atPath: fresh, withIntermediateDirectories: false)
        } catch {
            throw .failure("\(shown): cannot create a folder beside it: \(error.localizedDescription)")
        }
        do {
            for (name, text) in files {
                try Data(text.utf8).write(to: URL(fileURLWithPath: fresh + "/" + name))
            }
        } catch {
            try? manager.removeItem(atPath: fresh)
            throw .failure("\(shown): cannot write: \(error.localizedDescription)")
        }
        let replacing = manager.fileExists(atPath: target)
        if replacing, rename(target, previous) != 0 {
            let reason = String(cString: strerror(errno))
            try? manager.removeItem(atPath: fresh)
            throw .failure("\(shown): cannot move the previous stitch aside: \(reason)")
        }
        guard rename(fresh, target) == 0 else {
            let reason = String(cString: strerror(errno))
            if replacing { _ = rename(previous, target) }
            try? manager.removeItem(atPath: fresh)
            throw .failure("\(shown): cannot put the new folder in place: \(reason)")
        }
        if replacing { try? manager.removeItem(atPath: previous) }
    }

    /// `{"compositionDuration", "items": [{"url", "start", "forwardPlaybackEndTime", "composition",
    /// "kind", "id", "breakID", "adIndex", "podSize"}]}`, URLs relative to the folder when they can be.
    static func queuePlanJSON(_ plan: QueuePlan, folder: String) -> JSONValue {
        var root = JSONObject()
        root.appendTime("compositionDuration", plan.duration)
        root.append("items", .array(plan.items.map { item in
            var object = JSONObject()
            object.append("url", .string(relative(item.source.url, to: folder)))
            object.appendTime("start", item.startTime)
            object.appendTime("forwardPlaybackEndTime", item.forwardPlaybackEndTime)
            object.append("composition", .range(item.compositionRange))
            switch item.role {
            case .content(let clipID):
                object.append("kind", .string("content"))
                object.append("id", .string(clipID))
            case .ad(let ad):
                object.append("kind", .string("ad"))
                object.append("id", .string(ad.adID))
                object.append("breakID", .string(ad.breakID))
                object.append("adIndex", .integer(ad.podPosition))
                object.append("podSize", .integer(ad.podSize))
            }
            return .object(object)
        }))
        return .object(root)
    }

    /// A local source path written relative to `folder` (as the playlists' segment URIs are).
    private static func relative(_ url: String, to folder: String) -> String {
        guard !url.contains("://") else { return url }
        let absolute = URL(fileURLWithPath: url).standardizedFileURL.path
        return URIReference.relativize(absolute, from: folder + "/" + queuePlanName)
    }

    static func summary(_ stitched: HLSStitchedComposition, folder: String) -> String {
        let shownFolder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        func shown(_ url: String) -> String { shownFolder + "/" + (url.split(separator: "/").last.map(String.init) ?? url) }
        let composition = stitched.composition
        var lines: [String] = []
        let first = stitched.variants[0].result
        let format = first.playlist.segments.first.map { HLSSegmentFormat(segment: $0).description } ?? "no"
        let shape = "\(composition.duration) s, \(composition.segments.count) pieces, \(format) segments"
        if stitched.multivariantPlaylist != nil {
            lines.append("wrote \(shown(stitched.outputURL)): multivariant playlist of \(stitched.variants.count) variants, \(shape)")
            for variant in stitched.variants {
                var line = "  \(shown(variant.url)): \(variant.result.playlist.segments.count) segments"
                if let content = variant.contentVariant {
                    line += ", content \(content.uri)"
                    if let size = content.resolution { line += " (\(size.width)x\(size.height), \(content.bandwidth) bit/s)" }
                }
                if !variant.interstitialVariants.isEmpty {
                    line += "; ads nearest in bandwidth: " + variant.interstitialVariants
                        .map { "\($0.uri) (\($0.bandwidth) bit/s)" }.joined(separator: ", ")
                }
                lines.append(line)
            }
        } else {
            lines.append("wrote \(shown(stitched.outputURL)): \(shape), \(first.playlist.segments.count) segments in all")
        }
        lines.append("wrote \(shownFolder)/\(queuePlanName): \(stitched.queuePlan.items.count) queue items with exact cuts (not snapped)")
        lines.append("wrote \(shownFolder)/\(timelineName): the timeline that plays in the playlist (cuts snapped)")
        lines.append("breaks (cuts snap to the nearest segment boundary):")
        for placed in stitched.breaks {
            var line = "  break \(placed.id): asked at \(placed.requestedPosition) s, plays at \(placed.position) s"
            if placed.requestedPosition != placed.position { line += " (segment boundary)" }
            line += "; composition \(placed.compositionRange)"
            lines.append(line)
        }
        let moved = stitched.movedCuts
        if !moved.isEmpty {
            lines.append("cuts moved:")
            for (segment, requested) in moved {
                lines.append("  \(segment.id) (\(segment.source.url)): \(requested) -> \(segment.sourceRange)")
            }
        }
        lines.append("play it: ffplay \(shown(stitched.outputURL))")
        return lines.joined(separator: "\n")
    }
}
