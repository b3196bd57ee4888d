import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// Fragmented MP4 ads on the live content's clock. Each break plays copies of its own of its MP4
/// ads' segments (`breaks/BREAK/K-NAME-N.m4s`, `K` the ad's place in the pod; their init
/// segments stay `ads/NAME-init.mp4`), written as they are
/// published, their decode times going on from the content's `tfdt` at the break's first replaced
/// segment (`contentClock`), plus their break time.
///
/// Why: a player that keeps fragments' decode times across a discontinuity (GStreamer 1.22's
/// `hlsdemux2`) sees ads packaged once, from time 0, as a jump back by the content's whole age;
/// its buffering level stays low through the break and the pipeline waits for it. On the
/// content's clock the break is the stream going on.
///
/// ```
/// content  tfdt | 7200 | 7202 | 7204 | 7206 |     CUE-OUT:DURATION=4 on the segment at 7202
/// stitched tfdt | 7200 |a 7202|a 7204| 7206 |     ad a's segments at 7202 + their break time
/// ```
///
/// The content comes back on its own clock, which the break's ads reach within what the stream
/// runs from it (`LiveBreak`). A break's files are removed once the content's window has moved a
/// whole window past the break (RFC 8216bis 6.2.2: a segment stays on the server a playlist's
/// duration after it leaves the playlist).
struct LiveAdClock {
    /// The MP4 ads packaged for the stream, by ad ID: the ones breaks get copies of.
    let sources: [String: HLSPackagedSource]
    /// Where `breaks/` is served, and where it is on disk.
    let location: HLSOutputLocation
    let folder: FilePath
    private var writers: [String: any MP4SegmentWriter] = [:]
    /// Files under `breaks/` written or found on disk so far.
    private var written: Set<String> = []
    /// Breaks whose folders are gone.
    private var removed: Set<String> = []

    /// - Parameters:
    ///   - sources: The MP4 ads, packaged, by ad ID.
    ///   - output: The output folder; `outputURL` the stitched playlist's URL in it.
    init(sources: [String: HLSPackagedSource], output: FilePath, outputURL: String) {
        self.sources = sources
        location = HLSOutputLocation(URIReference.resolve("breaks/breaks.m3u8", against: outputURL))
        folder = output.appending("breaks")
    }

    /// `pod` as break `breakID` plays it: each packaged ad's segments in the break's folder, the
    /// rest as they are (an HLS ad plays its own segments).
    func pod(_ pod: [LiveAd], breakID: String) -> [LiveAd] {
        guard !sources.isEmpty else { return pod }
        let folder = Self.folderName(breakID)
        return pod.enumerated().map { place, ad in
            guard sources[ad.id] != nil else { return ad }
            var copy = ad
            for index in copy.playlist.segments.indices {
                let name = "\(folder)/\(place)-\(copy.playlist.segments[index].uri)"
                copy.playlist.segments[index].uri = name
                copy.playlist.segments[index].resolvedURI = location.beside(name)
            }
            return copy
        }
    }

    /// A break's folder name: its ID with every byte but ASCII letters, digits and `-` as `_XX`
    /// (hex), so that no two IDs share one and none leaves `breaks/`.
    static func folderName(_ breakID: String) -> String {
        var name = ""
        for byte in breakID.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || character == "-" {
                name.append(character)
            } else {
                name += "_" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return name.isEmpty ? "_" : name
    }

    /// The content's clock at break `item`'s first replaced segment: that segment's decode time
    /// (`FragmentDecodeTime`), read from it and its init section through `transport`.
    ///
    /// - Throws: `LiveStitchingError.content` naming the segment when it is out of `content`'s
    ///   window, has no `EXT-X-MAP`, cannot be loaded or is not fragmented MP4.
    static func contentClock(
        at item: LiveBreak, in content: HLSMediaPlaylist, transport: any HTTPTransport, limits: HTTPTransportLimits
    ) async throws(LiveStitchingError) -> MediaTime {
        let first = content.mediaSequence ?? 0
        guard item.startSequence >= first, item.startSequence - first < UInt64(content.segments.count) else {
            throw LiveStitchingError(.content(url: content.url, reason: "segment \(item.startSequence), where break \(quoted(item.id)) starts, left the window before its decode time was read"))
        }
        let segment = content.segments[Int(item.startSequence - first)]
        guard let map = segment.map else {
            throw LiveStitchingError(.content(url: segment.resolvedURI, reason: "a fragmented MP4 segment without an init section (EXT-X-MAP)"))
        }
        func load(_ url: String, _ range: HLSByteRange?) async throws(LiveStitchingError) -> [UInt8] {
            var bytes: ClosedRange<UInt64>?
            if let range, range.length > 0 {
                let (last, overflow) = range.offset.addingReportingOverflow(range.length - 1)
                guard !overflow else { throw LiveStitchingError(.content(url: url, reason: "byte range \(range) past 2^64")) }
                bytes = range.offset...last
            }
            do { return try await LivePlaylistLoad.bytes(url, range: bytes, transport: transport, limits: limits).bytes } catch {
                throw LiveStitchingError(.content(url: error.url, reason: error.reason))
            }
        }
        let initSection = try await load(map.resolvedURI, map.byteRange)
        let bytes = try await load(segment.resolvedURI, segment.byteRange)
        do {
            return try FragmentDecodeTime.start(initSection: initSection, initName: map.resolvedURI, segment: bytes, segmentName: segment.resolvedURI)
        } catch {
            throw LiveStitchingError(.content(url: segment.resolvedURI, reason: error.description))
        }
    }

    /// Writes each published segment of `item` that is a packaged ad's and not yet on disk, on
    /// `clock` (the content's at the break's start; `nil`: on the ad's own clock).
    mutating func writeSegments(of item: LiveBreak, clock: MediaTime?) throws(LiveStitchingError) {
        let breakFolder = folder.appending(Self.folderName(item.id))
        var madeFolder = false
        for file in files(of: item, count: item.publishedCount, clock: clock) where !written.contains(file.name) {
            let path = folder.appending(file.name)
            if isRegularFile(path) {
                written.insert(file.name)
                continue
            }
            if !madeFolder {
                do {
                    try FilePath.makeFolder(folder)
                    try FilePath.makeFolder(breakFolder)
                } catch {
                    throw LiveStitchingError(.cannotWrite(path: breakFolder.description, reason: error.reasonText))
                }
                madeFolder = true
            }
            var bytes = OutputBytes()
            do throws(MP4Error) {
                var writer: any MP4SegmentWriter
                if let open = writers[file.source.item] { writer = open } else { writer = try file.source.packaging.segmentWriter() }
                if let placement = file.placement {
                    var stream = PackagedStream(nextSequenceNumber: file.sequenceNumber)
                    try writer.segment(file.index, placedAt: placement, continuing: &stream, into: &bytes)
                } else {
                    try writer.segment(file.index, into: &bytes)
                }
                writers[file.source.item] = writer
            } catch {
                throw LiveStitchingError(.ad(item: file.source.item, reason: "break \(quoted(item.id)): \(error.description)"))
            }
            do {
                let output = try AtomicOutputFile(path: path)
                try bytes.withUnsafeBytes { buffer in Result { () throws(FileError) in try output.write(buffer) } }.get()
                try output.commit()
            } catch {
                throw LiveStitchingError(.cannotWrite(path: path.description, reason: error.reasonText))
            }
            written.insert(file.name)
        }
    }

    /// Removes the folders of the breaks `content`'s window has moved a whole window past (their
    /// content came back before the window's first segment by at least its length).
    mutating func removeFolders(of breaks: [LiveBreak], before content: HLSMediaPlaylist) {
        let first = content.mediaSequence ?? 0
        let window = UInt64(content.segments.count)
        for item in breaks where !removed.contains(item.id) {
            guard let back = item.contentReturn, back.sequence <= first, first - back.sequence >= window else { continue }
            let names = files(of: item, count: item.placedCount, clock: nil).map(\.name)
            for name in names { written.remove(name) }
            removeRegularFiles(names.compactMap { $0.split(separator: "/").last.map(String.init) }, folder: folder.appending(Self.folderName(item.id)))
            removed.insert(item.id)
        }
    }

    /// A break's copy of a packaged ad's segment.
    private struct Copy {
        /// Its file under `breaks/`: the URI the break lists it by.
        let name: String
        /// The ad's packaging (its `item` is the ad's ID).
        let source: HLSPackagedSource
        /// The segment in the ad's packaging.
        let index: Int
        /// Its `mfhd` sequence number: its place in the break, from 1.
        let sequenceNumber: UInt32
        /// Where it goes on the content's clock; `nil`: on the ad's own.
        let placement: SegmentPlacement?
    }

    /// The copies of the first `count` ad segments of `item` that are packaged ads', placed on
    /// `clock`.
    ///
    /// An ad's segments in a break are its packaging's used segments, all but those a break
    /// joined under way skipped at the start. The ad is placed as one piece: its first segment
    /// in the break at `clock` plus that segment's break time.
    private func files(of item: LiveBreak, count: Int, clock: MediaTime?) -> [Copy] {
        var files: [Copy] = []
        var position = 0
        while position < min(count, item.adOfSegment.count) {
            let place = item.adOfSegment[position]
            var end = position
            while end < item.adOfSegment.count, item.adOfSegment[end] == place { end += 1 }
            let adID = item.adIDs[place]
            if let source = sources[adID], end - position <= source.usedSegments.count {
                let used = source.usedSegments.suffix(end - position)
                let segments = source.packaging.segments
                let (first, last) = (used[used.startIndex], used[used.endIndex - 1])
                let placement = clock.map { clock in
                    SegmentPlacement(
                        piece: MediaTimeRange(start: segments[first].range.start, end: segments[last].range.end),
                        compositionStart: item.adEnds[position] - item.adSegments[position].duration, clockStart: clock)
                }
                for (offset, index) in used.enumerated() where position + offset < count {
                    files.append(Copy(
                        name: item.adSegments[position + offset].uri, source: source, index: index,
                        sequenceNumber: UInt32(truncatingIfNeeded: position + offset + 1), placement: placement))
                }
            }
            position = end
        }
        return files
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
