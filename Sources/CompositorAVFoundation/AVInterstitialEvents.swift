import Compositor
import CompositorCore
import Foundation
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// The breaks of an interstitials stitch (`HLSExporter.stitchInterstitials`) as
/// `AVPlayerInterstitialEvent`s, for an app that schedules them itself: a controller's schedule
/// pre-empts the playlist's own date ranges, so the app can change it while playing.
///
/// ```swift
/// let item = AVPlayerItem(url: URL(fileURLWithPath: stitched.outputURL))
/// let controller = AVPlayerInterstitialEventController(primaryPlayer: player)
/// controller.events = AVInterstitialEvents.events(for: stitched, primaryItem: item)
/// ```
///
/// Each event says what the break's date range says: its time on the content's clock, one
/// template item per ad playlist, `resumptionOffset` (the content it replaces; 0 inserts),
/// `playoutLimit` where its segments run long, `requiresPlaybackAtPreferredRateForAdvancement`
/// for `SKIP`, `constrainsSeekingForwardInPrimaryContent` for `JUMP`, and from iOS 16.4 and macOS
/// 13.3 `cue` (`joinCue` for a pre-roll, `leaveCue` for a post-roll) and `willPlayOnce`.
public enum AVInterstitialEvents {
    /// The interstitial events of a stitch made by `HLSExporter.stitchInterstitials`.
    ///
    /// - Parameters:
    ///   - stitched: The stitch; its date ranges give the events.
    ///   - primaryItem: The item playing the stitch's content playlist.
    /// - Returns: One event per break, for an `AVPlayerInterstitialEventController`.
    @MainActor
    public static func events(for stitched: HLSExport, primaryItem: AVPlayerItem) -> [AVPlayerInterstitialEvent] {
        stitched.interstitialEvents.map { event in
            var restrictions: AVPlayerInterstitialEvent.Restrictions = []
            if event.restrictsSkipping { restrictions.insert(.requiresPlaybackAtPreferredRateForAdvancement) }
            if event.restrictsJumping { restrictions.insert(.constrainsSeekingForwardInPrimaryContent) }
            let made = AVPlayerInterstitialEvent(
                primaryItem: primaryItem, identifier: event.id, time: event.time.cmTime,
                templateItems: event.assetURLs.map { AVPlayerItem(url: foundationURL($0)) }, restrictions: restrictions,
                resumptionOffset: event.resumptionOffset.cmTime, playoutLimit: event.playoutLimit?.cmTime ?? .invalid)
            if #available(iOS 16.4, macOS 13.3, tvOS 16.4, *) {
                switch event.cue {
                case .none: made.cue = .noCue
                case .join: made.cue = .joinCue
                case .leave: made.cue = .leaveCue
                }
                made.willPlayOnce = event.playsOnce
            }
            return made
        }
    }

    /// A URL the stitch wrote (a path, a `file:` or a remote URL) as a Foundation URL.
    static func foundationURL(_ url: String) -> URL {
        (try? MediaLocation(parsing: url))?.foundationURL ?? URL(fileURLWithPath: url)
    }
}
