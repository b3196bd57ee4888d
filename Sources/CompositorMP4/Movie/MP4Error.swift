import CompositorIO
import CompositorCore

/// Why an MP4 file could not be read, or a stitched MP4 could not be written.
///
/// `malformed` means the file breaks the format (a size that lies, a table cut short); `unsupported`
/// means the file is valid but uses something this library does not handle (a second media edit,
/// a `moov` too large to load). Both name the file, the box path (`moov/trak[1]/mdia/minf/stbl/stsz`) and the byte offset.
public enum MP4Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no file at the path.
    case fileNotFound(file: String)
    /// The operating system refused an operation on the file.
    case io(file: String, operation: String, reason: String)
    /// The file does not start like an ISO base media file.
    case notMP4(file: String, reason: String)
    /// The file breaks the format at `boxPath`, `offset` bytes into the file.
    case malformed(file: String, boxPath: String, offset: UInt64, reason: String)
    /// The file is valid, but uses a feature this library does not handle.
    case unsupported(file: String, boxPath: String, offset: UInt64, reason: String)
    /// A transport stream segment breaks ISO/IEC 13818-1 (or its codec's syntax) `offset` bytes in.
    case malformedStream(file: String, offset: UInt64, reason: String)
    /// A transport stream segment is valid, but carries something this library does not read.
    case unsupportedStream(file: String, offset: UInt64, reason: String)
    /// Two pieces need different codecs in the same output track. The codecs are named in a
    /// user's terms, with how the file says them: `AAC (mp4a, object type 0x40)`.
    case codecMismatch(track: TrackKind, codec: String, file: String, otherCodec: String, otherFile: String)
    /// Two pieces' formats differ where the output needs one description per track (the
    /// web-safe output): `AAC-LC 44.1 kHz mono` against `AAC-LC 48 kHz stereo`. Valid, but not
    /// for this output.
    case formatMismatch(track: TrackKind, format: String, file: String, otherFormat: String, otherFile: String)
    /// Two sources show their video differently (`display`: "rotated 90° clockwise", "unrotated"),
    /// which one MP4 video track cannot do.
    case displayMismatch(file: String, display: String, otherFile: String, otherDisplay: String)
    /// A piece asks for something its source cannot give (an empty range, a range past its end).
    case invalidPiece(index: Int, file: String, reason: String)
    /// The folder the output should go into does not exist.
    case missingOutputFolder(path: String)
    /// A time computation left the exact range (Int64 ticks over an Int32 timescale).
    case timeOverflow(file: String, reason: String)
    /// An HLS variant's audio rendition (`file`, a playlist) that cannot play with the variant's
    /// video: it holds no audio, or is not on the video's clock.
    case rendition(file: String, variant: String, reason: String)
    /// The write to `file` was cancelled (its task was); nothing was left at the path.
    case cancelled(file: String)

    public var description: String {
        switch self {
        case .fileNotFound(let file):
            return "\(file): no such file"
        case .io(let file, let operation, let reason):
            return "\(file): cannot \(operation): \(reason)"
        case .notMP4(let file, let reason):
            return "\(file): not an MP4 file: \(reason)"
        case .malformed(let file, let path, let offset, let reason):
            return "\(file): malformed MP4 at \(path.isEmpty ? "top level" : path) (byte \(offset)): \(reason)"
        case .unsupported(let file, let path, let offset, let reason):
            return "\(file): unsupported MP4 at \(path.isEmpty ? "top level" : path) (byte \(offset)): \(reason)"
        case .malformedStream(let file, let offset, let reason):
            return "\(file): malformed MPEG-TS at byte \(offset) (packet \(offset / 188 + 1)): \(reason)"
        case .unsupportedStream(let file, let offset, let reason):
            return "\(file): unsupported MPEG-TS at byte \(offset) (packet \(offset / 188 + 1)): \(reason)"
        case .codecMismatch(let track, let codec, let file, let otherCodec, let otherFile):
            return "\(file) has \(track) in \(codec), \(otherFile) in \(otherCodec): one track cannot mix codecs"
        case .formatMismatch(let track, let format, let file, let otherFormat, let otherFile):
            return "\(file) has \(track) in \(format), \(otherFile) in \(otherFormat): a web-safe MP4 keeps one format per track "
                + "(browsers stop where it changes). Stitch them as HLS, which changes format between segments, or cut on "
                + "keyframes without the web-safe format"
        case .displayMismatch(let file, let display, let otherFile, let otherDisplay):
            return "\(file) shows its video \(display), \(otherFile) \(otherDisplay): one MP4 video track is shown one way, "
                + "so one of them would play turned. Re-encode one to match the other, or stitch them as HLS with fMP4 "
                + "segments, where each source keeps its own"
        case .invalidPiece(let index, let file, let reason):
            return "piece \(index) (\(file)): \(reason)"
        case .missingOutputFolder(let path):
            return "\(path): output folder does not exist"
        case .timeOverflow(let file, let reason):
            return "\(file): time overflow: \(reason)"
        case .rendition(let file, let variant, let reason):
            return "\(file): the audio rendition of \(variant): \(reason)"
        case .cancelled(let file):
            return "\(file): cancelled; nothing was written"
        }
    }

    /// The file the error is about (for `codecMismatch`, `formatMismatch` and `displayMismatch`,
    /// the second of the two).
    public var file: String {
        switch self {
        case .fileNotFound(let file), .io(let file, _, _), .notMP4(let file, _),
             .malformed(let file, _, _, _), .unsupported(let file, _, _, _),
             .malformedStream(let file, _, _), .unsupportedStream(let file, _, _),
             .invalidPiece(_, let file, _), .timeOverflow(let file, _), .rendition(let file, _, _), .cancelled(let file):
            return file
        case .codecMismatch(_, _, _, _, let otherFile), .formatMismatch(_, _, _, _, let otherFile),
             .displayMismatch(_, _, let otherFile, _): return otherFile
        case .missingOutputFolder(let path): return path
        }
    }
}

extension WireFailure {
    /// This failure in the MP4 layer's terms: the file and the box path it was found in.
    func error(file: String, boxPath: String) -> MP4Error {
        switch kind {
        case .malformed: return .malformed(file: file, boxPath: boxPath, offset: offset, reason: reason)
        case .unsupported, .limitExceeded: return .unsupported(file: file, boxPath: boxPath, offset: offset, reason: reason)
        }
    }
}

extension MP4Error {
    /// Whether the write was cancelled (`.cancelled`), which async callers report as `CancellationError`.
    package var isCancellation: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// A file error in this layer's terms.
    package init(_ error: FileError) {
        switch error.reason {
        case .notFound: self = .fileNotFound(file: error.path.description)
        case .missingParentFolder(let parent): self = .missingOutputFolder(path: parent.description)
        case .notFolder, .holdsOtherFiles, .foreignManifest:
            self = .io(file: error.path.description, operation: "write", reason: error.reasonText)
        case .notRegularFile(let kind): self = .io(file: error.path.description, operation: "read", reason: "\(kind), not a regular file")
        case .truncated(let needed, let got, let offset):
            self = .malformed(file: error.path.description, boxPath: "", offset: offset,
                              reason: "needed \(needed) bytes, the file ends after \(got)")
        case .tooLarge(let bytes, let limit):
            self = .io(file: error.path.description, operation: "read", reason: "\(bytes) bytes, more than the limit of \(limit)")
        case .system(let operation, let message): self = .io(file: error.path.description, operation: operation, reason: message)
        case .invalidPath(let why): self = .io(file: error.path.description, operation: "open", reason: why)
        case .changed: self = .io(file: error.path.description, operation: "copy samples", reason: error.reasonText)
        case .cannotReplace, .isAnInput:
            self = .io(file: error.path.description, operation: "write the stitched file", reason: error.reasonText)
        }
    }
}

/// `body`'s file errors in this layer's terms.
func mp4Errors<T>(_ body: () throws(FileError) -> T) throws(MP4Error) -> T {
    do { return try body() } catch { throw MP4Error(error) }
}

extension ReadableFile {
    /// `read(at:count:)` with a short file reported as malformed MP4.
    package func readBytes(at offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        try mp4Errors { () throws(FileError) in try read(at: offset, count: count) }
    }

    /// `read(at:count:into:)` with a short file reported as malformed MP4.
    package func readBytes(at offset: UInt64, count: Int, into bytes: inout [UInt8]) throws(MP4Error) {
        try mp4Errors { () throws(FileError) in try read(at: offset, count: count, into: &bytes) }
    }
}

extension MP4Error {
    /// The same error with each file name found in `names` replaced by what it maps to: a remote
    /// source is read through a local spool file, and is named to the user by its URL.
    package func renamingFiles(_ names: [String: String]) -> MP4Error {
        guard !names.isEmpty else { return self }
        func name(_ file: String) -> String { names[file] ?? file }
        switch self {
        case .fileNotFound(let file): return .fileNotFound(file: name(file))
        case .io(let file, let operation, let reason): return .io(file: name(file), operation: operation, reason: reason)
        case .notMP4(let file, let reason): return .notMP4(file: name(file), reason: reason)
        case .malformed(let file, let boxPath, let offset, let reason):
            return .malformed(file: name(file), boxPath: boxPath, offset: offset, reason: reason)
        case .unsupported(let file, let boxPath, let offset, let reason):
            return .unsupported(file: name(file), boxPath: boxPath, offset: offset, reason: reason)
        case .malformedStream(let file, let offset, let reason): return .malformedStream(file: name(file), offset: offset, reason: reason)
        case .unsupportedStream(let file, let offset, let reason): return .unsupportedStream(file: name(file), offset: offset, reason: reason)
        case .codecMismatch(let track, let codec, let file, let otherCodec, let otherFile):
            return .codecMismatch(track: track, codec: codec, file: name(file), otherCodec: otherCodec, otherFile: name(otherFile))
        case .formatMismatch(let track, let format, let file, let otherFormat, let otherFile):
            return .formatMismatch(track: track, format: format, file: name(file), otherFormat: otherFormat, otherFile: name(otherFile))
        case .displayMismatch(let file, let display, let otherFile, let otherDisplay):
            return .displayMismatch(file: name(file), display: display, otherFile: name(otherFile), otherDisplay: otherDisplay)
        case .invalidPiece(let index, let file, let reason): return .invalidPiece(index: index, file: name(file), reason: reason)
        case .missingOutputFolder: return self
        case .timeOverflow(let file, let reason): return .timeOverflow(file: name(file), reason: reason)
        case .rendition(let file, let variant, let reason): return .rendition(file: name(file), variant: variant, reason: reason)
        case .cancelled(let file): return .cancelled(file: name(file))
        }
    }
}
