import CompositorCore
import CompositorHLS

/// One break as an interstitial on the content playlist's clock: what the date range says, and
/// what an `AVPlayerInterstitialEvent` says on Apple platforms (the adapter only copies it).
package struct HLSInterstitialEvent: Hashable, Sendable {
    /// Where it sits on the timeline, as `CUE` says it (`PRE`, `POST`, or neither).
    package enum Cue: Hashable, Sendable {
        case none
        /// Plays before the content, wherever playback starts (a pre-roll).
        case join
        /// Plays after the content ends (a post-roll).
        case leave
    }

    /// The break's ID.
    package let id: String
    /// The content time where it plays.
    package let time: MediaTime
    /// How long it plays (`DURATION`).
    package let duration: MediaTime
    package let cue: Cue
    /// A `once` break (`CUE="ONCE"`).
    package let playsOnce: Bool
    /// Each ad's playlist, in play order: absolute URLs.
    package let assetURLs: [String]
    /// The JSON asset list naming them, for a pod.
    package let assetListURL: String?
    /// The content time it replaces (`X-RESUME-OFFSET`).
    package let resumptionOffset: MediaTime
    /// Where the break stops when its ads' segments run past what was scheduled.
    package let playoutLimit: MediaTime?
    /// No skipping or fast-forward in it (`X-RESTRICT` `SKIP`).
    package let restrictsSkipping: Bool
    /// No seeking over it without playing it (`X-RESTRICT` `JUMP`).
    package let restrictsJumping: Bool

    /// The `EXT-X-DATERANGE` of class `com.apple.hls.interstitial` that says all this, asset URIs
    /// relative to `playlistURL`, or under `assetBaseURL` (where the playlist's folder is served).
    package func dateRange(anchor: HLSDateTime, playlistURL: String, assetBaseURL: String? = nil) throws(MediaTimeError) -> HLSDateRange {
        func reference(_ url: String) -> String {
            let relative = URIReference.relativize(url, from: playlistURL)
            return assetBaseURL.map { $0 + relative } ?? relative
        }
        var list = HLSAttributeList()
        list["ID"] = .quotedString(id)
        list["CLASS"] = .quotedString(HLSExporter.interstitialClass)
        list["START-DATE"] = .quotedString(try anchor.adding(time).description)
        list["DURATION"] = .decimal(duration)
        var cues: [String] = []
        if cue == .join { cues.append("PRE") }
        if cue == .leave { cues.append("POST") }
        if playsOnce { cues.append("ONCE") }
        if !cues.isEmpty { list["CUE"] = .quotedString(cues.joined(separator: ",")) }
        if let assetListURL {
            list["X-ASSET-LIST"] = .quotedString(reference(assetListURL))
        } else {
            list["X-ASSET-URI"] = .quotedString(reference(assetURLs[0]))
        }
        list["X-RESUME-OFFSET"] = .decimal(resumptionOffset)
        if let playoutLimit { list["X-PLAYOUT-LIMIT"] = .decimal(playoutLimit) }
        var restrict: [String] = []
        if restrictsSkipping { restrict.append("SKIP") }
        if restrictsJumping { restrict.append("JUMP") }
        if !restrict.isEmpty { list["X-RESTRICT"] = .quotedString(restrict.joined(separator: ",")) }
        // Pre- and post-rolls are not on the content's timeline, so there is nothing to snap.
        if cue == .none { list["X-SNAP"] = .quotedString("OUT,IN") }
        return HLSDateRange(attributes: list)
    }
}
