import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// What `HLSExporter` produced: the playlists to write, the composition that plays in
/// them, and the exact-cut queue plan of the same schedule.
public struct HLSExport: Sendable, Equatable {
    /// The composition as scheduled and as the stitched playlists play it, with the mapping
    /// between them (`playedTime(forRequestedTime:)` and its inverse), which a player of the
    /// playlists uses.
    public let reconciled: ReconciledComposition
    /// The composition as scheduled (exact cuts).
    public var requested: Composition { reconciled.requested }
    /// The composition that plays in the stitched playlists: every cut where it snapped, so
    /// `timeline` and mapping on it are exact for the output.
    public var composition: Composition { reconciled.played }
    /// The scheduled composition as a queue of per-segment items, as `AVQueuePlayer` plays HLS
    /// sources: cuts exact (a seek and `forwardPlaybackEndTime`), not snapped.
    public let queuePlan: QueuePlan
    /// One stitched media playlist per variant of the content (one when the content is a media playlist).
    package let variants: [HLSStitchedVariantPlaylist]
    /// One stitched media playlist per audio and subtitle rendition of the content
    /// (`stitched-audio-0.m3u8`, `stitched-subtitles-0.m3u8`, …), listed by `EXT-X-MEDIA` in the
    /// multivariant playlist; empty when the content has no renditions of its own.
    package let renditions: [HLSStitchedVariantPlaylist]
    /// The multivariant playlist listing `variants`, when the content is a multivariant playlist.
    package let multivariantPlaylist: HLSMultivariantPlaylist?
    /// The other files the playlists need: what the breaks play from when they are interstitials
    /// (ad playlists, asset lists), and the empty WebVTT segment subtitles show while a source
    /// without subtitles plays.
    package let assets: [File]
    /// The MP4 sources packaged into segments beside the playlists, which `write` writes.
    package let packagedSources: [HLSPackagedSource]
    /// When every piece is packaged, the stitched playlist's segments, in play order.
    package var placedSegments: [HLSPlacedSegment] = []
    /// The breaks as interstitials, in play order; empty when the ads are stitched into the playlists.
    package let interstitialEvents: [HLSInterstitialEvent]
    /// Where the main playlist lives (absolute when a relative path was given).
    public let outputURL: String

    /// Every file to write, the one at `outputURL` first.
    public var files: [File] {
        let playlists = (variants + renditions).map { File(url: $0.url, text: $0.result.text) }
        guard let multivariantPlaylist else { return playlists + assets }
        return [File(url: outputURL, text: multivariantPlaylist.text)] + playlists + assets
    }

    /// Writes every playlist (and `extraFiles`, such as a queue plan) into `folder`, which appears
    /// whole or not at all: all is written into a new folder beside it that then takes its place in
    /// one step. An existing `folder` is replaced only when it is empty or holds exactly what an
    /// earlier write listed in its manifest (`.compositor-output`); a folder holding anything else
    /// (a user's `timeline.json`, a subfolder) is refused, untouched.
    ///
    /// The segments of packaged MP4 sources are written too, each read from its source now
    /// (sources that changed since the stitch are refused).
    ///
    /// - Parameters:
    ///   - folder: The output folder: new, empty, or holding an earlier write.
    ///   - extraFiles: More files to write beside the playlists (none by default), each under the
    ///     last path component of its `url`.
    ///   - progress: Called after each file is written, on the calling thread.
    /// - Throws: `HLSExportError.cannotWrite` for a folder that cannot be written or holds
    ///   other files, or the error of a packaged source that cannot be read or changed.
    public func write(
        into folder: FilePath, extraFiles: [File] = [], progress: (HLSWriteProgress) -> Void = { _ in }
    ) throws(HLSExportError) {
        try write(into: folder, extraFiles: extraFiles, progress: progress, isCancelled: { false })
    }

    /// `write(into:extraFiles:progress:)` off the caller's thread, stopping when its task is
    /// cancelled: then nothing of the new folder is left, and a previous one stays as it was.
    ///
    /// - Parameters:
    ///   - folder: The output folder: new, empty, or holding an earlier write.
    ///   - extraFiles: More files to write beside the playlists.
    ///   - progress: Called after each file is written, on the writing thread.
    /// - Throws: `CancellationError` when the task was cancelled, else an `HLSExportError`.
    public func write(
        into folder: FilePath, extraFiles: [File] = [], progress: @escaping @Sendable (HLSWriteProgress) -> Void = { _ in }
    ) async throws {
        switch await writeCancellably(into: folder, extraFiles: extraFiles, progress: progress) {
        case .success: return
        case .failure(let error) where error.cause == .cancelled: throw CancellationError()
        case .failure(let error): throw error
        }
    }

    /// The async write with its typed error (`.cancelled` when its task was), for callers that
    /// keep `HLSExportError`.
    package func writeCancellably(
        into folder: FilePath, extraFiles: [File] = [], progress: @escaping @Sendable (HLSWriteProgress) -> Void = { _ in }
    ) async -> Result<Void, HLSExportError> {
        await runCancellable { (isCancelled) throws(HLSExportError) in
            try write(into: folder, extraFiles: extraFiles, progress: progress, isCancelled: isCancelled)
        }
    }

    private func write(
        into folder: FilePath, extraFiles: [File], progress: (HLSWriteProgress) -> Void, isCancelled: () -> Bool
    ) throws(HLSExportError) {
        let all = files + extraFiles
        let draft: AtomicOutputFolder.Draft
        let initSegments = Set(placedSegments.map(\.source)).sorted().compactMap { packagedSources[$0].initSegmentName }
        let names = all.map(\.name) + packagedSources.flatMap(\.fileNames) + initSegments + placedSegments.map(\.name)
        var written = 0
        // Every file counts once; a draft not committed is removed when it goes away.
        func step() throws(HLSExportError) {
            written += 1
            progress(HLSWriteProgress(filesWritten: written, totalFiles: names.count))
            if isCancelled() { throw HLSExportError(.cancelled(folder: folder)) }
        }
        do {
            draft = try AtomicOutputFolder.Draft(folder, names: names)
            for file in all { try draft.write(Array(file.text.utf8), name: file.name) }
        } catch {
            throw Self.cannotWrite(folder, error)
        }
        for _ in all.indices { try step() }
        for source in packagedSources { try source.write(into: draft, afterEachFile: step) }
        try HLSPackagedSource.write(placedSegments, of: packagedSources, into: draft, afterEachFile: step)
        do { try draft.commit() } catch { throw Self.cannotWrite(folder, error) }
    }

    private static func cannotWrite(_ folder: FilePath, _ error: FileError) -> HLSExportError {
        guard case .holdsOtherFiles(let names) = error.reason else { return HLSExportError(.cannotWrite(folder: folder, reason: error.reasonText)) }
        return HLSExportError(.cannotWrite(folder: folder, reason: "holds files a previous stitch did not write (\(error.listed(names))); "
            + "give a new or empty folder, or one a previous stitch wrote"))
    }

    /// Each break, where it was scheduled and where it plays.
    package var breaks: [HLSBreakPlacement] {
        reconciled.breaks.map { asked, plays in
            HLSBreakPlacement(
                id: plays.id, requestedPosition: asked.position, position: plays.position,
                requestedCompositionRange: asked.compositionRange, compositionRange: plays.compositionRange)
        }
    }
}

/// One stitched media playlist.
package struct HLSStitchedVariantPlaylist: Sendable, Equatable {
    /// Where it lives: `outputURL`, or beside it (`stitched-0.m3u8`) under a multivariant playlist.
    package let url: String
    /// The content variant it was made from; `nil` when the content is a media playlist.
    package let contentVariant: HLSVariantStream?
    /// The variants chosen from the other multivariant sources (ads nearest in bandwidth).
    package let interstitialVariants: [HLSVariantStream]
    /// For each composition segment, the media playlist its segments come from.
    package let sourcePlaylistURLs: [String]
    /// The engine's result: the playlist, its text, and where each piece and marker landed.
    package let result: HLSStitchResult
}

extension HLSExport {
    /// A playlist to write.
    public struct File: Sendable, Equatable {
        public let url: String
        public let text: String

        /// Creates a file to write.
        ///
        /// - Parameters:
        ///   - url: Where it lives; its last path component is its name in the output folder.
        ///   - text: Its contents.
        public init(url: String, text: String) {
            self.url = url
            self.text = text
        }

        /// The last segment of `url`'s path: the file's name in the output folder.
        public var name: String {
            let path = URIReference(parsing: url).path
            return String(path.split(separator: "/").last ?? Substring(path))
        }
    }
}

/// A break as scheduled and as it plays in the stitched output.
package struct HLSBreakPlacement: Sendable, Equatable {
    package let id: String
    /// The content time the schedule put it at.
    package let requestedPosition: MediaTime
    /// The content time it plays at: the segment boundary the cut before it snapped to.
    package let position: MediaTime
    package let requestedCompositionRange: MediaTimeRange
    package let compositionRange: MediaTimeRange

    /// Whether snapping moved it.
    package var moved: Bool { requestedPosition != position || requestedCompositionRange != compositionRange }
}

/// How far writing a stitched folder has got, for a progress display.
public struct HLSWriteProgress: Sendable, Equatable {
    /// Files written so far (playlists, segments, init segments).
    public let filesWritten: Int
    /// Files the folder will hold.
    public let totalFiles: Int
    /// 0...1.
    public var fraction: Double { totalFiles == 0 ? 1 : Double(filesWritten) / Double(totalFiles) }
}
