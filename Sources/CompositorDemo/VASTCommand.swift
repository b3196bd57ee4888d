import Compositor
import Foundation

/// `vast SOURCE [--json] [--for mp4|hls]`: resolves a VAST document (a URL or a path) through its
/// wrappers and prints the ads that will play, in order. It fires nothing: no impression, no
/// tracking, no error URL is requested.
enum VASTCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let json = arguments.flag("--json")
        let output = try arguments.option("--for") ?? "mp4"
        let source = try arguments.positional("SOURCE")
        try arguments.finish()
        let selection: MediaFileSelection.Output
        switch output {
        case "mp4": selection = .progressiveMP4
        case "hls": selection = .hls
        default: throw .usage("--for: expected mp4 (an AVMutableComposition, render) or hls")
        }
        let location: MediaLocation
        do { location = try MediaLocation(parsing: source, relativeTo: FilePath(FileManager.default.currentDirectoryPath)) } catch {
            throw .usage("SOURCE: \(error)")
        }
        let resolution = resolve(location, for: selection)
        for report in resolution.errors { Output.err("warning: \(report.error)") }
        guard !resolution.ads.isEmpty else {
            let code = resolution.errors.last?.error.code ?? .noAdsAfterWrapper
            throw .failure("no ad resolves from \(location) (VAST error \(code))")
        }
        if json {
            var object = JSONObject()
            object.append("ads", .array(resolution.ads.map(adJSON)))
            Output.out(JSONValue.object(object).serialized)
        } else {
            Output.out(text(resolution.ads))
        }
    }

    /// Resolves `location` with the demo's transport; a path may lead to other paths, a URL never does.
    static func resolve(_ location: MediaLocation, for output: MediaFileSelection.Output) -> VASTResolution {
        var options = VASTResolver.Options()
        options.selection.output = output
        let resolver = VASTResolver(options: options)
        return waitForTask { await resolver.resolve(url: location.url) }
    }

    static func adJSON(_ ad: ResolvedAd) -> JSONValue {
        var object = JSONObject()
        object.append("id", ad.id.map(JSONValue.string) ?? .null)
        object.append("sequence", ad.sequence.map(JSONValue.integer) ?? .null)
        object.append("duration", JSONValue.seconds(ad.duration))
        object.append("skipOffset", ad.skipOffset.map { JSONValue.seconds($0.time(inAdOf: ad.duration)) } ?? .null)
        let file = ad.mediaFile
        var media = JSONObject()
        media.append("url", .string(file.url))
        media.append("type", .string(file.type))
        media.append("delivery", .string(file.delivery.rawValue))
        for (key, value) in [("bitrate", file.bitrate), ("width", file.width), ("height", file.height)] {
            media.append(key, value.map(JSONValue.integer) ?? .null)
        }
        object.append("mediaFile", .object(media))
        object.append("impressions", .array(ad.impressions.map(JSONValue.string)))
        object.append("tracking", .object(trackingJSON(ad)))
        object.append("errors", .array(ad.errors.map(JSONValue.string)))
        object.append("wrappers", .array(ad.wrappers.map(JSONValue.string)))
        return .object(object)
    }

    /// Event name to URLs, in the order events first appear; `progress` as offsets (seconds) and URLs.
    private static func trackingJSON(_ ad: ResolvedAd) -> JSONObject {
        var object = JSONObject()
        var progress: [JSONValue] = []
        var names: [String] = []
        var urls: [String: [String]] = [:]
        for tracking in ad.tracking {
            if case .progress(let offset) = tracking.event {
                var entry = JSONObject()
                entry.append("offset", JSONValue.seconds(offset.time(inAdOf: ad.duration)))
                entry.append("url", .string(tracking.url))
                progress.append(.object(entry))
                continue
            }
            if urls[tracking.event.name] == nil { names.append(tracking.event.name) }
            urls[tracking.event.name, default: []].append(tracking.url)
        }
        for name in names { object.append(name, .array((urls[name] ?? []).map(JSONValue.string))) }
        if !progress.isEmpty { object.append("progress", .array(progress)) }
        return object
    }

    private static func text(_ ads: [ResolvedAd]) -> String {
        var table = TextTable(header: ["#", "ad", "duration", "skippable", "media file", "wrappers"])
        for (index, ad) in ads.enumerated() {
            let file = ad.mediaFile
            let size = file.width.flatMap { w in file.height.map { "\(w)x\($0)" } }
            let details = [file.type, size, file.bitrate.map { "\($0) kbit/s" }].compactMap { $0 }.joined(separator: ", ")
            for cell in [String(index + 1), ad.id ?? "-", "\(ad.duration) s", ad.skipOffset.map { "after \($0.time(inAdOf: ad.duration)) s" } ?? "no",
                         "\(file.url) (\(details))", String(ad.wrappers.count)] { table.cell(escapedForDisplay(cell)) }
        }
        var bytes: [UInt8] = []
        table.write(to: &bytes) { _ in }
        return String(decoding: bytes.dropLast(), as: UTF8.self)
    }
}
