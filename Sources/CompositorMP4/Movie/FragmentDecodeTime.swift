import CompositorCore

/// Where a fragmented MP4 segment starts on its stream's clock: the `tfdt` of its first `moof`'s
/// video track fragment (of its first track fragment when no track is video), in seconds, by the
/// timescale its init section's `mdhd` gives that track.
///
/// What the live stitcher needs to put ads on the content's clock: a player that keeps the
/// fragments' decode times across a discontinuity (GStreamer's `hlsdemux2`) sees the stream go on
/// instead of jumping back to the ads' own times.
///
/// ```swift
/// let start = try FragmentDecodeTime.start(initSection: map, initName: "init.mp4", segment: bytes, segmentName: "seg12.m4s")
/// // 7203.2 s: tfdt 648288000 of the video track at 90 kHz
/// ```
package enum FragmentDecodeTime {
    /// - Parameters:
    ///   - initSection: The init section's bytes (`EXT-X-MAP`): `ftyp`, `moov`.
    ///   - initName: Names it in errors (its URL).
    ///   - segment: The segment's bytes: `styp`, `sidx`, … then `moof`, `mdat`.
    ///   - segmentName: Names it in errors.
    /// - Returns: The first fragment's decode time, in seconds.
    /// - Throws: `MP4Error.malformed` (with the box path and offset) when either is not what it
    ///   should be; `.unsupported` for a decode time past 2^63 or a timescale past 2^31.
    package static func start(initSection: [UInt8], initName: String, segment: [UInt8], segmentName: String) throws(MP4Error) -> MediaTime {
        let moov = try topLevel("moov", in: initSection, file: initName)
        var tracks: [UInt32: (timescale: Int32, isVideo: Bool)] = [:]
        for trak in moov.children("trak") {
            let id = try trak.requiredChild("tkhd", file: initName).parse(TrackHeaderBox.self, file: initName).trackID
            let mdia = try trak.requiredChild("mdia", file: initName)
            let mdhd = try mdia.requiredChild("mdhd", file: initName)
            let timescale = try mdhd.parse(MediaHeaderBox.self, file: initName).timescale
            guard timescale > 0, let ticks = Int32(exactly: timescale) else {
                throw .unsupported(file: initName, boxPath: mdhd.path, offset: mdhd.header.offset, reason: "timescale \(timescale): 1 to 2^31 - 1 is read")
            }
            let handler = try mdia.requiredChild("hdlr", file: initName).parse(HandlerBox.self, file: initName).handlerType
            tracks[id] = (ticks, handler == "vide")
        }
        let moof = try topLevel("moof", in: segment, file: segmentName)
        var first: MediaTime?
        for traf in moof.children("traf") {
            let tfhd = try traf.requiredChild("tfhd", file: segmentName)
            let id = try tfhd.parse(TrackFragmentHeaderBox.self, file: segmentName).trackID
            guard let track = tracks[id] else {
                throw .malformed(file: segmentName, boxPath: tfhd.path, offset: tfhd.header.offset, reason: "track \(id) is no track of the init section \(initName)")
            }
            let tfdt = try traf.requiredChild("tfdt", file: segmentName)
            let value = try tfdt.parse(TrackFragmentDecodeTimeBox.self, file: segmentName).baseMediaDecodeTime
            guard let ticks = Int64(exactly: value) else {
                throw .unsupported(file: segmentName, boxPath: tfdt.path, offset: tfdt.header.offset, reason: "decode time \(value) is past 2^63")
            }
            let time = MediaTime(value: ticks, timescale: track.timescale)
            if track.isVideo { return time }
            first = first ?? time
        }
        guard let first else {
            throw .malformed(file: segmentName, boxPath: "moof", offset: moof.header.offset, reason: "a movie fragment without track fragments")
        }
        return first
    }

    /// The first top-level box of `type` in `bytes`.
    private static func topLevel(_ type: FourCC, in bytes: [UInt8], file: String) throws(MP4Error) -> MP4Box {
        var reader = ByteReader(bytes)
        while !reader.isAtEnd {
            var peek = reader
            let header: MP4BoxHeader
            do { header = try MP4BoxHeader.read(from: &peek, available: UInt64(reader.remaining)) } catch { throw error.error(file: file, boxPath: "") }
            guard header.type == type else {
                do { try reader.skip(Int(header.size)) } catch { throw error.error(file: file, boxPath: header.type.description) }
                continue
            }
            return try MP4Box.read(from: &reader, parentPath: "", siblingIndex: nil, file: file)
        }
        throw .malformed(file: file, boxPath: "", offset: 0, reason: "no \(type) box in its \(bytes.count) bytes")
    }
}
