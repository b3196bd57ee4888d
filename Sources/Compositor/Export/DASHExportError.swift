import CompositorCore

/// Why a composition could not be exported as DASH or written: the schedule item, source or
/// folder concerned, and why. Match on `cause`:
///
/// ```swift
/// do { presentation = try DASHExporter().export(composition) }
/// catch where error.cause == .stitch && error.hlsError?.cause == .snapsToNothing { … }
/// ```
public struct DASHExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong. New causes may be added: a `switch` over them needs a `default`.
    public struct Cause: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable { case stitch, unsupported, unaligned, packaging, cannotWrite }
        fileprivate let code: Code

        /// The cuts could not be placed or the sources read: the stages it shares with the HLS
        /// export refused (`hlsError` says how).
        public static let stitch = Cause(code: .stitch)
        /// A valid source this export does not carry: a codec without an RFC 6381 name here (`item`).
        public static let unsupported = Cause(code: .unsupported)
        /// A multivariant source's variants do not start and end a period together: their
        /// keyframes are not aligned (`item`).
        public static let unaligned = Cause(code: .unaligned)
        /// A source's segments could not be read or made (`item`).
        public static let packaging = Cause(code: .packaging)
        /// The output folder could not be written; nothing of it was left behind (`item`).
        public static let cannotWrite = Cause(code: .cannotWrite)

        public var description: String { code.rawValue }
    }

    /// What went wrong.
    public let cause: Cause
    /// The schedule item, source or folder concerned.
    public let item: String
    /// Why, in the user's terms.
    public let reason: String
    /// The HLS stages' own error, for `.stitch`.
    public let hlsError: HLSExportError?

    package init(_ cause: Cause, item: String, reason: String) {
        (self.cause, self.item, self.reason, hlsError) = (cause, item, reason, nil)
    }

    package init(_ error: HLSExportError) {
        (cause, item, reason, hlsError) = (.stitch, error.item ?? "the schedule", error.description, error)
    }

    public var description: String { hlsError.map(\.description) ?? "\(quoted(item)): \(reason)" }
}
