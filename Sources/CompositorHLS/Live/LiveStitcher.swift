import CompositorCore

/// The stitched live media playlist: a pure function of the content playlist as last loaded and
/// the decisions so far. Nothing else is kept between reloads, so any number of processes holding
/// the same decisions write byte-identical playlists for the same content.
///
/// ```
/// content      seq 100  | 100 | 101 | 102 | 103 | 104 |      DS 7, CUE-OUT:DURATION=6 on 101
/// stitched     seq 100  | 100 |/a0|a1 |/b0  |/103 | 104 |   DS 7  (/ a discontinuity)
/// ...later     seq 103                |/b0  |/103 | 104 | 105 |   DS 8: a0's tag left with it
/// ```
///
/// How every number is derived:
/// - A content segment keeps its own URI and duration; the first after a break gets
///   `EXT-X-DISCONTINUITY`.
/// - An ad segment is listed with the replaced content segment in which the content passes its
///   start (its end, for an open-ended span: `LiveBreak`); its date continues the stitched clock
///   from the break's start.
/// - Content segments' dates are the content's, moved by what the breaks so far left
///   (`LiveBreak.debtAfter`), so dates run on across breaks.
/// - A window that starts inside the content a break replaced keeps every ad segment the break
///   published (`keepsItsAds`).
/// - `EXT-X-MEDIA-SEQUENCE` is the content's, plus, for every break, the ad segments published
///   before the window (and not kept) less the content segments replaced before it.
/// - `EXT-X-DISCONTINUITY-SEQUENCE` is the content's, plus, before the window, the breaks' tags
///   (each ad's first segment, each return to content) less the content tags they replaced.
/// - Each break has an `EXT-X-DATERANGE` (its ID, `CLASS`, `START-DATE`, `PLANNED-DURATION` when its
///   span is asked, `DURATION` once it is over), kept while any of its dates is in the window;
///   the content's own date ranges on replaced segments move to the segment where they start.
/// - The target duration, type, `EXT-X-ENDLIST` and header are the content's.
package enum LiveStitcher {
    /// The `CLASS` of the date range written for each break.
    package static let breakClass = "com.compositor.ad-break"

    /// The stitched playlist for `content` (`decisions` advanced by it, or by a later load).
    ///
    /// - Parameters:
    ///   - content: The content media playlist as last loaded.
    ///   - decisions: The decisions after that load.
    ///   - url: Where the stitched playlist is served: URIs are written relative to it.
    ///   - removingCueTags: Whether the content's `EXT-X-CUE-OUT`/`-CONT`/`-IN` are left out (when
    ///     they place the breaks, which the stitched playlist marks with its date ranges instead).
    /// - Returns: The stitched media playlist.
    /// - Throws: `LiveStitchError.decisionsBehind` when `decisions` have not taken `content`'s segments.
    ///   - adSegmentURI: When given, every ad segment is listed with this URI and no map or key: an
    ///     empty WebVTT file, in a subtitles rendition (ads carry no subtitles).
    package static func playlist(
        content: HLSMediaPlaylist, decisions: LiveDecisions, url: String, removingCueTags: Bool = false, adSegmentURI: String? = nil
    ) throws(LiveStitchError) -> HLSMediaPlaylist {
        let first = content.mediaSequence ?? 0
        try requireDecisions(decisions, taking: content)
        let dates = try programDates(of: content)
        let relocate = Relocation(outputURL: url)

        // What the breaks published before the window shifts both sequence numbers.
        var sequence = Int64(clamping: first), discontinuities = Int64(clamping: content.discontinuitySequence ?? 0)
        // A return marks its segment unless the next break starts right there (back to back).
        let replacing = Set(decisions.breaks.filter { !$0.replaced.isEmpty }.map(\.startSequence))
        func marksReturn(_ item: LiveBreak) -> UInt64? {
            guard item.marksReturn, let back = item.contentReturn?.sequence, !replacing.contains(back) else { return nil }
            return back
        }
        for item in decisions.breaks where item.startSequence < first {
            let before = Int(Swift.min(first - item.startSequence, UInt64(item.replaced.count)))
            let passed = item.replaced[..<before].reduce(MediaTime.zero) { $0 + $1.duration }
            // Ads listed with the return count once the return has left too; a break the window
            // starts inside keeps every ad it published (`keepsItsAds`).
            let returned = item.contentReturn.map { $0.sequence < first } ?? false
            let published = returned ? item.placedCount : Self.keepsItsAds(item, windowStart: first) ? 0 : item.published(within: passed)
            sequence += Int64(published) - Int64(before)
            discontinuities += Int64(item.adSegments[..<published].filter(\.isDiscontinuity).count)
                - Int64(item.replaced[..<before].filter(\.isDiscontinuity).count)
            if let back = marksReturn(item), back < first, item.contentReturn?.isDiscontinuity == false { discontinuities += 1 }
        }
        guard sequence >= 0, discontinuities >= 0 else {
            throw .inconsistentDecisions(url: content.url, reason: "the breaks before the window remove more segments than the content had")
        }

        var segments: [HLSMediaSegment] = []
        segments.reserveCapacity(content.segments.count + 8)
        var moved: [(range: HLSDateRange, after: Int)] = []
        // The breaks that can touch the window, in order, and the one the walk is in.
        let touching = decisions.breaks.filter { item in
            item.contentReturn.map { $0.sequence >= first } ?? true
        }
        let returns = Set(touching.compactMap(marksReturn))
        let returning = Dictionary(
            touching.filter { $0.placedCount > 0 }.compactMap { item in item.contentReturn.map { ($0.sequence, item) } }, uniquingKeysWith: { $1 })
        // How far behind the content's clock the stream runs: what the breaks over before the window left.
        var debt = decisions.breaks.last { ($0.contentReturn?.sequence).map { $0 <= first } ?? false }?.debtAfter ?? .zero
        func append(_ item: LiveBreak, ads: Range<Int>) throws(LiveStitchError) {
            for ad in ads {
                var segment = relocate(item.adSegments[ad])
                if let adSegmentURI {
                    segment.uri = adSegmentURI
                    segment.map = nil
                    segment.keys = []
                }
                segment.programDateTime = try item.startDate.map { (date) throws(LiveStitchError) in
                    try time { () throws(MediaTimeError) in try date.adding(item.debtBefore + item.adEnds[ad] - item.adSegments[ad].duration) }
                }
                segments.append(segment)
            }
        }
        var current = 0
        var replacedStart = MediaTime.zero
        for (index, original) in content.segments.enumerated() {
            let number = first + UInt64(index)
            // A break giving the content back here: the ads that end after its last replaced segment.
            if let item = returning[number] {
                try append(item, ads: item.adSegmentsAtReturn)
                debt = item.debtAfter
            }
            // Past the breaks whose replaced segments are all before this one.
            while current < touching.count, touching[current].startSequence + UInt64(touching[current].replaced.count) <= number {
                current += 1
                replacedStart = .zero
            }
            if current < touching.count, touching[current].startSequence <= number {
                let item = touching[current]
                let position = Int(number - item.startSequence)
                // A window that starts inside a break: the break time its left segments covered,
                // and the ads published with them, kept.
                if index == 0 {
                    replacedStart = item.replaced[..<position].reduce(.zero) { $0 + $1.duration }
                    if Self.keepsItsAds(item, windowStart: first) { try append(item, ads: 0..<item.published(within: replacedStart)) }
                }
                try append(item, ads: item.adSegments(publishedWith: position, replacedStart: replacedStart))
                replacedStart += item.replaced[position].duration
                moved += original.dateRanges.map { ($0, segments.count) }
                continue
            }
            var segment = relocate(original)
            // On the stitched clock: the content's date, later by what the breaks so far left.
            segment.programDateTime = try dates[index].map { (date) throws(LiveStitchError) in
                try time { () throws(MediaTimeError) in try date.adding(debt) }
            }
            if returns.contains(number) { segment.isDiscontinuity = true }
            if removingCueTags || returns.contains(number) {
                segment.cueIn = nil
                segment.cueOutContinuation = nil
                if removingCueTags { segment.cueOut = nil }
            }
            segments.append(segment)
        }

        var stitched = content
        stitched.url = url
        stitched.targetDuration = decisions.stitchedTargetDuration(of: content)
        stitched.mediaSequence = UInt64(sequence)
        stitched.discontinuitySequence = UInt64(discontinuities)
        stitched.segments = segments
        segments = []   // the playlist's array alone: date ranges are added in place, not to a copy
        stitched.trailingLines = content.trailingLines.filter { !$0.hasPrefix("#EXT-X-CUE") }
        try addDateRanges(moved, breaks: decisions.breaks, to: &stitched)
        return stitched
    }

    /// Whether the window starting at content segment `windowStart` lists every ad segment `item`
    /// published: when it starts inside the content the break replaced, past its first segment.
    ///
    /// Why: the content segments the break replaced before the window have left it, and the
    /// ads published with them would leave too, the one playing across the window's start among
    /// them. The stitched window would then fall short of the content's, below three target
    /// durations (RFC 8216bis 6.2.2) when the content's is at that minimum. Ad segments are the
    /// stitcher's to keep (the content's that left may be gone from the origin). The window's
    /// first segment still only moves on: it stays at the break's first ad while the window
    /// starts inside the break, then goes to where the content comes back.
    ///
    /// ```
    /// content  | 3 | 4 | 5 | 6 | 7 |          a window 5-7 inside a break that replaced 3-5
    /// stitched |a0 a1|a2 a3|a4 | 6 | 7 |      a0-a3, published with 3 and 4, kept: a0-a4 6 7
    /// ```
    static func keepsItsAds(_ item: LiveBreak, windowStart first: UInt64) -> Bool {
        item.startSequence < first && first - item.startSequence < UInt64(item.replaced.count)
    }

    /// Throws `decisionsBehind` unless `decisions` took every segment of `content`.
    static func requireDecisions(_ decisions: LiveDecisions, taking content: HLSMediaPlaylist) throws(LiveStitchError) {
        let first = content.mediaSequence ?? 0
        let count = UInt64(content.segments.count)
        if count > 0, (decisions.lastSequence ?? 0) < first + count - 1 || decisions.lastSequence == nil {
            throw .decisionsBehind(url: content.url, contentLast: first + count - 1, decided: decisions.lastSequence)
        }
    }

    /// Each segment's program date-time: its own, else the one before it plus that one's
    /// duration (segments before the first dated one count back from it); all `nil` without one.
    package static func programDates(of content: HLSMediaPlaylist) throws(LiveStitchError) -> [HLSDateTime?] {
        guard let anchor = content.segments.firstIndex(where: { $0.programDateTime != nil }),
              var date = content.segments[anchor].programDateTime else {
            return Array(repeating: nil, count: content.segments.count)
        }
        var dates = [HLSDateTime?](repeating: nil, count: content.segments.count)
        var back = date.secondsSinceEpoch
        for index in stride(from: anchor - 1, through: 0, by: -1) {
            back = back - content.segments[index].duration
            dates[index] = HLSDateTime(secondsSinceEpoch: back, utcOffsetMinutes: date.utcOffsetMinutes)
        }
        for index in anchor..<content.segments.count {
            if let own = content.segments[index].programDateTime { date = own }
            dates[index] = date
            date = try time { () throws(MediaTimeError) in try date.adding(content.segments[index].duration) }
        }
        return dates
    }

    /// The breaks' date ranges, each kept while one of its dates is in the window, and the
    /// content's moved ones, each on the last segment starting at or before its `START-DATE`
    /// (the first segment when it starts before the window; without dates, where it was).
    private static func addDateRanges(
        _ moved: [(range: HLSDateRange, after: Int)], breaks: [LiveBreak], to playlist: inout HLSMediaPlaylist
    ) throws(LiveStitchError) {
        guard !playlist.segments.isEmpty else { return }
        let starts = playlist.segments.map { $0.programDateTime?.secondsSinceEpoch }
        func place(_ range: HLSDateRange, fallback: Int) {
            var index = Swift.min(fallback, playlist.segments.count - 1)
            if let start = range.startDate?.secondsSinceEpoch, starts[0] != nil {
                index = starts.lastIndex { $0.map { $0 <= start } ?? false } ?? 0
            }
            playlist.segments[index].dateRanges.append(range)
        }
        for (range, after) in moved { place(range, fallback: after) }
        guard let windowStart = starts[0] else { return }
        // Breaks in order: those over before the window are passed over before any range is made.
        for item in breaks {
            guard let start = item.startDate, let date = try? start.adding(item.debtBefore) else { continue }
            let length = item.isOpen ? nil : item.adEnds[..<item.placedCount].last ?? .zero
            if let length, let end = try? date.secondsSinceEpoch.adding(length), end < windowStart { continue }
            var range = HLSDateRange(id: item.id, class: breakClass, startDate: date, plannedDuration: item.plannedDuration)
            // The pod as it plays, written when the break opens (so never changed): a session
            // knows each ad from it, even when the break's first segments have left the window.
            let pod = item.podAsItPlays
            range.attributes["X-AD-IDS"] = .quotedString(pod.map { listed($0.id) }.joined(separator: ","))
            range.attributes["X-AD-DURATIONS"] = .quotedString(pod.map { $0.duration.hlsDecimalString }.joined(separator: ","))
            if item.leadingGap > .zero { range.attributes["X-AD-OFFSET"] = .decimal(item.leadingGap) }
            if let length {
                range.attributes["DURATION"] = .decimal(length)
                range.attributes["X-REPLACED"] = .decimal(item.replacedDuration)
            }
            place(range, fallback: 0)
        }
    }

    /// An ad ID as an item of `X-AD-IDS`: `%`, `,` and `"` percent-encoded.
    private static func listed(_ id: String) -> String {
        var text = ""
        for character in id.unicodeScalars {
            switch character {
            case "%": text += "%25"
            case ",": text += "%2C"
            case "\"": text += "%22"
            default: text.unicodeScalars.append(character)
            }
        }
        return text
    }

    static func time<T>(_ body: () throws(MediaTimeError) -> T) throws(LiveStitchError) -> T {
        do { return try body() } catch { throw .timeOverflow(error) }
    }
}

/// Segments (and their maps and keys) with URIs relative to the stitched playlist. Segments of
/// one folder share its relative path, worked out once: a window of thousands of segments costs
/// one `relativize` per folder, not per segment.
final class Relocation {
    let outputURL: String
    private var folders: [Substring: String] = [:]
    private var lastFolder: (folder: String, prefix: String)?

    init(outputURL: String) {
        self.outputURL = outputURL
    }

    func callAsFunction(_ original: HLSMediaSegment) -> HLSMediaSegment {
        var segment = original
        segment.uri = relative(original.resolvedURI)
        segment.map = original.map.map { map in
            var map = map
            map.attributes["URI"] = .quotedString(relative(map.resolvedURI))
            return map
        }
        segment.keys = original.keys.map { key in
            guard let resolved = key.resolvedURI else { return key }
            var key = key
            key.attributes["URI"] = .quotedString(relative(resolved))
            return key
        }
        return segment
    }

    private func relative(_ uri: String) -> String {
        // A plain file name after the last slash: the folder's relative path, then the name.
        let bytes = uri.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return URIReference.relativize(uri, from: outputURL) }
        let nameBytes = bytes[bytes.index(after: slash)...]
        guard !nameBytes.isEmpty, !nameBytes.allSatisfy({ $0 == UInt8(ascii: ".") }),
              !nameBytes.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return URIReference.relativize(uri, from: outputURL)
        }
        let name = uri[bytes.index(after: slash)...]
        let folder = uri[...slash]
        // Consecutive segments are nearly always in one folder: compare with the last before hashing.
        if let last = lastFolder, last.folder.utf8.elementsEqual(folder.utf8) { return last.prefix + name }
        if let known = folders[folder] {
            lastFolder = (String(folder), known)
            return known + name
        }
        let probe = URIReference.relativize(folder + "x", from: outputURL)
        guard probe.hasSuffix("x") else { return URIReference.relativize(uri, from: outputURL) }
        let prefix = String(probe.dropLast())
        folders[folder] = prefix
        lastFolder = (String(folder), prefix)
        return prefix + name
    }
}
