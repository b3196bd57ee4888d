import CompositorCore

/// The interstitials form of the stitched live playlist: the content as it is, every segment,
/// sequence number, discontinuity and date its own, and each break an HLS interstitial (RFC
/// 8216bis appendix D) that a client (AVPlayer, hls.js 1.6) plays as separate items while the
/// content waits:
///
/// ```
/// content      seq 100  | 100 | 101 | 102 | 103 | 104 |      CUE-OUT:DURATION=6 on 101
/// stitched     seq 100  | 100 | 101 | 102 | 103 | 104 |      the same segments, and on 101:
///   EXT-X-DATERANGE:ID="ssai-101",CLASS="com.apple.hls.interstitial",START-DATE=<101's date>,
///     DURATION=5,X-ASSET-LIST="assets/ssai-101.json?_HLS_interstitial_id=ssai-101",X-SNAP="OUT,IN"
/// ```
///
/// - `START-DATE`: the date of the break's first segment, less the time it was under way when
///   the stitcher joined it.
/// - `DURATION`: how long the ads play, cut at the span when they are longer (then also
///   `X-PLAYOUT-LIMIT`). With an open-ended span (`EXT-X-CUE-OUT` without a duration) the break
///   opens with `PLANNED-DURATION` (its ads' length), and `DURATION` (and `X-PLAYOUT-LIMIT`) are
///   added when `EXT-X-CUE-IN` closes it: a value once written never changes.
/// - No `X-RESUME-OFFSET`: the content resumes after the time the ads played (their length, or
///   the playout limit), so ads shorter than the span leave its rest as content; a client given an
///   empty asset list (joining under a full-breaks-only rule) resumes where it joined (D.5).
/// - `X-ASSET-LIST`: the break's asset list, with `_HLS_interstitial_id` (D.4).
/// - Each is kept while any of its dates is in the window. The content's own date ranges stay.
extension LiveStitcher {
    /// The `CLASS` of an HLS interstitial date range (RFC 8216bis appendix D).
    package static let interstitialClass = "com.apple.hls.interstitial"

    /// An ad as an interstitial asset: its own playlist, and how long it plays.
    package struct InterstitialAsset: Hashable, Sendable {
        /// The ad's playlist, absolute.
        package var url: String
        package var duration: MediaTime

        package init(url: String, duration: MediaTime) {
            self.url = url
            self.duration = duration
        }
    }

    /// The interstitials playlist for `content` (`decisions` advanced by it, or by a later load).
    ///
    /// - Parameters:
    ///   - content: The content media playlist as last loaded.
    ///   - decisions: The decisions after that load.
    ///   - url: Where the playlist is served: URIs are written relative to it.
    ///   - assets: Each ad's asset, by ad ID.
    ///   - assetListURL: A break's asset list URL (absolute), by break ID.
    ///   - removingCueTags: Whether the content's `EXT-X-CUE-OUT`/`-CONT`/`-IN` are left out.
    /// - Returns: The content's playlist with a date range per break.
    /// - Throws: `LiveStitchError.decisionsBehind` when `decisions` have not taken `content`'s segments.
    package static func interstitialsPlaylist(
        content: HLSMediaPlaylist, decisions: LiveDecisions, url: String, assets: [String: InterstitialAsset],
        assetListURL: (String) -> String, removingCueTags: Bool = false
    ) throws(LiveStitchError) -> HLSMediaPlaylist {
        try requireDecisions(decisions, taking: content)
        let relocate = Relocation(outputURL: url)
        var playlist = content
        playlist.targetDuration = decisions.stitchedTargetDuration(of: content)
        playlist.url = url
        playlist.segments = content.segments.map { original in
            var segment = relocate(original)
            if removingCueTags {
                segment.cueIn = nil
                segment.cueOut = nil
                segment.cueOutContinuation = nil
            }
            return segment
        }
        if removingCueTags { playlist.trailingLines = content.trailingLines.filter { !$0.hasPrefix("#EXT-X-CUE") } }
        let dates = try programDates(of: content)
        guard let windowStart = dates.first ?? nil else { return playlist }
        for item in decisions.breaks {
            guard let range = try interstitial(item, assets: assets, assetListURL: assetListURL(item.id), playlistURL: url),
                  let start = range.startDate?.secondsSinceEpoch else { continue }
            let length = range.duration ?? range.plannedDuration ?? .zero
            if let end = try? start.adding(length), end < windowStart.secondsSinceEpoch { continue }
            // On the last segment starting at or before it (the first, when it starts before the window).
            let index = dates.lastIndex { $0.map { $0.secondsSinceEpoch <= start } ?? false } ?? 0
            playlist.segments[index].dateRanges.append(range)
        }
        return playlist
    }

    /// Break `item` as an interstitial date range; `nil` without a date or ads to play.
    static func interstitial(
        _ item: LiveBreak, assets: [String: InterstitialAsset], assetListURL: String, playlistURL: String
    ) throws(LiveStitchError) -> HLSDateRange? {
        guard let date = item.startDate else { return nil }
        let pod = item.adIDs.reduce(MediaTime.zero) { $0 + (assets[$1]?.duration ?? .zero) }
        guard pod > .zero else { return nil }
        var list = HLSAttributeList()
        list["ID"] = .quotedString(item.id)
        list["CLASS"] = .quotedString(interstitialClass)
        list["START-DATE"] = .quotedString(try time { () throws(MediaTimeError) in try date.adding(.zero - item.elapsed) }.description)
        // The span from the break's start: asked from the first (then final at once), or known at its CUE-IN.
        let asked = item.plannedDuration.map { $0 + item.elapsed }
        let known = item.duration.map { $0 + item.elapsed }
        if asked == nil { list["PLANNED-DURATION"] = .decimal(pod) }
        if let span = asked ?? (item.isOpen ? nil : known) {
            list["DURATION"] = .decimal(MediaTime.min(pod, span))
            if pod > span { list["X-PLAYOUT-LIMIT"] = .decimal(span) }
        }
        list["X-ASSET-LIST"] = .quotedString(URIReference.relativize(assetListURL, from: playlistURL))
        list["X-SNAP"] = .quotedString("OUT,IN")
        return HLSDateRange(attributes: list)
    }
}
