import CompositorCore

/// One media segment of a media playlist: its `EXTINF`, its URI, and the tags that apply to it.
///
/// State that RFC 8216 carries from tag to tag is stored resolved on each segment: `map` is the
/// `EXT-X-MAP` in effect, `keys` the `EXT-X-KEY`s in effect, `byteRange` has its offset filled in.
/// The writer emits those tags again wherever they change (and after every discontinuity).
package struct HLSMediaSegment: Hashable, Sendable {
    /// The `EXTINF` duration, exact (`#EXTINF:10.010,` is `10010/1000`) whenever a timescale up to
    /// `Int32.max` holds it; otherwise rounded to the nearest nanosecond (`2.002002002002002` is
    /// `2.002002002`), with the text kept in `durationText`. Setting it drops `durationText`.
    package var duration: MediaTime {
        didSet { durationText = nil }
    }
    /// The `EXTINF` duration as written, when `duration` is rounded from it (or is exact with more
    /// than the 18 decimals the canonical form writes); the writer writes this text, so such a
    /// playlist reads and writes back unchanged. `nil` otherwise.
    package var durationText: String?
    /// The `EXTINF` title; `nil` when empty.
    package var title: String?
    /// The URI line as written.
    package var uri: String
    /// `uri` resolved against the playlist's URL.
    package var resolvedURI: String
    /// `EXT-X-BYTERANGE`, with the offset made explicit.
    package var byteRange: HLSByteRange?
    /// `EXT-X-DISCONTINUITY` precedes the segment.
    package var isDiscontinuity: Bool
    /// The `EXT-X-MAP` in effect.
    package var map: HLSMap?
    /// The `EXT-X-KEY`s in effect, one per `KEYFORMAT`; empty when the segment is not encrypted.
    package var keys: [HLSKey]
    /// `EXT-X-PROGRAM-DATE-TIME`, when the segment carries one.
    package var programDateTime: HLSDateTime?
    /// `EXT-X-DATERANGE` tags written before the segment.
    package var dateRanges: [HLSDateRange]
    /// `EXT-X-GAP`: the segment is missing and must not be loaded.
    package var isGap: Bool
    /// `EXT-X-CUE-OUT` before the segment (an ad break starts here).
    package var cueOut: HLSCueTag?
    /// `EXT-X-CUE-OUT-CONT` before the segment (inside an ad break).
    package var cueOutContinuation: HLSCueTag?
    /// `EXT-X-CUE-IN` before the segment (the ad break ends here), with its value when it has one
    /// (`4,SpliceType=VOD_DAI` from MediaConvert, `ID=…` from Envivio), kept verbatim.
    package var cueIn: HLSCueTag?
    /// Whether `EXT-X-CUE-IN` precedes the segment.
    package var isCueIn: Bool { cueIn != nil }
    /// Unknown tags and comments written before the segment, kept verbatim.
    package var unknownLines: [String]

    package init(
        duration: MediaTime, durationText: String? = nil, title: String? = nil, uri: String, resolvedURI: String? = nil,
        byteRange: HLSByteRange? = nil, isDiscontinuity: Bool = false, map: HLSMap? = nil, keys: [HLSKey] = [],
        programDateTime: HLSDateTime? = nil, dateRanges: [HLSDateRange] = [], isGap: Bool = false,
        cueOut: HLSCueTag? = nil, cueOutContinuation: HLSCueTag? = nil, cueIn: HLSCueTag? = nil,
        unknownLines: [String] = []
    ) {
        self.duration = duration
        self.durationText = durationText
        self.title = title
        self.uri = uri
        self.resolvedURI = resolvedURI ?? uri
        self.byteRange = byteRange
        self.isDiscontinuity = isDiscontinuity
        self.map = map
        self.keys = keys
        self.programDateTime = programDateTime
        self.dateRanges = dateRanges
        self.isGap = isGap
        self.cueOut = cueOut
        self.cueOutContinuation = cueOutContinuation
        self.cueIn = cueIn
        self.unknownLines = unknownLines
    }
}
