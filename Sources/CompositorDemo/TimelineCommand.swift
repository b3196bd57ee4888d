import Compositor

/// `timeline SCHEDULE.json [--json] [--cut sample|keyframe]`: the segments, breaks and durations
/// of a schedule; with `--cut`, of what `render` with that cut would write (keyframe cuts move to
/// keyframes: the sources are read, nothing is written).
enum TimelineCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let json = arguments.flag("--json")
        let cut = try RenderCommand.cutMode(try arguments.option("--cut"))
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        let loaded = try LoadedSchedule(path: path)
        var composition = loaded.composition
        if let cut {
            do { composition = try MP4Exporter.plan(composition, cut: cut).composition } catch {
                throw .failure("\(path): \(error)")
            }
        }
        if json {
            Output.out(TimelineReport.json(composition).serialized)
        } else {
            TimelineReport.printText(composition, title: path.description)
        }
    }
}

/// The timeline as the contract's JSON and as a table with an ASCII bar.
enum TimelineReport {
    static func json(_ composition: Composition) -> JSONValue {
        var root = JSONObject()
        root.appendTime("contentDuration", composition.contentDuration)
        root.appendTime("compositionDuration", composition.duration)
        root.append("segments", .array(composition.segments.map { segment in
            var object = JSONObject()
            object.append("kind", .string(segment.isAd ? "ad" : "content"))
            object.append("id", .string(segment.id))
            if let ad = segment.adPosition {
                object.append("breakID", .string(ad.breakID))
                object.append("adIndex", .integer(ad.podPosition))
                object.append("podSize", .integer(ad.podSize))
            }
            object.append("url", .string(hlsURL(segment.source)))
            if let variant = segment.source.variant { object.append("variant", .string(variant)) }
            object.append("source", .range(segment.sourceRange))
            object.append("composition", .range(segment.compositionRange))
            object.append("content", .range(segment.contentRange))
            return .object(object)
        }))
        root.append("breaks", .array(composition.breaks.map { placed in
            var object = JSONObject()
            object.append("id", .string(placed.id))
            object.appendTime("position", placed.position)
            object.append("composition", .range(placed.compositionRange))
            object.append("policy", .string(placed.policy.rawValue))
            object.append("ads", .array(placed.adIDs.map(JSONValue.string)))
            return .object(object)
        }))
        return .object(root)
    }

    /// The table and bar on standard output, written a megabyte at a time (a timeline of
    /// 100,000 breaks is 22 MB of text: it is never held twice).
    static func printText(_ composition: Composition, title: String) {
        text(composition, title: title) { Output.out(bytes: $0) }
    }

    /// The table and bar, handed to `emit` in pieces, in order.
    static func text(_ composition: Composition, title: String, emit: (UnsafeRawBufferPointer) -> Void) {
        var table = TextTable(header: ["#", "kind", "id", "break", "composition", "content", "source"])
        table.reserve(rows: composition.segments.count, bytesPerRow: 100)
        // A schedule names few sources, each shown on many rows: each is written once.
        var sourceNames: [MediaLocation: String] = [:]
        for (i, segment) in composition.segments.enumerated() {
            table.cell(String(i + 1))
            if let ad = segment.adPosition {
                table.append("ad ")
                table.append(String(ad.podPosition))
                table.append("/")
                table.cell(String(ad.podSize))
            } else {
                table.cell("content")
            }
            table.cell(escapedForDisplay(segment.id))
            table.cell(escapedForDisplay(segment.adPosition?.breakID ?? ""))
            table.append(segment.compositionRange)
            table.endCell()
            if segment.isAd {
                table.append("@")
                table.append(segment.contentRange.start)
            } else {
                table.append(segment.contentRange)
            }
            table.endCell()
            let source = sourceNames[segment.source] ?? {
                let name = segment.source.description
                sourceNames[segment.source] = name
                return name
            }()
            table.append(source)
            table.append(" ")
            table.append(segment.sourceRange)
            table.endCell()
        }
        var text = Array("\(title): content \(composition.contentDuration) s, composition \(composition.duration) s, ".utf8)
        text += (counted(composition.segments.count, "segment") + ", " + counted(composition.breaks.count, "break") + "\n\n").utf8
        table.write(to: &text, emit: emit)
        text += ("\n" + bar(composition, width: 72) + "\n").utf8
        text.withUnsafeBytes(emit)
    }

    /// `=` content, `#` ads; every segment gets at least one column. Display only, so `Double` is fine.
    static func bar(_ composition: Composition, width: Int) -> String {
        guard composition.duration > .zero else { return "" }
        var columns = [Character](repeating: " ", count: width)
        func column(_ t: MediaTime) -> Int {
            min(width, Int((t.seconds / composition.duration.seconds * Double(width)).rounded(.down)))
        }
        for segment in composition.segments {
            let start = min(width - 1, column(segment.compositionRange.start))
            let end = max(start + 1, column(segment.compositionRange.end))
            for c in start..<end where columns[c] != "#" { columns[c] = segment.isAd ? "#" : "=" }
        }
        return "|" + String(columns) + "|  (= content, # ad)"
    }
}

extension TextTable {
    /// `[start, end)`, as `MediaTimeRange` writes it.
    mutating func append(_ range: MediaTimeRange) {
        append("[")
        append(range.start)
        append(", ")
        append(range.end)
        append(")")
    }

    /// The time as its `description` writes it.
    mutating func append(_ time: MediaTime) {
        if !time.withExactDecimal({ append(utf8: $0) }) { append(time.description) }
    }
}

/// `"1 break"`, `"4 breaks"`.
func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

extension JSONObject {
    /// A time as seconds, with the exact rational beside it (`keyExact`) when the number is rounded.
    mutating func appendTime(_ key: String, _ time: MediaTime) {
        let number = JSONValue.seconds(time)
        append(key, number)
        if case .number(let text) = number, (try? MediaTime(parsing: text)) != time {
            let r = time.reduced
            append(key + "Exact", .string("\(r.value)/\(r.timescale)"))
        }
    }
}

extension JSONValue {
    static func range(_ range: MediaTimeRange) -> JSONValue {
        var object = JSONObject()
        object.appendTime("start", range.start)
        object.appendTime("end", range.end)
        return .object(object)
    }
}
