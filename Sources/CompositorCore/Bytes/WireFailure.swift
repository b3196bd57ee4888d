/// Input that breaks its format (`malformed`), uses what this library does not read
/// (`unsupported`), or is refused before it is read for its size (`limitExceeded`), and where:
/// the one failure the wire readers throw (MP4 boxes, MPEG-TS packets and PES, HLS playlists,
/// whose `HLSParseError` adds the line), which each layer turns into its error naming the file,
/// box path, segment or playlist.
///
/// ```
/// WireFailure.malformed("stsz sample count 9 differs from stts's 10", at: 1_204)
/// ```
package struct WireFailure: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The input breaks its format's rules.
        case malformed
        /// Valid input that uses something this library does not read.
        case unsupported
        /// Input refused for its size before it is read (a hostile-input bound).
        case limitExceeded
    }

    package var kind: Kind
    /// Bytes into the input (the file, or the segment) where the problem is.
    package var offset: UInt64
    package var reason: String

    package init(kind: Kind, offset: UInt64, reason: String) {
        self.kind = kind
        self.offset = offset
        self.reason = reason
    }

    package static func malformed(_ reason: String, at offset: UInt64) -> WireFailure {
        WireFailure(kind: .malformed, offset: offset, reason: reason)
    }

    package static func unsupported(_ reason: String, at offset: UInt64) -> WireFailure {
        WireFailure(kind: .unsupported, offset: offset, reason: reason)
    }
}
