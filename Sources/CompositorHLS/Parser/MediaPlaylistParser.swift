import CompositorCore

/// The media-playlist half of `HLSPlaylistParser`.
///
/// Where unknown lines go, so that writing and parsing again gives the same model: lines before any
/// segment-level tag that are followed by a playlist-level tag belong to the header; all others
/// belong to the next segment; those after the last segment are trailing lines.
struct MediaPlaylistParser {
    var reader: HLSLineReader
    let resolver: HLSURIResolver

    // Playlist-level state
    private var version: Int64?
    private var targetDuration: Int64?
    private var targetDurationLine: HLSLine?
    private var mediaSequence: UInt64?
    private var discontinuitySequence: UInt64?
    private var playlistType: HLSPlaylistType?
    private var hasEndList = false
    private var isIFramesOnly = false
    private var hasIndependentSegments = false
    private var start: HLSStart?
    private var segments: [HLSMediaSegment] = []
    private var headerLines: [String] = []

    // State carried from segment to segment
    private var currentMap: HLSMap?
    private var currentKeys: [HLSKey] = []
    /// The longest rounded `EXTINF` so far and where it is, for a target duration that comes later.
    private var longestRounded: (seconds: Int64, duration: MediaTime, line: Int, text: String)?

    // The segment being gathered: its tags go straight into `pending`, which `finishSegment` swaps
    // out whole (copying it would retain and release every string and array it holds).
    private var pending = MediaPlaylistParser.blankSegment
    /// The `EXTINF` of `pending`, once read.
    private var extinfLine: HLSLine?
    private var pendingByteRange: (length: UInt64, offset: UInt64?)?
    private var byteRangeLine: HLSLine?
    private var pendingHasSegmentTags = false
    /// Byte offset of the first line gathered for the next segment.
    private var pendingStart: Int?
    /// Set when a problem belongs to an earlier line than the one being read.
    private var relocatedError: HLSParseError?

    init(reader: HLSLineReader, resolver: HLSURIResolver) {
        self.reader = reader
        self.resolver = resolver
    }

    mutating func parse() throws(HLSParseError) -> HLSMediaPlaylist {
        while let line = try reader.next() {
            do throws(HLSParseError.Problem) {
                try handle(line)
            } catch {
                throw relocatedError ?? reader.error(error, line)
            }
        }
        if let extinfLine { throw reader.error(.extinfWithoutURI, extinfLine) }
        var trailingLines: [String] = []
        if let pendingStart {
            // Lines that gathered for a segment that never came: keep them verbatim.
            var tail = HLSLineReader(view: reader.view.slice(pendingStart, reader.view.end), maximumLineBytes: reader.maximumLineBytes)
            while let line = try tail.next() {
                if HLSTag(line.line).isMediaPlaylistHeader { continue }
                guard let text = line.line.validatedString(line.line.start, line.line.end) else {
                    throw reader.error(.invalidUTF8, line)
                }
                if segments.isEmpty { headerLines.append(text) } else { trailingLines.append(text) }
            }
        }
        guard let targetDuration else {
            throw HLSParseError(line: 1, lineText: "#EXTM3U", problem: .missingTargetDuration)
        }
        return HLSMediaPlaylist(
            url: resolver.baseText, version: version, targetDuration: targetDuration, mediaSequence: mediaSequence,
            discontinuitySequence: discontinuitySequence, playlistType: playlistType, hasEndList: hasEndList,
            isIFramesOnly: isIFramesOnly, hasIndependentSegments: hasIndependentSegments, start: start,
            segments: segments, headerLines: headerLines, trailingLines: trailingLines)
    }

    private mutating func handle(_ line: HLSLine) throws(HLSParseError.Problem) {
        let (tag, value) = HLSTag.classify(line.line)
        switch tag {
        case .extinf:
            beginSegmentTag(line)
            if let extinfLine { throw relocate(.extinfWithoutURI, extinfLine) }
            try readEXTINF(value, line)
        case .uri:
            try finishSegment(line)
        case .byteRange:
            beginSegmentTag(line)
            guard let value, let range = HLSByteRange.parse(value) else {
                throw .invalidTagValue(tag: "EXT-X-BYTERANGE", reason: "expected <length>[@<offset>]")
            }
            pendingByteRange = range
            byteRangeLine = line
        case .programDateTime:
            beginSegmentTag(line)
            guard let value, let text = value.validatedString(value.start, value.end) else {
                throw .invalidTagValue(tag: "EXT-X-PROGRAM-DATE-TIME", reason: "missing date-time")
            }
            do { pending.programDateTime = try HLSDateTime(parsing: text) } catch {
                throw .invalidTagValue(tag: "EXT-X-PROGRAM-DATE-TIME", reason: error.reason)
            }
        case .discontinuity:
            beginSegmentTag(line)
            try HLSTagValue.noValue(value, tag: "EXT-X-DISCONTINUITY")
            pending.isDiscontinuity = true
        case .key:
            beginSegmentTag(line)
            let list = try HLSTagValue.attributes(value, tag: HLSKey.tag)
            try HLSKey.validate(list)
            let key = HLSKey(attributes: list, resolvedURI: try list.quotedString("URI").map { (uri) throws(HLSParseError.Problem) in
                try resolver.resolveKey(uri, keyFormat: list.quotedString("KEYFORMAT"))
            })
            if key.method == "NONE" {
                currentKeys = []
            } else if let index = currentKeys.firstIndex(where: { $0.keyFormat == key.keyFormat }) {
                currentKeys[index] = key
            } else {
                currentKeys.append(key)
            }
        case .map:
            beginSegmentTag(line)
            let list = try HLSTagValue.attributes(value, tag: HLSMap.tag)
            try HLSMap.validate(list)
            currentMap = HLSMap(attributes: list, resolvedURI: try resolver.resolve(list.quotedString("URI") ?? ""))
        case .dateRange:
            beginSegmentTag(line)
            let list = try HLSTagValue.attributes(value, tag: HLSDateRange.tag)
            try HLSDateRange.validate(list)
            pending.dateRanges.append(HLSDateRange(attributes: list))
        case .gap:
            beginSegmentTag(line)
            try HLSTagValue.noValue(value, tag: "EXT-X-GAP")
            pending.isGap = true
        case .cueOut:
            beginSegmentTag(line)
            pending.cueOut = HLSCueTag(value: try cueValue(value))
        case .cueOutCont:
            beginSegmentTag(line)
            pending.cueOutContinuation = HLSCueTag(value: try cueValue(value))
        case .cueIn:
            beginSegmentTag(line)
            pending.cueIn = HLSCueTag(value: try cueValue(value))
        case .unknown, .otherMediaTag:
            if pendingStart == nil { pendingStart = line.line.start }
            guard let text = line.line.validatedString(line.line.start, line.line.end) else { throw .invalidUTF8 }
            pending.unknownLines.append(text)
        case .targetDuration:
            playlistTag()
            guard targetDuration == nil else { throw .duplicateTag(tag: "EXT-X-TARGETDURATION") }
            guard let n = HLSTagValue.integer(value), n <= UInt64(Int64.max) else {
                throw .invalidTagValue(tag: "EXT-X-TARGETDURATION", reason: "expected a decimal integer")
            }
            targetDuration = Int64(n)
            targetDurationLine = line
            if let longest = longestRounded, longest.seconds > Int64(n) {
                let problem = HLSParseError.Problem.segmentExceedsTargetDuration(duration: longest.duration, targetDuration: Int64(n))
                relocatedError = HLSParseError(line: longest.line, lineText: longest.text, problem: problem)
                throw problem
            }
        case .mediaSequence:
            playlistTag()
            guard mediaSequence == nil else { throw .duplicateTag(tag: "EXT-X-MEDIA-SEQUENCE") }
            guard let n = HLSTagValue.integer(value) else {
                throw .invalidTagValue(tag: "EXT-X-MEDIA-SEQUENCE", reason: "expected a decimal integer")
            }
            mediaSequence = n
        case .discontinuitySequence:
            playlistTag()
            guard discontinuitySequence == nil else { throw .duplicateTag(tag: "EXT-X-DISCONTINUITY-SEQUENCE") }
            guard let n = HLSTagValue.integer(value) else {
                throw .invalidTagValue(tag: "EXT-X-DISCONTINUITY-SEQUENCE", reason: "expected a decimal integer")
            }
            discontinuitySequence = n
        case .playlistType:
            playlistTag()
            guard playlistType == nil else { throw .duplicateTag(tag: "EXT-X-PLAYLIST-TYPE") }
            guard let value, let type = HLSPlaylistType(rawValue: value.string) else {
                throw .invalidTagValue(tag: "EXT-X-PLAYLIST-TYPE", reason: "expected EVENT or VOD")
            }
            playlistType = type
        case .endList:
            playlistTag()
            try HLSTagValue.noValue(value, tag: "EXT-X-ENDLIST")
            hasEndList = true
        case .iFramesOnly:
            playlistTag()
            try HLSTagValue.noValue(value, tag: "EXT-X-I-FRAMES-ONLY")
            isIFramesOnly = true
        case .independentSegments:
            playlistTag()
            // RFC 8216 4.3.5: it, like EXT-X-START, must not appear more than once.
            guard !hasIndependentSegments else { throw .duplicateTag(tag: "EXT-X-INDEPENDENT-SEGMENTS") }
            try HLSTagValue.noValue(value, tag: "EXT-X-INDEPENDENT-SEGMENTS")
            hasIndependentSegments = true
        case .version:
            playlistTag()
            guard version == nil else { throw .duplicateTag(tag: "EXT-X-VERSION") }
            version = try HLSTagValue.version(value, tag: "EXT-X-VERSION")
        case .start:
            playlistTag()
            guard start == nil else { throw .duplicateTag(tag: HLSStart.tag) }
            let list = try HLSTagValue.attributes(value, tag: HLSStart.tag)
            try HLSStart.validate(list)
            start = HLSStart(attributes: list)
        case .extm3u:
            throw .duplicateTag(tag: "EXTM3U")
        case .define:
            throw .unsupportedFeature(tag: "EXT-X-DEFINE", reason: "variable substitution is not implemented")
        case .skip:
            throw .unsupportedFeature(tag: "EXT-X-SKIP", reason: "playlist delta updates are not implemented")
        case .streamInf, .media, .iFrameStreamInf, .otherMultivariantTag:
            throw .multivariantTagInMediaPlaylist(tag: HLSTag.name(of: line.line))
        }
    }

    private mutating func relocate(_ problem: HLSParseError.Problem, _ line: HLSLine) -> HLSParseError.Problem {
        relocatedError = reader.error(problem, line)
        return problem
    }

    @inline(__always) private mutating func beginSegmentTag(_ line: HLSLine) {
        if pendingStart == nil { pendingStart = line.line.start }
        pendingHasSegmentTags = true
    }

    /// A playlist-level tag ends a run of unknown lines that precedes every segment: they are the header's.
    @inline(__always) private mutating func playlistTag() {
        if segments.isEmpty, !pendingHasSegmentTags, !pending.unknownLines.isEmpty {
            headerLines += pending.unknownLines
            pending.unknownLines = []
            pendingStart = nil
        }
    }

    private func cueValue(_ value: HLSByteView?) throws(HLSParseError.Problem) -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard let text = value.validatedString(value.start, value.end) else { throw .invalidUTF8 }
        return text
    }

    /// `#EXTINF:<duration>,[<title>]`.
    private mutating func readEXTINF(_ value: HLSByteView?, _ line: HLSLine) throws(HLSParseError.Problem) {
        guard let value else { throw .invalidTagValue(tag: "EXTINF", reason: "missing duration") }
        var comma = value.start
        while comma < value.end, value[comma] != UInt8(ascii: ",") { comma += 1 }
        let parsed: (time: MediaTime, keepsText: Bool, roundedSeconds: Int64)?
        do {
            parsed = try MediaTime.parseHLSDecimal(value, value.start, comma)
        } catch {
            // Too many digits for 64 bits: malformed, no real segment is that long.
            throw .invalidTagValue(tag: "EXTINF", reason: "duration \(error)")
        }
        guard let parsed else {
            throw .invalidTagValue(tag: "EXTINF", reason: "expected a non-negative decimal duration")
        }
        let duration = parsed.time
        // Before `durationText`: setting `duration` clears it.
        pending.duration = duration
        // A duration rounded to the nanosecond (or with more decimals than the canonical form writes)
        // keeps its text, so the playlist is written back as it came.
        pending.durationText = parsed.keepsText ? value.string(value.start, comma) : nil
        extinfLine = line
        if comma + 1 < value.end {
            guard let title = value.validatedString(comma + 1, value.end) else { throw .invalidUTF8 }
            pending.title = title
        }
        let rounded = parsed.roundedSeconds
        if let targetDuration {
            if rounded > targetDuration {
                throw .segmentExceedsTargetDuration(duration: duration, targetDuration: targetDuration)
            }
        } else if rounded > (longestRounded?.seconds ?? -1) {
            longestRounded = (rounded, duration, line.number, line.line.string)
        }
    }

    private mutating func finishSegment(_ line: HLSLine) throws(HLSParseError.Problem) {
        guard extinfLine != nil else { throw .uriWithoutEXTINF }
        guard let uri = line.line.validatedString(line.line.start, line.line.end) else { throw .invalidUTF8 }
        let resolved = try resolver.resolve(line.line.bytes, text: uri)
        var byteRange: HLSByteRange?
        if let range = pendingByteRange {
            if let offset = range.offset {
                byteRange = HLSByteRange(length: range.length, offset: offset)
            } else if let previousRange = segments.last?.byteRange, segments.last?.resolvedURI == resolved {
                // Continuing the previous range must still end inside 64 bits, as an explicit offset must.
                guard previousRange.end.addingReportingOverflow(range.length).overflow == false else {
                    throw relocate(.invalidTagValue(tag: "EXT-X-BYTERANGE", reason: "the range would end past byte \(UInt64.max)"),
                                   byteRangeLine ?? line)
                }
                byteRange = HLSByteRange(length: range.length, offset: previousRange.end)
            } else {
                throw relocate(.byteRangeWithoutPreviousRange, byteRangeLine ?? line)
            }
        }
        if segments.count == MediaPlaylistParser.sampledSegments {
            // Room for as many more segments as the rest of the playlist holds at the rate of the
            // first ones, and a tenth: a long playlist's array is then copied once, not ~16 times.
            let bytesPerSegment = max(1, (line.line.end - reader.view.start) / segments.count)
            segments.reserveCapacity(segments.count + (reader.view.end - line.line.end) / bytesPerSegment * 11 / 10)
        }
        segments.append(MediaPlaylistParser.blankSegment)
        let last = segments.count - 1
        swap(&segments[last], &pending)
        segments[last].uri = uri
        segments[last].resolvedURI = resolved
        segments[last].byteRange = byteRange
        segments[last].map = currentMap
        segments[last].keys = currentKeys
        extinfLine = nil
        pendingByteRange = nil
        byteRangeLine = nil
        pendingHasSegmentTags = false
        pendingStart = nil
    }

    private static let blankSegment = HLSMediaSegment(duration: .zero, uri: "")
    /// Segments read before the rest are counted in advance (see `finishSegment`).
    private static let sampledSegments = 64
}

