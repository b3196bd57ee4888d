import Compositor
import CompositorIO

/// `hls SCHEDULE.json --output DIR [--interstitials [--restrict-jumps] [--asset-base-url URL] | --cue-tags --scte35] [--snap RULE] [--snap-break BREAK=RULE]... [--segments ts|fmp4] [--package-every-piece [--unmarked-encoding-changes]]`:
/// the schedule's HLS sources stitched into `DIR/stitched.m3u8` (a multivariant playlist with
/// `stitched-N.m3u8` beside it when the content has variants), the exact-cut queue plan in
/// `DIR/queue-plan.json`, and the timeline that plays in the playlist (cuts snapped; `timeline
/// --json`'s shape) in `DIR/timeline.json`.
///
/// `--interstitials` writes the content alone with one HLS interstitial date range per break, the
/// ads as their own playlists beside it (`interstitial-B-A.m3u8`, pods listed in
/// `interstitial-B.json`); `--restrict-jumps` adds `X-RESTRICT="JUMP"` to sticky breaks;
/// `--asset-base-url` (where DIR is served) writes the asset URIs under it, for hls.js 1.6, which
/// resolves relative ones against the page (`HLSExportOptions.assetBaseURL`).
/// Otherwise `--cue-tags` writes `EXT-X-CUE-OUT`/`-CONT`/`-IN` around each break and `--scte35`
/// SCTE 35 `SCTE35-OUT`/`-IN` date ranges.
///
/// `--snap` is how every cut moves to a segment boundary (`nearest`, the default, `next`,
/// `previous`, `covering` or `within`); `--snap-break` gives one break its own rule, for its ads
/// and the content cuts on either side of it, and may be repeated.
///
/// MP4 sources are packaged into segments written beside the playlist (samples copied, not
/// re-encoded): MPEG-TS or fragmented MP4 as the HLS sources have, or as `--segments` says (MPEG-TS
/// when every source is an MP4). `--package-every-piece` packages the HLS sources' pieces too,
/// into one stream on the composition's clock (`HLSExporter.packagesEveryPiece`):
/// what players follow without a jump at the switches. `--unmarked-encoding-changes` leaves
/// MPEG-TS switches where only the encoding parameters change without `EXT-X-DISCONTINUITY`
/// (`HLSExporter.marksEncodingChanges`): for hls.js, GStreamer and VLC, not for Chromium's own player.
///
/// The folder appears whole or not at all: everything is written into a new folder beside it, which
/// then takes its name. An existing `DIR` is replaced only when it holds nothing but a previous
/// stitch (those file names); anything else in it is refused, untouched.
enum HLSCommand {
    static let playlistName = "stitched.m3u8"
    static let queuePlanName = "queue-plan.json"
    static let timelineName = "timeline.json"

    /// The `--snap` names, in the order the usage lists them.
    static let snappingRules: [(name: String, rule: HLSCutSnapping)] = [
        ("nearest", .nearest), ("next", .next), ("previous", .previous), ("covering", .covering), ("within", .within),
    ]

    /// How the breaks are carried.
    enum Layout: Equatable {
        /// Ads' segments stitched into the playlists.
        case spliced
        /// Content alone, each break an HLS interstitial played as its own item.
        case interstitials(restrictingJumps: Bool)
    }

    /// `hls`'s command line, parsed (`parse`), then checked as a whole (`validate`) before anything
    /// is read: the shape of swift-argument-parser's options and `validate()`.
    struct Options {
        var schedule = FilePath("")
        var output = FilePath("")
        var interstitials = false
        var restrictingJumps = false
        var cueMarkers: Set<HLSCueMarker> = []
        var snapping = HLSCutSnapping.nearest
        var breakSnapping: [String: HLSCutSnapping] = [:]
        var segmentContainer: HLSSegmentContainer?
        var packagesEveryPiece = false
        var unmarkedEncodingChanges = false
        var assetBaseURL: String?

        /// Each option read on its own; `validate()` checks them together.
        static func parse(_ arguments: inout Arguments) throws(DemoError) -> Options {
            var options = Options()
            guard let output = try arguments.pathOption("--output") else { throw .usage("hls needs --output DIR") }
            options.output = output
            options.interstitials = arguments.flag("--interstitials")
            options.restrictingJumps = arguments.flag("--restrict-jumps")
            options.assetBaseURL = try arguments.option("--asset-base-url")
            if arguments.flag("--cue-tags") { options.cueMarkers.insert(.cueTags) }
            if arguments.flag("--scte35") { options.cueMarkers.insert(.scte35) }
            if let name = try arguments.option("--snap") { options.snapping = try rule(named: name, option: "--snap") }
            while let value = try arguments.option("--snap-break") {
                guard let equals = value.lastIndex(of: "="), equals != value.startIndex else {
                    throw .usage("--snap-break expects BREAK=RULE, got \(quoted(value))")
                }
                let id = String(value[..<equals])
                guard options.breakSnapping[id] == nil else { throw .usage("--snap-break gives break \(quoted(id)) two rules") }
                options.breakSnapping[id] = try rule(named: String(value[value.index(after: equals)...]), option: "--snap-break")
            }
            if let name = try arguments.option("--segments") {
                guard let named = HLSSegmentContainer(rawValue: name) else {
                    throw .usage("--segments: expected \(HLSSegmentContainer.allCases.map(\.rawValue).joined(separator: " or ")), got \(quoted(name))")
                }
                options.segmentContainer = named
            }
            options.packagesEveryPiece = arguments.flag("--package-every-piece")
            options.unmarkedEncodingChanges = arguments.flag("--unmarked-encoding-changes")
            options.schedule = try arguments.positionalPath("SCHEDULE.json")
            try arguments.finish()
            return options
        }

        /// The rules between the command's options; those of the export's own options are
        /// `HLSExportOptions`'s, checked as `exportOptions` makes them.
        func validate() throws(DemoError) {
            guard interstitials || !restrictingJumps else { throw .usage("--restrict-jumps applies to --interstitials only") }
            guard interstitials || assetBaseURL == nil else { throw .usage("--asset-base-url applies to --interstitials only") }
            guard !interstitials || cueMarkers.isEmpty else {
                throw .usage("--cue-tags and --scte35 mark the ads in the playlist; with --interstitials there are none")
            }
            guard !(packagesEveryPiece && interstitials) else {
                throw .usage("--package-every-piece makes one stream of every piece; with --interstitials each ad keeps its own")
            }
            _ = try exportOptions()
        }

        var layout: Layout { interstitials ? .interstitials(restrictingJumps: restrictingJumps) : .spliced }

        /// The export's options, its refusals told in the command's terms.
        func exportOptions() throws(DemoError) -> HLSExportOptions {
            do {
                return try HLSExportOptions(
                    snapping: snapping, breakSnapping: breakSnapping, cueMarkers: cueMarkers, segmentContainer: segmentContainer,
                    packagesEveryPiece: packagesEveryPiece, marksEncodingChanges: !unmarkedEncodingChanges, assetBaseURL: assetBaseURL)
            } catch where error.cause == .unmarkedEncodingChangesNeedEveryPiece {
                throw .usage("--unmarked-encoding-changes needs --package-every-piece: pieces listed as they are jump in timestamps at every switch")
            } catch where error.cause == .invalidAssetBaseURL {
                throw .usage("--asset-base-url: \(error.reason)")
            } catch {
                throw .usage(error.description)
            }
        }
    }

    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let options = try Options.parse(&arguments)
        try options.validate()
        let loaded = try LoadedSchedule(path: options.schedule, warningOfUnreadableSources: false, placingOnly: false, adsFor: .hls)
        for id in options.breakSnapping.keys.sorted() where !loaded.schedule.breaks.contains(where: { $0.id == id }) {
            throw .usage("--snap-break: \(options.schedule) has no break \(quoted(id))")
        }
        let stitched = try stitch(loaded, into: options.output, layout: options.layout, options: try options.exportOptions())
        Output.out(summary(stitched, folder: options.output.description, snapping: options.snapping, breakSnapping: options.breakSnapping))
    }

    private static func rule(named name: String, option: String) throws(DemoError) -> HLSCutSnapping {
        guard let rule = snappingRules.first(where: { $0.name == name })?.rule else {
            throw .usage("\(option): expected \(snappingRules.map(\.name).joined(separator: ", ")), got \(quoted(name))")
        }
        return rule
    }

    /// Stitches the schedule and writes the playlists and the queue plan into `folder`, atomically.
    static func stitch(
        _ loaded: LoadedSchedule, into folder: FilePath, layout: Layout = .spliced, options: HLSExportOptions = .default
    ) throws(DemoError) -> HLSExport {
        let target = folder.resolved(against: currentFolder())
        let stitched: HLSExport
        do {
            // Remote sources are read through the catalog (the main thread may wait for them).
            let stitcher = HLSExporter(outputURL: hlsURL(target.appending(playlistName)), options: options)
                .readingSources(from: loaded.catalog)
            switch layout {
            case .spliced:
                stitched = try stitcher.stitch(loaded.composition)
            case .interstitials(let restrictingJumps):
                stitched = try stitcher.stitchInterstitials(
                    loaded.schedule, naturalDurations: loaded.naturalDurations, restrictingJumps: restrictingJumps)
            }
        } catch {
            throw .failure("\(loaded.path): \(error)")
        }
        let folderURL = hlsURL(target)
        let extra = [
            HLSExport.File(url: queuePlanName, text: queuePlanJSON(stitched.queuePlan, folder: folderURL).serialized + "\n"),
            HLSExport.File(url: timelineName, text: TimelineReport.json(stitched.composition).serialized + "\n"),
        ]
        // A progress bar on stderr when it is a terminal, as render shows (packaging writes every segment).
        let bar = ProgressBar()
        defer { bar.finish() }
        do { try stitched.write(into: target, extraFiles: extra) { bar.update($0.fraction) } } catch { throw .failure("\(error)") }
        return stitched
    }

    /// `{"compositionDuration", "items": [{"url", "variant" (when named), "start",
    /// "forwardPlaybackEndTime", "composition", "kind", "id", "breakID", "adIndex", "podSize"}]}`,
    /// URLs relative to the folder when they can be.
    static func queuePlanJSON(_ plan: QueuePlan, folder: String) -> JSONValue {
        var root = JSONObject()
        root.appendTime("compositionDuration", plan.duration)
        root.append("items", .array(plan.items.map { item in
            var object = JSONObject()
            object.append("url", .string(relative(item.source, to: folder)))
            if let variant = item.source.variant { object.append("variant", .string(variant)) }
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

    /// A local source written relative to `folder` (as the playlists' segment URIs are).
    private static func relative(_ source: MediaLocation, to folder: String) -> String {
        guard let path = source.filePath else { return hlsURL(source) }
        let absolute = path.resolved(against: currentFolder())
        return URIReference.relativize(hlsURL(absolute), from: folder + "/" + queuePlanName)
    }

    /// Where a rule puts cuts, for the summary.
    static func phrase(_ rule: HLSCutSnapping) -> String {
        switch rule {
        case .nearest: return "the nearest segment boundary"
        case .next: return "the next segment boundary"
        case .previous: return "the previous segment boundary"
        case .covering: return "segment boundaries covering what was asked"
        case .within: return "segment boundaries within what was asked"
        }
    }

    static func summary(
        _ stitched: HLSExport, folder: String,
        snapping: HLSCutSnapping = .nearest, breakSnapping: [String: HLSCutSnapping] = [:]
    ) -> String {
        let shownFolder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        func shown(_ url: String) -> String { shownFolder + "/" + (url.split(separator: "/").last.map(String.init) ?? url) }
        let composition = stitched.composition
        var lines: [String] = []
        let first = stitched.variants[0].result
        let format = first.playlist.segments.first.map { HLSSegmentFormat(segment: $0).description } ?? "no"
        let interstitials = first.playlist.segments.flatMap(\.dateRanges)
            .filter { $0.className == HLSExporter.interstitialClass }
        let shape = interstitials.isEmpty
            ? "\(composition.duration) s, \(composition.segments.count) pieces, \(format) segments"
            : "the content alone, \(first.duration) s, \(format) segments, with \(interstitials.count) interstitials"
        if stitched.multivariantPlaylist != nil {
            lines += variantLines(stitched, shape: shape, shown: shown)
        } else {
            lines.append("wrote \(shown(stitched.outputURL)): \(shape), \(first.playlist.segments.count) segments in all")
        }
        if !interstitials.isEmpty {
            lines.append("  interstitials (\(stitched.assets.count) ad playlists and asset lists beside the playlist):")
            for dateRange in interstitials {
                var attributes = dateRange.attributes
                for name in ["ID", "CLASS"] { attributes[name] = nil }
                lines.append("  \(escapedForDisplay(dateRange.id)): \(attributes)")
            }
        }
        for source in stitched.packagedSources where !source.usedSegments.isEmpty {
            let files = source.fileNames
            lines.append("packaged \(source.location) into \(files.count) \(source.packaging.container.rawValue) files (\(files[0]) …), samples copied")
        }
        lines.append("wrote \(shownFolder)/\(queuePlanName): \(stitched.queuePlan.items.count) queue items with exact cuts (not snapped)")
        lines.append("wrote \(shownFolder)/\(timelineName): the timeline that plays in the playlist (cuts snapped)")
        lines.append("breaks (cuts snap to \(phrase(snapping))):")
        for placed in stitched.breaks {
            var line = "  break \(escapedForDisplay(placed.id)): asked at \(placed.requestedPosition) s, plays at \(placed.position) s"
            if let own = breakSnapping[placed.id], own != snapping {
                line += " (\(phrase(own)))"
            } else if placed.requestedPosition != placed.position {
                line += " (segment boundary)"
            }
            line += "; composition \(placed.compositionRange)"
            lines.append(line)
        }
        let moved = stitched.reconciled.movedCuts
        if !moved.isEmpty {
            lines.append("cuts moved:")
            for (segment, requested) in moved {
                lines.append("  \(escapedForDisplay(segment.id)) (\(segment.source)): \(requested) -> \(segment.sourceRange)")
            }
        }
        lines.append("play it: ffplay \(shown(stitched.outputURL))")
        if let hint = hlsJSHint(stitched) { lines.append(hint) }
        return lines.joined(separator: "\n")
    }

    /// What to add for hls.js, the web's most used HLS player, where the playlist is not one
    /// stream it shows on time: it restarts its timeline at each discontinuity, late by the
    /// piece's reorder delay, and drifts from join to join (Players.md). `nil` for interstitials,
    /// whose ads are players of their own, and for one stream without a discontinuity.
    static func hlsJSHint(_ stitched: HLSExport) -> String? {
        guard stitched.interstitialEvents.isEmpty else { return nil }
        let marked = stitched.variants.contains { $0.result.playlist.segments.contains(where: \.isDiscontinuity) }
        guard stitched.placedSegments.isEmpty || marked else { return nil }
        let flags = stitched.placedSegments.isEmpty ? "--package-every-piece (and --unmarked-encoding-changes with MPEG-TS)" : "--unmarked-encoding-changes"
        return "in hls.js: add \(flags), which makes one stream without discontinuities: it shows every picture on time only then (Players.md)"
    }

    /// The summary's lines of a multivariant output: the playlist, each variant and each rendition.
    private static func variantLines(_ stitched: HLSExport, shape: String, shown: (String) -> String) -> [String] {
        var lines = ["wrote \(shown(stitched.outputURL)): multivariant playlist of \(stitched.variants.count) variants, \(shape)"]
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
        for (playlist, rendition) in zip(stitched.renditions, stitched.multivariantPlaylist?.renditions ?? []) {
            let language = rendition.language.map { " (\($0))" } ?? ""
            lines.append("  \(shown(playlist.url)): \(playlist.result.playlist.segments.count) segments, \(rendition.type.lowercased()) \(quoted(rendition.name))\(language)")
        }
        return lines
    }
}
