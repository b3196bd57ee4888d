/// A kind of cue marker a stitched playlist carries around each break, beside its
/// `EXT-X-DATERANGE`, for the ad servers and players that read them rather than date ranges.
///
/// ```
/// segments   ...content | ad 1.3 | ad 0.7 | ad 1.1 | content...
/// .cueTags              CUE-OUT:DURATION=3.1
///                                 CUE-OUT-CONT:ElapsedTime=1.3,Duration=3.1
///                                          CUE-OUT-CONT:ElapsedTime=2,Duration=3.1
///                                                   CUE-IN
/// .scte35               the break's date range with SCTE35-OUT | a date range of the same ID with SCTE35-IN
/// ```
///
/// A break at the playlist's end (a post-roll) has no segment after it, so no `EXT-X-CUE-IN` or
/// `SCTE35-IN`: the playlist ends in the break.
public enum HLSCueMarker: Hashable, Sendable {
    /// `EXT-X-CUE-OUT:DURATION=`, `EXT-X-CUE-OUT-CONT:ElapsedTime=,Duration=` and `EXT-X-CUE-IN`
    /// (the tags hls-splice writes and AWS MediaTailor reads).
    case cueTags
    /// An SCTE 35 `splice_insert` leaving the network (`SCTE35-OUT`, with the break's duration) on
    /// the break's date range, and one returning (`SCTE35-IN`) on a date range of the same ID where
    /// the break ends (RFC 8216 4.3.2.7.1). Event IDs count breaks from 1; splices are immediate,
    /// the date range's `START-DATE` saying when.
    case scte35
}
