import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// Why a composition of HLS sources could not be stitched or written. Every error names the
/// playlist (and the schedule item, where one is concerned) and the reason; a playlist that
/// breaks RFC 8216 (`.malformed`) is told apart from one that is valid but not something this
/// export joins (`.unsupported`).
///
/// Match on `cause`, which stays as it is while new causes are added:
///
/// ```swift
/// do { try exporter.stitch(composition) }
/// catch where error.cause == .snapsToNothing { print("schedule \(error.item ?? "it") longer: \(error)") }
/// ```
public struct HLSExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong. New causes may be added: a `switch` over them needs a `default`.
    public struct Cause: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable {
            case unreadable, malformed, unsupported, snapsToNothing, noSuchVariant, mixedSegmentFormats, variantsDisagree
            case invalidSchedule, snapping, planDisagrees, unwritableID, packaging, cannotWrite, stitch, cancelled
        }
        fileprivate let code: Code

        /// A playlist could not be read (`url`).
        public static let unreadable = Cause(code: .unreadable)
        /// A playlist's text is not a valid playlist (`url`).
        public static let malformed = Cause(code: .malformed)
        /// A valid source the export does not join: not a playlist at all (an MP4 file, say), a
        /// live playlist, an I-frame playlist, a variant with alternate renditions, a feature the
        /// parser leaves out (`url`).
        public static let unsupported = Cause(code: .unsupported)
        /// An item's cuts snap to one segment boundary, so nothing of it would play (`item`, `url`).
        public static let snapsToNothing = Cause(code: .snapsToNothing)
        /// A source names a variant its playlist does not have (`url`).
        public static let noSuchVariant = Cause(code: .noSuchVariant)
        /// One playlist would carry two segment formats (MPEG-TS and fragmented MP4) (`item`, `url`).
        public static let mixedSegmentFormats = Cause(code: .mixedSegmentFormats)
        /// Variants or renditions snap an item's cuts differently: their segments are not aligned (`item`, `url`).
        public static let variantsDisagree = Cause(code: .variantsDisagree)
        /// The schedule does not make a valid timeline (`scheduleError`).
        public static let invalidSchedule = Cause(code: .invalidSchedule)
        /// The snapped cuts do not make a valid timeline (`scheduleError`).
        public static let snapping = Cause(code: .snapping)
        /// The engine placed an item elsewhere than its snapped ranges say (`item`).
        public static let planDisagrees = Cause(code: .planDisagrees)
        /// A break or ad ID an `EXT-X-DATERANGE` cannot carry (`item`).
        public static let unwritableID = Cause(code: .unwritableID)
        /// An MP4 source could not be packaged into segments (`item`, `mp4Error`).
        public static let packaging = Cause(code: .packaging)
        /// The output folder could not be written; nothing of it was left behind (`folder`).
        public static let cannotWrite = Cause(code: .cannotWrite)
        /// Any other refusal of the stitching engine (`item`, when one is concerned).
        public static let stitch = Cause(code: .stitch)
        /// The write was cancelled (its task was); nothing of it was left behind (`folder`).
        public static let cancelled = Cause(code: .cancelled)

        public var description: String { code.rawValue }
    }

    /// Every error, with what it names: how the export builds them, and what tests match.
    package enum Detail: Equatable, Sendable, CustomStringConvertible {
        /// The playlist could not be read.
        case unreadable(url: String, reason: String)
        /// The playlist's text is not a valid playlist.
        case malformed(url: String, reason: String)
        /// A valid source this stitcher does not join: not a playlist at all (an MP4 file, say), a live
        /// playlist, an I-frame playlist, a variant with alternate renditions, a feature the parser
        /// leaves out.
        case unsupported(url: String, reason: String)
        /// The item's cuts snap to one segment boundary, so nothing of it would play. Schedule it longer,
        /// or move the cuts further from that boundary.
        case snapsToNothing(item: String, url: String, requested: MediaTimeRange, snapped: MediaTimeRange)
        /// The source names a variant (`MediaLocation.variant`) its playlist does not have; `known`
        /// lists the variants there are (empty for a media playlist).
        case noSuchVariant(url: String, name: String, known: String)
        /// One playlist cannot carry both formats (MPEG-TS and fragmented MP4, say): a client keeps its
        /// demuxer across discontinuities.
        case mixedSegmentFormats(
            item: String, url: String, format: String,
            previousItem: String, previousURL: String, previousFormat: String)
        /// Variants of one presentation snap an item's cuts differently (their segments are not
        /// aligned), or an audio rendition's cut lands more than 0.1 s from its video's, so no single
        /// timeline describes the output; a client switching variants would jump.
        case variantsDisagree(item: String, variantURL: String, range: MediaTimeRange, firstVariantURL: String, firstRange: MediaTimeRange)
        /// The schedule does not make a valid timeline.
        case schedule(ScheduleError)
        /// The snapped cuts do not make a valid timeline.
        case snapping(ScheduleError)
        /// The engine placed an item elsewhere than the composition of its snapped ranges does.
        case planDisagrees(item: String, playlist: MediaTimeRange, composition: MediaTimeRange)
        /// A break or ad ID cannot be written in an `EXT-X-DATERANGE` quoted string (it holds a double
        /// quote or a line break).
        case unwritableID(String)
        /// An MP4 source (schedule item `item` is the first to play it) could not be packaged into
        /// segments: unreadable, malformed, or with a codec the segment container cannot carry.
        case packaging(item: String, MP4Error)
        /// The output folder could not be written (nothing of it was left behind).
        case cannotWrite(folder: FilePath, reason: String)
        /// Any other refusal of the stitching engine, with the item it concerns when there is one.
        case stitch(item: String?, reason: String)
        /// The write into `folder` was cancelled (its task was); nothing of it was left behind.
        case cancelled(folder: FilePath)

        package var description: String {
            switch self {
            case .unreadable(let url, let reason): return "\(url): cannot read: \(reason)"
            case .malformed(let url, let reason): return "\(url): malformed playlist: \(reason)"
            case .unsupported(let url, let reason): return "\(url): unsupported: \(reason)"
            case .noSuchVariant(let url, let name, let known): return "\(url): \(noSuchVariantReason(name: name, known: known))"
            case .snapsToNothing(let item, let url, let requested, let snapped):
                return "\(quoted(item)) (\(url)): \(requested) snaps to the segment boundary \(snapped.start), so nothing of it "
                    + "would play; make it longer or move its cuts away from that boundary"
            case .mixedSegmentFormats(let item, let url, let format, let previousItem, let previousURL, let previousFormat):
                return "\(quoted(item)) (\(url)) has \(format) segments but \(quoted(previousItem)) (\(previousURL)) before it has "
                    + "\(previousFormat) segments; one playlist cannot mix them"
            case .variantsDisagree(let item, let variantURL, let range, let firstVariantURL, let firstRange):
                return "\(quoted(item)) snaps to \(range) in \(variantURL) but to \(firstRange) in \(firstVariantURL); "
                    + "the variants' and renditions' segments are not aligned"
            case .schedule(let error): return error.description
            case .snapping(let error): return "after snapping cuts to segment boundaries: \(error)"
            case .planDisagrees(let item, let playlist, let composition):
                return "\(quoted(item)) is at \(playlist) in the stitched playlist but at \(composition) by its timeline"
            case .packaging(let item, let error): return "\(quoted(item)): cannot package it into segments: \(error)"
            case .cannotWrite(let folder, let reason): return "\(folder): \(reason)"
            case .unwritableID(let id):
                return "the ID \(quoted(id)) cannot be written in an EXT-X-DATERANGE quoted string (no double quotes or line breaks)"
            case .stitch(let item?, let reason): return "\(quoted(item)): \(reason)"
            case .stitch(nil, let reason): return reason
            case .cancelled(let folder): return "\(folder): cancelled; nothing was written"
            }
        }
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    /// What went wrong.
    public var cause: Cause {
        switch detail {
        case .unreadable: return .unreadable
        case .malformed: return .malformed
        case .unsupported: return .unsupported
        case .snapsToNothing: return .snapsToNothing
        case .noSuchVariant: return .noSuchVariant
        case .mixedSegmentFormats: return .mixedSegmentFormats
        case .variantsDisagree: return .variantsDisagree
        case .schedule: return .invalidSchedule
        case .snapping: return .snapping
        case .planDisagrees: return .planDisagrees
        case .unwritableID: return .unwritableID
        case .packaging: return .packaging
        case .cannotWrite: return .cannotWrite
        case .stitch: return .stitch
        case .cancelled: return .cancelled
        }
    }

    /// The schedule item concerned (a clip or ad ID; a break or ad ID for `.unwritableID`), when one is.
    public var item: String? {
        switch detail {
        case .snapsToNothing(let item, _, _, _), .mixedSegmentFormats(let item, _, _, _, _, _), .variantsDisagree(let item, _, _, _, _),
             .planDisagrees(let item, _, _), .packaging(let item, _), .unwritableID(let item):
            return item
        case .stitch(let item, _): return item
        case .unreadable, .malformed, .unsupported, .noSuchVariant, .schedule, .snapping, .cannotWrite, .cancelled: return nil
        }
    }

    /// The playlist concerned, when one is (for `.variantsDisagree`, the one that disagrees).
    public var url: String? {
        switch detail {
        case .unreadable(let url, _), .malformed(let url, _), .unsupported(let url, _), .noSuchVariant(let url, _, _),
             .snapsToNothing(_, let url, _, _), .mixedSegmentFormats(_, let url, _, _, _, _), .variantsDisagree(_, let url, _, _, _):
            return url
        case .schedule, .snapping, .planDisagrees, .unwritableID, .packaging, .cannotWrite, .stitch, .cancelled: return nil
        }
    }

    /// The output folder concerned (`.cannotWrite`, `.cancelled`).
    public var folder: FilePath? {
        switch detail {
        case .cannotWrite(let folder, _), .cancelled(let folder): return folder
        default: return nil
        }
    }

    /// The timeline's own error (`.invalidSchedule`, `.snapping`).
    public var scheduleError: ScheduleError? {
        switch detail {
        case .schedule(let error), .snapping(let error): return error
        default: return nil
        }
    }

    /// The MP4 layer's error: file, box path, byte offset (`.packaging`).
    public var mp4Error: MP4Error? {
        guard case .packaging(_, let error) = detail else { return nil }
        return error
    }

    public var description: String { detail.description }
}
