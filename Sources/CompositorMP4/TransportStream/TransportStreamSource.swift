import CompositorCore

/// An HLS media playlist's MPEG-2 transport stream segments, as local files in playlist order:
/// what an HLS source is to the MP4 layer. The caller reads the playlist; this layer reads the
/// segments.
package struct TransportStreamSource: Sendable, Hashable {
    package struct Segment: Sendable, Hashable {
        package var path: FilePath
        /// The bytes of the file that hold the segment (`EXT-X-BYTERANGE`); `nil` for all of it.
        package var byteRange: Range<UInt64>?
        /// The segment's `EXTINF`.
        package var duration: MediaTime
        /// `EXT-X-DISCONTINUITY` precedes it: its timestamps start afresh, and it starts at the sum
        /// of the `EXTINF`s before it.
        package var discontinuity: Bool

        package init(path: FilePath, byteRange: Range<UInt64>? = nil, duration: MediaTime, discontinuity: Bool = false) {
            self.path = path
            self.byteRange = byteRange
            self.duration = duration
            self.discontinuity = discontinuity
        }
    }

    /// The playlist, for messages and as the source's name.
    package var playlist: FilePath
    package var segments: [Segment]

    package init(playlist: FilePath, segments: [Segment]) {
        self.playlist = playlist
        self.segments = segments
    }

    /// By the playlist and its length only: a stitch looks a source up once per piece, and
    /// hashing every segment each time would cost pieces x segments. Equal sources still compare
    /// in full (in one step when they share their segments' storage, as the pieces of one do).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(playlist)
        hasher.combine(segments.count)
    }
}
