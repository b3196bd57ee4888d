import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// Renders compositions into one stitched MP4 (samples copied, never re-encoded). Sources are MP4
/// files (plain or fragmented) and local HLS playlists of MPEG-TS segments (H.264 and AAC) or of
/// fragmented MP4 segments (of a multivariant playlist, the variant named or the highest-bandwidth
/// one, with its audio rendition when its audio is separate), mixed freely.
///
/// With `.keyframeAligned` cuts the stitcher moves cuts to keyframes; the composition returned is
/// the one that really plays, so mapping stays exact for the output.
public enum MP4Exporter {
    /// The plan and output composition, without writing anything.
    ///
    /// - Parameters:
    ///   - composition: The composition to render.
    ///   - cut: How cuts are made (sample-accurate by default).
    /// - Returns: The plan, the composition as asked and the composition the output would play.
    /// - Throws: `MP4ExportError`: a source that cannot be read or stitched, a cut that snapping empties.
    public static func plan(_ composition: Composition, cut: MP4CutMode = .sampleAccurate) throws(MP4ExportError) -> MP4Export {
        try plan(composition, with: MP4Stitcher(pieces: try pieces(of: composition).pieces, cutMode: cut))
    }

    private static func plan(_ composition: Composition, with stitcher: MP4Stitcher) throws(MP4ExportError) -> MP4Export {
        let plan: MP4StitchPlan
        do { plan = try stitcher.plan() } catch { throw MP4ExportError(.mp4(error)) }
        do {
            let reconciled = try ReconciledComposition(
                requested: composition, playedSourceRanges: plan.pieces.map(\.sourceRange), placedRanges: plan.pieces.map(\.compositionRange))
            return MP4Export(plan: plan, reconciled: reconciled)
        } catch {
            switch error {
            case .snapping(let error): throw MP4ExportError(.snapping(error))
            case .placedElsewhere(let piece, let item, let placed, let composition):
                throw MP4ExportError(.planDisagrees(piece: piece, item: item, plan: placed, composition: composition))
            }
        }
    }

    /// Plans and writes `composition` to `outputPath` atomically (nothing is left behind on failure).
    ///
    /// `outputPath` must be a new name or a regular file that is none of the sources (through any
    /// link); anything else is refused before any work. A source that changes while it is read
    /// (replaced, resized or modified) fails the render.
    ///
    /// - Parameters:
    ///   - composition: What to render.
    ///   - outputPath: Where the MP4 goes.
    ///   - cut: Where pieces may start and end (`.sampleAccurate` keeps every cut as scheduled).
    ///   - progress: Called as the bytes are written, on the calling thread.
    /// - Returns: The plan written and the composition of the output.
    /// - Throws: `MP4ExportError`, naming the item, file and box or byte.
    @discardableResult
    public static func render(
        _ composition: Composition, to outputPath: FilePath, cut: MP4CutMode = .sampleAccurate,
        progress: (MP4StitchProgress) -> Void = { _ in }
    ) throws(MP4ExportError) -> MP4Export {
        try render(composition, to: outputPath, cut: cut, progress: progress, isCancelled: { false })
    }

    /// `render(_:to:cut:progress:)` off the caller's thread, stopping when its task is cancelled.
    ///
    /// ```swift
    /// let task = Task { try await MP4Exporter.render(composition, to: "show.mp4") { print($0.fraction) } }
    /// task.cancel()   // the write stops within a few MiB; nothing is left at show.mp4
    /// ```
    ///
    /// - Parameters:
    ///   - composition: What to render.
    ///   - outputPath: Where the MP4 goes.
    ///   - cut: Where pieces may start and end.
    ///   - progress: Called as the bytes are written, on the rendering thread.
    /// - Returns: The plan written and the composition of the output.
    /// - Throws: `CancellationError` when the task was cancelled (the output is not written), else
    ///   a `MP4ExportError`.
    @discardableResult
    public static func render(
        _ composition: Composition, to outputPath: FilePath, cut: MP4CutMode = .sampleAccurate,
        progress: @escaping @Sendable (MP4StitchProgress) -> Void = { _ in }
    ) async throws -> MP4Export {
        let result = await runCancellable { (isCancelled) throws(MP4ExportError) in
            try render(composition, to: outputPath, cut: cut, progress: progress, isCancelled: isCancelled)
        }
        switch result {
        case .success(let rendered): return rendered
        case .failure(let error) where error.mp4Error?.isCancellation == true: throw CancellationError()
        case .failure(let error): throw error
        }
    }

    /// `render(_:to:cut:progress:)` of a composition whose sources `catalog` loaded: local files
    /// and remote URLs alike. A remote MP4 is read by ranges (the samples the output copies,
    /// fetched ahead, several requests at a time); a remote playlist's segments are fetched as
    /// the render reads them. The output is byte for byte the one the same files on disk give.
    ///
    /// ```swift
    /// let catalog = try await SourceCatalog.load(schedule)
    /// let composition = try Composition.loading(schedule, catalog: catalog)
    /// try await MP4Exporter.render(composition, catalog: catalog, to: "show.mp4")
    /// ```
    ///
    /// - Parameters:
    ///   - composition: What to render.
    ///   - catalog: Its sources, loaded.
    ///   - outputPath: Where the MP4 goes.
    ///   - cut: Where pieces may start and end.
    ///   - progress: Called as the bytes are written, on the rendering thread.
    /// - Returns: The plan written and the composition of the output.
    /// - Throws: `CancellationError` when the task was cancelled (the output is not written), else
    ///   a `MP4ExportError`: `.transport` for a remote source that could not be fetched (nothing is
    ///   written then either).
    @discardableResult
    public static func render(
        _ composition: Composition, catalog: SourceCatalog, to outputPath: FilePath, cut: MP4CutMode = .sampleAccurate,
        progress: @escaping @Sendable (MP4StitchProgress) -> Void = { _ in }
    ) async throws -> MP4Export {
        let result = await runCancellable { (isCancelled) throws(MP4ExportError) in
            try render(composition, catalog: catalog, to: outputPath, cut: cut, progress: progress, isCancelled: isCancelled)
        }
        switch result {
        case .success(let rendered): return rendered
        case .failure(let error) where error.mp4Error?.isCancellation == true: throw CancellationError()
        case .failure(let error): throw error
        }
    }

    private static func render(
        _ composition: Composition, catalog: SourceCatalog? = nil, to outputPath: FilePath, cut: MP4CutMode,
        progress: (MP4StitchProgress) -> Void, isCancelled: () -> Bool
    ) throws(MP4ExportError) -> MP4Export {
        let reads = RemoteReads(catalog)
        do throws(MP4ExportError) {
            let (pieces, inputs) = try pieces(of: composition, reads: reads)
            // Before any work: an output that is a source, a device or a folder is refused now, not
            // after the whole file is written.
            do { try OutputDestination.check(outputPath, inputs: inputs) } catch { throw MP4ExportError(.mp4(MP4Error(error))) }
            var stitcher = MP4Stitcher(pieces: pieces, cutMode: cut)
            stitcher.movies = reads.movies
            stitcher.names = reads.names
            let rendered = try plan(composition, with: stitcher)
            // Remote samples: the small copies fetched now, the rest as the output takes them (a
            // fetch that fails leaves no output either way).
            let copies = rendered.plan.copiedFileRanges
            try reads.fetchAhead(copies.read)
            let stream = reads.stream(copies.streamed)
            defer { stream?.finish() }
            do {
                try stitcher.write(rendered.plan, to: outputPath, progress: progress, isCancelled: isCancelled)
            } catch {
                throw MP4ExportError(.mp4(error))
            }
            return rendered
        } catch {
            throw reads.inUserTerms(error)
        }
    }

    /// The stitcher's pieces, and every file they read. Each source is probed (an MP4, or a
    /// playlist whose segments are resolved) once, however many pieces play it.
    private static func pieces(of composition: Composition, reads: RemoteReads = RemoteReads(nil)) throws(MP4ExportError) -> (pieces: [MP4StitchPiece], inputs: [FilePath]) {
        var playlists = HLSRenderSources(remote: reads)
        var sources: [MediaLocation: MP4StitchPiece.Source] = [:]
        var inputs: [FilePath] = []
        var pieces: [MP4StitchPiece] = []
        for segment in composition.segments {
            if sources[segment.source] == nil {
                guard let path = reads.readPath(of: segment.source) else {
                    throw MP4ExportError(.remoteSource(item: segment.id, segment.source, loadFailure: reads.loadFailure(of: segment.source)))
                }
                let source: MP4StitchPiece.Source
                if reads.isPlaylist(segment.source) {
                    do throws(HLSExportError) {
                        source = try playlists.source(segment.source)
                    } catch {
                        throw MP4ExportError(.playlist(item: segment.id, error))
                    }
                } else {
                    source = .mp4(path)
                }
                sources[segment.source] = source
                inputs += source.files
            }
            if let source = sources[segment.source] { pieces.append(MP4StitchPiece(source: source, range: segment.sourceRange)) }
        }
        return (pieces, inputs)
    }
}

/// What a render produced: the plan written, and the composition as scheduled and as the
/// output plays it.
public struct MP4Export: Sendable {
    package let plan: MP4StitchPlan
    /// The composition as scheduled and as the output plays it, with the mapping between them
    /// (`playedTime(forRequestedTime:)` and its inverse), which a player of the file uses.
    public let reconciled: ReconciledComposition
    /// The composition as scheduled (exact cuts): what was given to render.
    public var requested: Composition { reconciled.requested }
    /// The composition of the output: equal to `requested` for `.sampleAccurate`; the snapped
    /// timeline for `.keyframeAligned` and `.webSafe`.
    public var composition: Composition { reconciled.played }
    /// What may not play as expected: a profile hardware decoders lack, sources that differ in
    /// picture size or frame rate. Worth showing the user; the file is valid either way.
    public var diagnostics: [MP4StitchDiagnostic] { plan.diagnostics }
}

/// Why a render failed: the MP4 layer's error (file, box path, byte offset), a cut that snapping
/// emptied, a plan that disagrees with the timeline, or a source that could not be read.
///
/// Match on `cause`, which stays as it is while new causes are added:
///
/// ```swift
/// do { try MP4Exporter.render(composition, to: "out.mp4") }
/// catch where error.cause == .mp4 { print(error.mp4Error?.description ?? "\(error)") }
/// ```
public struct MP4ExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong. New causes may be added: a `switch` over them needs a `default`.
    public struct Cause: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable { case mp4, snapping, planDisagrees, remoteSource, transport, playlist }
        fileprivate let code: Code

        /// A source could not be read or stitched, or the output written: the MP4 layer's error
        /// names the file, box path and byte offset (`mp4Error`).
        public static let mp4 = Cause(code: .mp4)
        /// The snapped cuts do not make a valid timeline (`scheduleError`).
        public static let snapping = Cause(code: .snapping)
        /// The output can place a piece only elsewhere than its timeline says (`item`).
        public static let planDisagrees = Cause(code: .planDisagrees)
        /// A remote source no `SourceCatalog` loaded (`item`): none was given, or its load failed
        /// (the failure, with its URL and cause, is in the description).
        public static let remoteSource = Cause(code: .remoteSource)
        /// A remote source could not be fetched while rendering (`transportError`).
        public static let transport = Cause(code: .transport)
        /// An HLS source's playlist cannot be rendered (`item`, `playlistError`).
        public static let playlist = Cause(code: .playlist)

        public var description: String { code.rawValue }
    }

    /// Every error, with what it names: how the export builds them, and what tests match.
    package enum Detail: Equatable, Sendable, CustomStringConvertible {
        case mp4(MP4Error)
        /// The snapped cuts do not make a valid timeline (a range emptied by snapping, say).
        case snapping(ScheduleError)
        /// The stitcher placed a piece elsewhere than the composition of its actual ranges does.
        case planDisagrees(piece: Int, item: String, plan: MediaTimeRange, composition: MediaTimeRange)
        /// A remote source no `SourceCatalog` loaded: none was given, or the catalog's load of it
        /// failed (`loadFailure`, which says why).
        case remoteSource(item: String, MediaLocation, loadFailure: SourceProbeError?)
        /// A remote source that could not be fetched while rendering.
        case transport(HTTPTransportError)
        /// An HLS source whose playlist cannot be rendered: unreadable, malformed, or valid but
        /// unsupported (live, encrypted, a change of init section).
        case playlist(item: String, HLSExportError)

        package var description: String {
            switch self {
            case .mp4(let error): return error.description
            case .snapping(let error): return "after snapping cuts to keyframes: \(error)"
            case .planDisagrees(let piece, let item, let plan, let composition):
                // The plan's times are whole ticks of the output movie's timescale (never reduced),
                // so a range like [0, 0) is only true in those ticks: say which, and why.
                let scale = plan.start.timescale
                let why = composition.duration < MediaTime(value: 1, timescale: scale)
                    ? "it lasts \(composition.duration) s, less than one tick of the output's timescale (1/\(scale) s)"
                    : "its boundaries are not whole ticks of the output's timescale (1/\(scale) s)"
                return "piece \(piece + 1) (\(quoted(item))) is at \(composition) s by its timeline, but the output can only place it "
                    + "at \(plan) s: \(why)"
            case .remoteSource(let item, let location, let failure?):
                return "\(quoted(item)) (\(location.displayDescription)) could not be loaded: \(failure)"
            case .remoteSource(let item, let location, nil):
                return "\(quoted(item)) (\(location.displayDescription)): a remote source is rendered from a SourceCatalog that loaded it "
                    + "(render(_:catalog:to:))"
            case .transport(let error): return error.description
            case .playlist(let item, let error):
                return "\(quoted(item)): \(error)"
            }
        }
    }

    package let detail: Detail

    package init(_ detail: Detail) { self.detail = detail }

    /// What went wrong.
    public var cause: Cause {
        switch detail {
        case .mp4: return .mp4
        case .snapping: return .snapping
        case .planDisagrees: return .planDisagrees
        case .remoteSource: return .remoteSource
        case .transport: return .transport
        case .playlist: return .playlist
        }
    }

    /// The schedule item concerned, when one is.
    public var item: String? {
        switch detail {
        case .planDisagrees(_, let item, _, _), .remoteSource(let item, _, _), .playlist(let item, _): return item
        case .mp4, .snapping, .transport: return nil
        }
    }

    /// The MP4 layer's error: file, box path, byte offset (`.mp4`).
    public var mp4Error: MP4Error? {
        guard case .mp4(let error) = detail else { return nil }
        return error
    }

    /// The timeline's own error (`.snapping`).
    public var scheduleError: ScheduleError? {
        guard case .snapping(let error) = detail else { return nil }
        return error
    }

    /// The transport's error: the URL and what happened (`.transport`).
    public var transportError: HTTPTransportError? {
        guard case .transport(let error) = detail else { return nil }
        return error
    }

    /// The HLS export's error about the playlist (`.playlist`).
    public var playlistError: HLSExportError? {
        guard case .playlist(_, let error) = detail else { return nil }
        return error
    }

    public var description: String { detail.description }
}
