import CompositorCore

/// Why a WebVTT file could not be read, and on which line.
///
/// ```
/// line 4: the cue timing '00:00:0.500 --> 00:00:01.500' is not 'start --> end' in hh:mm:ss.ttt
/// ```
package struct WebVTTParseError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Problem: Equatable, Sendable {
        /// The file does not begin with the `WEBVTT` signature.
        case notWebVTT
        /// A cue timing line that is not `start --> end [settings]` with times as `[hh:]mm:ss.ttt`.
        case malformedTiming
        /// A cue that ends before it starts.
        case endsBeforeItStarts
        /// `X-TIMESTAMP-MAP` without `MPEGTS:` and `LOCAL:` values RFC 8216bis allows.
        case malformedTimestampMap
        /// A block that is neither a cue (no `-->` line) nor `NOTE`, `STYLE` or `REGION`.
        case textWithoutTiming
    }

    /// The 1-based line; `nil` for the whole file.
    package let line: Int?
    /// That line's text, cut to 200 characters.
    package let lineText: String?
    package let problem: Problem

    package init(line: Int?, lineText: String?, problem: Problem) {
        self.line = line
        self.lineText = lineText.map(HLSParseError.quotable)
        self.problem = problem
    }

    package var description: String {
        let place = line.map { "line \($0): " } ?? ""
        let text = lineText.map { "'\($0)'" } ?? ""
        switch problem {
        case .notWebVTT: return place + "not a WebVTT file (it does not begin with 'WEBVTT')"
        case .malformedTiming: return place + "the cue timing \(text) is not 'start --> end' with times as [hh:]mm:ss.ttt"
        case .endsBeforeItStarts: return place + "the cue \(text) ends before it starts"
        case .malformedTimestampMap: return place + "\(text) is not X-TIMESTAMP-MAP=MPEGTS:<90 kHz ticks>,LOCAL:<hh:mm:ss.ttt>"
        case .textWithoutTiming: return place + "text \(text) outside a cue (no 'start --> end' line before it)"
        }
    }
}

extension WebVTTDocument {
    /// Reads a WebVTT file (UTF-8, a byte order mark allowed, lines ending in LF, CRLF or CR).
    /// `NOTE` blocks are left out; a block that is not a cue, `STYLE` or `REGION` is refused
    /// rather than lost.
    ///
    /// - Parameter bytes: The file.
    /// - Returns: Its timestamp map, blocks and cues, in file order.
    /// - Throws: `WebVTTParseError`, naming the line.
    package init(parsing bytes: [UInt8]) throws(WebVTTParseError) {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // Swift reads "\r\n" as one Character, so each line ending splits once.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map(String.init)
        guard let signature = lines.first, signature.hasPrefix("WEBVTT"),
              signature.count == 6 || signature.dropFirst(6).first == " " || signature.dropFirst(6).first == "\t" else {
            throw WebVTTParseError(line: 1, lineText: lines.first, problem: .notWebVTT)
        }
        self.init()
        var index = 1
        // The header: lines up to the first blank one.
        while index < lines.count, !lines[index].isEmpty {
            let line = lines[index]
            if line.hasPrefix("X-TIMESTAMP-MAP=") {
                guard let map = Self.timestampMap(line.dropFirst("X-TIMESTAMP-MAP=".count)) else {
                    throw WebVTTParseError(line: index + 1, lineText: line, problem: .malformedTimestampMap)
                }
                timestampMap = map
            }
            index += 1
        }
        // Blocks, separated by blank lines; a cue's text also ends at a line holding "-->", the
        // next cue's timing, as W3C's parser reads a blank line left out.
        while index < lines.count {
            guard !lines[index].isEmpty else { index += 1; continue }
            let first = index
            var timed = false
            while index < lines.count, !lines[index].isEmpty {
                if lines[index].contains("-->") {
                    if timed { break }
                    timed = true
                }
                index += 1
            }
            let block = Array(lines[first..<index])
            let keyword = block[0].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
            guard let timing = block.firstIndex(where: { $0.contains("-->") }), timing <= 1 else {
                if keyword == "NOTE" { continue }
                if (keyword == "STYLE" || keyword == "REGION") && cues.isEmpty {
                    headerBlocks.append(block.joined(separator: "\n"))
                    continue
                }
                throw WebVTTParseError(line: first + 1, lineText: block[0], problem: .textWithoutTiming)
            }
            let line = first + timing + 1
            guard let (start, end, settings) = Self.timing(block[timing]) else {
                throw WebVTTParseError(line: line, lineText: block[timing], problem: .malformedTiming)
            }
            guard end >= start else { throw WebVTTParseError(line: line, lineText: block[timing], problem: .endsBeforeItStarts) }
            cues.append(Cue(identifier: timing == 1 ? block[0] : nil, start: start, end: end, settings: settings,
                            text: block[(timing + 1)...].joined(separator: "\n")))
        }
    }

    /// `start --> end settings`.
    private static func timing(_ line: String) -> (MediaTime, MediaTime, String)? {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard parts.count >= 3, parts[1] == "-->", let start = timestamp(parts[0]), let end = timestamp(parts[2]) else { return nil }
        return (start, end, parts.dropFirst(3).joined(separator: " "))
    }

    /// `MPEGTS:n,LOCAL:t` in either order.
    private static func timestampMap(_ value: Substring) -> TimestampMap? {
        var mpegts: Int64?, local: MediaTime?
        for field in value.split(separator: ",") {
            if field.hasPrefix("MPEGTS:") {
                let digits = field.dropFirst("MPEGTS:".count)
                guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let ticks = Int64(digits) else { return nil }
                mpegts = ticks
            } else if field.hasPrefix("LOCAL:") {
                local = timestamp(String(field.dropFirst("LOCAL:".count)))
            } else {
                return nil
            }
        }
        guard let mpegts, let local else { return nil }
        return TimestampMap(mpegts: mpegts, local: local)
    }

    /// `[hh:]mm:ss.ttt` (hours two digits or more; minutes and seconds below 60), in milliseconds.
    static func timestamp(_ text: String) -> MediaTime? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        let secondsField = fields[fields.count - 1].split(separator: ".", omittingEmptySubsequences: false)
        guard secondsField.count == 2, secondsField[1].count == 3 else { return nil }
        func number(_ digits: Substring, count: Int?) -> Int64? {
            guard !digits.isEmpty, digits.count <= 10, count.map({ digits.count == $0 }) ?? (digits.count >= 2),
                  digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(digits)
        }
        guard let millis = number(secondsField[1], count: 3), let seconds = number(secondsField[0], count: 2),
              let minutes = number(fields[fields.count - 2], count: 2), seconds < 60, minutes < 60 else { return nil }
        var hours: Int64 = 0
        if fields.count == 3 {
            guard let value = number(fields[0], count: nil) else { return nil }
            hours = value
        }
        return MediaTime(value: ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis, timescale: 1000)
    }
}
