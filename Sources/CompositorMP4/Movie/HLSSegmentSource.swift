import CompositorCore
import CompositorIO

/// An HLS media playlist's segments, as local files in playlist order: what an HLS source is to
/// the MP4 layer. The caller reads the playlist; this layer reads the segments.
package struct HLSSegmentSource: Sendable, Hashable {
    /// Bytes of a file: all of it, or the range a playlist's `BYTERANGE` names.
    package struct FileBytes: Sendable, Hashable {
        package var path: FilePath
        /// `nil` for the whole file.
        package var byteRange: Range<UInt64>?

        package init(path: FilePath, byteRange: Range<UInt64>? = nil) {
            self.path = path
            self.byteRange = byteRange
        }
    }

    /// What the segments are.
    package enum Container: Sendable, Hashable {
        /// MPEG-2 transport stream.
        case transportStream
        /// Fragmented MP4: `moof` and `mdat` boxes, decoded with the `moov` of this init
        /// section (`EXT-X-MAP`) until a segment names a new one.
        case fragmentedMP4(initSection: FileBytes)
    }

    package struct Segment: Sendable, Hashable {
        package var file: FileBytes
        /// The segment's `EXTINF`.
        package var duration: MediaTime
        /// `EXT-X-DISCONTINUITY` precedes it: its timestamps start afresh.
        package var discontinuity: Bool
        /// The init section (`EXT-X-MAP`) it is decoded with when it changes from the segment
        /// before's; `nil` while it does not, and for MPEG-TS.
        package var newInitSection: FileBytes?

        package var path: FilePath { file.path }
        package var byteRange: Range<UInt64>? { file.byteRange }

        package init(path: FilePath, byteRange: Range<UInt64>? = nil, duration: MediaTime, discontinuity: Bool = false,
                     newInitSection: FileBytes? = nil) {
            self.file = FileBytes(path: path, byteRange: byteRange)
            self.duration = duration
            self.discontinuity = discontinuity
            self.newInitSection = newInitSection
        }
    }

    /// The playlist, for messages and as the source's name.
    package var playlist: FilePath
    package var container: Container
    package var segments: [Segment]

    package init(playlist: FilePath, container: Container = .transportStream, segments: [Segment]) {
        self.playlist = playlist
        self.container = container
        self.segments = segments
    }

    /// Every file it reads: the playlist, the init sections, the segments.
    package var files: [FilePath] {
        var files = [playlist]
        if case .fragmentedMP4(let initSection) = container { files.append(initSection.path) }
        return files + segments.compactMap(\.newInitSection?.path) + segments.map(\.path)
    }

    /// By the playlist and its length only: a stitch looks a source up once per piece, and
    /// hashing every segment each time would cost pieces x segments. Equal sources still compare
    /// in full (in one step when they share their segments' storage, as the pieces of one do).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(playlist)
        hasher.combine(segments.count)
    }
}

extension HLSSegmentSource.FileBytes {
    /// The file, opened (and checked to be `version` when one is given), and the bytes of it
    /// named; a byte range past the file's end is `malformed(offset, reason)`, in the terms of
    /// what the file holds.
    func open(expecting version: FileVersion? = nil,
              malformed: (_ offset: UInt64, _ reason: String) -> MP4Error) throws(MP4Error) -> (file: ReadableFile, bytes: Range<UInt64>) {
        let file = try mp4Errors { () throws(FileError) in
            if let version { return try ReadableFile(path: path, expecting: version) }
            return try ReadableFile(path: path)
        }
        let bytes = byteRange ?? 0..<file.size
        guard bytes.upperBound <= file.size else {
            throw malformed(file.size, "the playlist's byte range \(bytes.lowerBound)..<\(bytes.upperBound) runs past the file's end")
        }
        return (file, bytes)
    }
}
