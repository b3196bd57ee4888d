import CompositorCore
import CompositorHLS

/// How an HLS export stitches: every choice of `HLSExporter` but where it writes and how
/// it reads, checked together when the value is made, so a stitcher never holds options that do
/// not go together.
///
/// ```swift
/// let options = try HLSExportOptions(snapping: .next, cueMarkers: [.cueTags], segmentContainer: .fragmentedMP4)
/// let stitched = try HLSExporter(outputURL: "out/stitched.m3u8", options: options).stitch(composition)
/// ```
public struct HLSExportOptions: Sendable, Equatable {
    /// The wall-clock anchor of composition time 0 used when none is given; `EXT-X-DATERANGE` needs one.
    public static let defaultProgramDateTime = "2026-01-01T00:00:00.000Z"
    /// The `CLASS` of every break's `EXT-X-DATERANGE` when none is given.
    public static let defaultMarkerClass = "com.compositor.ad"
    /// Every option at its default.
    public static let `default` = HLSExportOptions()

    /// ISO 8601 time of composition time 0, for `EXT-X-PROGRAM-DATE-TIME` and the markers' `START-DATE`.
    public let programDateTime: String
    /// The `CLASS` of every break's `EXT-X-DATERANGE`.
    public let markerClass: String
    /// How cuts move to segment boundaries: `.nearest` (the default), `.next`, `.previous`,
    /// `.covering` or `.within`. With `.next` or `.previous` a break plays at the boundary after or
    /// before where it is asked. At a mid-roll, `.within` skips the content between the two snapped
    /// cuts (the reported composition resumes content later, as a `resumeOffset` would), and
    /// `.covering` would play some of it twice, which no timeline describes: refused as `.snapping`.
    public let snapping: HLSCutSnapping
    /// Rules for particular breaks, by break ID, in place of `snapping`: a break's rule moves its
    /// ads' cuts and the content cuts on either side of it (where content stops for it and where
    /// content resumes). A break that is not in the composition (left out, say) has no cuts to move.
    public let breakSnapping: [String: HLSCutSnapping]
    /// Cue markers written around each break besides its `EXT-X-DATERANGE`: `.cueTags`
    /// (`EXT-X-CUE-OUT`/`-CONT`/`-IN`), `.scte35` (`SCTE35-OUT`/`-IN` date ranges). None by default.
    public let cueMarkers: Set<HLSCueMarker>
    /// The container MP4 sources are packaged into (their segments written beside the playlist);
    /// `nil` (the default) follows the first HLS source's segments, or MPEG-TS when every source
    /// is an MP4 file.
    public let segmentContainer: HLSSegmentContainer?
    /// Package every piece into segments of its own, timestamped on the composition's clock
    /// (`false` by default: HLS sources' segments are listed as they are, MP4 sources packaged
    /// on their own clock).
    ///
    /// Listed as they are, each piece keeps its source's timestamps: a player meets a jump in
    /// them at every switch, and the media of a piece often runs a frame past its `EXTINF`
    /// (audio starting before video), so players drift or reset their clocks there. Packaged,
    /// the pieces make one stream whose timestamps are composition time (+ 10 s), continuity
    /// counters and sequence numbers running on, each piece's audio cut within half a frame of
    /// its picture; cuts move to the keyframes next to them (as MP4 sources' do), HLS sources
    /// are read as `render` reads them (a multivariant one plays its named variant, else its
    /// highest-bandwidth one, so the output is one media playlist), and their samples are
    /// copied, never re-encoded. Not with interstitials, where each ad keeps playlists of its own.
    public let packagesEveryPiece: Bool
    /// With `packagesEveryPiece` and MPEG-TS segments, whether `EXT-X-DISCONTINUITY` marks where
    /// the encoding parameters change (new SPS/PPS, another sample rate) as well as where the
    /// tracks do: `true` by default, as RFC 8216 says it SHOULD. Where the tracks change it is
    /// always marked (a MUST); fragmented MP4 announces new parameters in its new `EXT-X-MAP`.
    ///
    /// The timestamps run on across a switch, so the mark only tells a player to expect new
    /// parameters, and players differ over it (`Tests/players/matrix.py`): Chromium's own player
    /// fails at an unmarked change, while at a mark GStreamer and hls.js restart their timeline at
    /// the piece's first decode time, showing a piece with B-frames late by its reorder delay
    /// (hls.js later at every mark), and VLC drops about a second of the piece before it. Off,
    /// for players of the second kind: then every piece between two marks decodes its first
    /// picture as long before showing it as the others, so decode times run on too.
    public let marksEncodingChanges: Bool
    /// Where the output's folder is served, ending in `/`: an `http`/`https` URL or a path from
    /// the server's root (`/shows/42/`). With it, interstitials' `X-ASSET-URI` and `X-ASSET-LIST`,
    /// and the `URI`s in their asset lists, are written under it instead of relative to the
    /// playlist: hls.js 1.6 resolves those against the page's address, not the playlist's, so a
    /// page served from elsewhere gets 404s (<doc:Players>). `nil` (the default) writes them
    /// relative, as RFC 8216 has them resolved.
    public let assetBaseURL: String?

    /// Options for an HLS export, checked together.
    ///
    /// - Parameters:
    ///   - programDateTime: The ISO 8601 time of composition time 0 (`defaultProgramDateTime` by default).
    ///   - markerClass: The `CLASS` of every break's `EXT-X-DATERANGE` (`defaultMarkerClass` by default).
    ///   - snapping: How cuts move to segment boundaries (`.nearest` by default).
    ///   - breakSnapping: Rules for particular breaks, by break ID (none by default).
    ///   - cueMarkers: Cue markers written around each break (none by default).
    ///   - segmentContainer: The container MP4 sources are packaged into (`nil`: as the HLS sources' segments).
    ///   - packagesEveryPiece: Whether every piece is packaged onto the composition's clock (`false` by default).
    ///   - marksEncodingChanges: Whether MPEG-TS switches of encoding parameters are marked (`true` by default).
    ///   - assetBaseURL: Where the output's folder is served, for interstitials' asset URIs (`nil`: relative).
    /// - Throws: `HLSExportOptionsError`: a `programDateTime` that is not an ISO 8601 date and
    ///   time, a `markerClass` no attribute can carry, `marksEncodingChanges` off without
    ///   `packagesEveryPiece` (pieces listed as they are jump in timestamps at every switch,
    ///   which is always marked), or an `assetBaseURL` that is neither an `http`/`https` URL nor
    ///   a path from the server's root ending in `/`.
    public init(
        programDateTime: String = defaultProgramDateTime, markerClass: String = defaultMarkerClass,
        snapping: HLSCutSnapping = .nearest, breakSnapping: [String: HLSCutSnapping] = [:], cueMarkers: Set<HLSCueMarker> = [],
        segmentContainer: HLSSegmentContainer? = nil, packagesEveryPiece: Bool = false, marksEncodingChanges: Bool = true,
        assetBaseURL: String? = nil
    ) throws(HLSExportOptionsError) {
        do { _ = try HLSDateTime(parsing: programDateTime) } catch {
            throw HLSExportOptionsError(
                .invalidProgramDateTime, options: ["programDateTime"],
                reason: "\(quoted(programDateTime)) is not an ISO 8601 date and time: \(error.reason)")
        }
        guard !markerClass.isEmpty, !markerClass.contains(where: { $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            throw HLSExportOptionsError(
                .unwritableMarkerClass, options: ["markerClass"],
                reason: "\(quoted(markerClass)) cannot be a date range's CLASS: it must be non-empty, without quotes or line breaks")
        }
        guard marksEncodingChanges || packagesEveryPiece else {
            throw HLSExportOptionsError(
                .unmarkedEncodingChangesNeedEveryPiece, options: ["marksEncodingChanges", "packagesEveryPiece"],
                reason: "encoding changes can go unmarked only when every piece is packaged onto one clock (packagesEveryPiece): "
                    + "pieces listed as they are jump in timestamps at every switch")
        }
        if let assetBaseURL {
            let lowered = assetBaseURL.lowercased()
            let isURL = (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")) && assetBaseURL.split(separator: "/").count >= 2
            let isRootPath = assetBaseURL.hasPrefix("/") && !assetBaseURL.hasPrefix("//")
            guard isURL || isRootPath, assetBaseURL.hasSuffix("/"),
                  !assetBaseURL.contains(where: { $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == " " || $0 == "?" || $0 == "#" }) else {
                throw HLSExportOptionsError(
                    .invalidAssetBaseURL, options: ["assetBaseURL"],
                    reason: "\(quoted(assetBaseURL)) is not where a folder is served: give an http or https URL, or a path from the "
                        + "server's root (/shows/42/), ending in '/', without a query, a fragment, spaces or quotes")
            }
        }
        self.init(
            checked: programDateTime, markerClass: markerClass, snapping: snapping, breakSnapping: breakSnapping,
            cueMarkers: cueMarkers, segmentContainer: segmentContainer, packagesEveryPiece: packagesEveryPiece,
            marksEncodingChanges: marksEncodingChanges, assetBaseURL: assetBaseURL)
    }

    /// The defaults, which need no check.
    private init() {
        self.init(
            checked: Self.defaultProgramDateTime, markerClass: Self.defaultMarkerClass, snapping: .nearest, breakSnapping: [:],
            cueMarkers: [], segmentContainer: nil, packagesEveryPiece: false, marksEncodingChanges: true, assetBaseURL: nil)
    }

    private init(
        checked programDateTime: String, markerClass: String, snapping: HLSCutSnapping, breakSnapping: [String: HLSCutSnapping],
        cueMarkers: Set<HLSCueMarker>, segmentContainer: HLSSegmentContainer?, packagesEveryPiece: Bool, marksEncodingChanges: Bool,
        assetBaseURL: String?
    ) {
        self.programDateTime = programDateTime
        self.markerClass = markerClass
        self.snapping = snapping
        self.breakSnapping = breakSnapping
        self.cueMarkers = cueMarkers
        self.segmentContainer = segmentContainer
        self.packagesEveryPiece = packagesEveryPiece
        self.marksEncodingChanges = marksEncodingChanges
        self.assetBaseURL = assetBaseURL
    }
}

/// Why `HLSExportOptions` were refused: which options, and why, with a cause to switch on.
///
/// ```swift
/// do { options = try HLSExportOptions(marksEncodingChanges: false) }
/// catch where error.cause == .unmarkedEncodingChangesNeedEveryPiece { … }
/// ```
public struct HLSExportOptionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong. New causes may be added: a `switch` over them needs a `default`.
    public struct Cause: Hashable, Sendable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case invalidProgramDateTime, unwritableMarkerClass, unmarkedEncodingChangesNeedEveryPiece, invalidAssetBaseURL
        }
        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// `programDateTime` is not an ISO 8601 date and time.
        public static let invalidProgramDateTime = Cause(.invalidProgramDateTime)
        /// `markerClass` is empty or holds a quote or a line break.
        public static let unwritableMarkerClass = Cause(.unwritableMarkerClass)
        /// `marksEncodingChanges` is off while `packagesEveryPiece` is not on.
        public static let unmarkedEncodingChangesNeedEveryPiece = Cause(.unmarkedEncodingChangesNeedEveryPiece)
        /// `assetBaseURL` is neither an `http`/`https` URL nor a path from the server's root, ending in `/`.
        public static let invalidAssetBaseURL = Cause(.invalidAssetBaseURL)

        public var description: String { code.rawValue }
    }

    /// What is wrong.
    public let cause: Cause
    /// The options concerned, by property name.
    public let options: [String]
    /// Why, in the user's terms.
    public let reason: String

    init(_ cause: Cause, options: [String], reason: String) {
        self.cause = cause
        self.options = options
        self.reason = reason
    }

    public var description: String { "\(options.joined(separator: " and ")): \(reason)" }
}
