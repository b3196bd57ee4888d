import Compositor

/// `timeline SCHEDULE.json [--json]`: the segments, breaks and durations of a schedule.
enum TimelineCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let json = arguments.flag("--json")
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        let loaded = try LoadedSchedule(path: path)
        if json {
            Output.out(TimelineReport.json(loaded.composition).serialized)
        } else {
            Output.out(TimelineReport.text(loaded.composition, title: path.description))
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

    static func text(_ composition: Composition, title: String) -> String {
        var lines: [String] = []
        lines.append("\(title): content \(composition.contentDuration) s, composition \(composition.duration) s, "
            + counted(composition.segments.count, "segment") + ", " + counted(composition.breaks.count, "break"))
        lines.append("")
        let header = ["#", "kind", "id", "break", "composition", "content", "source"]
        var rows: [[String]] = []
        for (i, segment) in composition.segments.enumerated() {
            let ad = segment.adPosition
            rows.append([
                String(i + 1),
                ad.map { "ad \($0.podPosition)/\($0.podSize)" } ?? "content",
                escapedForDisplay(segment.id),
                escapedForDisplay(ad?.breakID ?? ""),
                segment.compositionRange.description,
                segment.isAd ? "@\(segment.contentRange.start)" : segment.contentRange.description,
                "\(segment.source) \(segment.sourceRange)",
            ])
        }
        lines += table(header: header, rows: rows)
        lines.append("")
        lines.append(bar(composition, width: 72))
        return lines.joined(separator: "\n")
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

    static func table(header: [String], rows: [[String]]) -> [String] {
        // Each cell's width counted once (a count walks the characters), for 100,000-row timelines.
        let cellWidths = ([header] + rows).map { $0.map(\.count) }
        var widths = Array(repeating: 0, count: header.count)
        for row in cellWidths { for (column, width) in row.enumerated() { widths[column] = max(widths[column], width) } }
        return zip([header] + rows, cellWidths).map { cells, cellWidths in
            var line = ""
            for (column, cell) in cells.enumerated() {
                if column > 0 { line += "  " }
                line += cell
                line += String(repeating: " ", count: widths[column] - cellWidths[column])
            }
            return line.trimmingTrailingSpaces()
        }
    }
}

/// `"1 break"`, `"4 breaks"`.
func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

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
