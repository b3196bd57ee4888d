/// Why transport stream bytes could not be read, and where: a byte offset in the segment.
///
/// `malformed` breaks ISO/IEC 13818-1 (or the elementary stream's syntax); `unsupported` is valid
/// but outside what this library reads (a codec it does not know how to package, say).
package struct TSParseFailure: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable { case malformed, unsupported }

    package let kind: Kind
    package let reason: String
    /// Bytes into the segment.
    package let offset: UInt64

    package static func malformed(_ reason: String, at offset: UInt64) -> Self {
        Self(kind: .malformed, reason: reason, offset: offset)
    }

    package static func unsupported(_ reason: String, at offset: UInt64) -> Self {
        Self(kind: .unsupported, reason: reason, offset: offset)
    }
}
