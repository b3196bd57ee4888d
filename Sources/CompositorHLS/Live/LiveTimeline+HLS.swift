import CompositorCore

extension LiveTimeline {
    /// The stream a stitched live playlist (`LiveStitcher`'s) holds at this load: its window from
    /// the first segment's program date-time to the last one's end, and each break from its date
    /// range (`CLASS="com.compositor.ad-break"`): the first ad's start, the ads from `X-AD-IDS` and
    /// `X-AD-DURATIONS` cut at its `DURATION` (at the live edge while it goes on), and the content
    /// it replaced (`X-REPLACED`, once over).
    ///
    /// - Parameter playlist: A load of the stitched playlist.
    /// - Returns: `nil` when the playlist has no segment or no program date-time.
    package init?(stitched playlist: HLSMediaPlaylist) {
        guard let dates = try? LiveStitcher.programDates(of: playlist), let first = dates.first ?? nil,
              let lastDate = dates.last ?? nil, let last = playlist.segments.last else { return nil }
        let liveEdge = lastDate.secondsSinceEpoch + last.duration
        var breaks: [Break] = []
        for range in playlist.segments.flatMap(\.dateRanges) where range.className == LiveStitcher.breakClass {
            guard let start = range.startDate?.secondsSinceEpoch, let ids = range.attributes.quotedString("X-AD-IDS"),
                  let lengths = range.attributes.quotedString("X-AD-DURATIONS") else { continue }
            let offset = range.attributes["X-AD-OFFSET"]?.exactTime ?? .zero
            let played = range.duration ?? (liveEdge - start)
            var ads: [Ad] = []
            var at = offset
            for (id, text) in zip(ids.split(separator: ",", omittingEmptySubsequences: false), lengths.split(separator: ",")) {
                guard let length = try? MediaTime(parsing: text) else { break }
                let end = MediaTime.min(at + length, played)
                guard end > at else { break }
                ads.append(Ad(id: Self.unlisted(id), duration: end - at))
                at = at + length
            }
            breaks.append(Break(id: range.id, start: start + offset, ads: ads, replaced: range.attributes["X-REPLACED"]?.exactTime))
        }
        self.init(windowStart: first.secondsSinceEpoch, liveEdge: liveEdge, breaks: breaks, hasEnded: playlist.hasEndList)
    }

    /// An `X-AD-IDS` item as the ID it lists (`%25`, `%2C` and `%22` decoded; nothing else is encoded).
    private static func unlisted(_ item: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(item.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count {
                let code = String(decoding: utf8[index + 1...index + 2], as: UTF8.self)
                if let decoded = ["25": UInt8(ascii: "%"), "2C": UInt8(ascii: ","), "22": UInt8(ascii: "\"")][code] {
                    bytes.append(decoded)
                    index += 3
                    continue
                }
            }
            bytes.append(utf8[index])
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
