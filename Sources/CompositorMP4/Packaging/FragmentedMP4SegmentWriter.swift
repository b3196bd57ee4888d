import CompositorCore
import CompositorIO

/// Writes the init segment and media segments of a fragmented MP4 (CMAF-style) packaging.
///
/// The init segment (`ftyp`, `moov` with each track's sample entry exactly as the source has it,
/// no samples, `mvex`) is followed by one `moof` + `mdat` per segment: each track's samples of
/// the segment as one run, durations, sizes, sync flags and composition offsets copied from the
/// source. On the source's clock, decode times are the source's, moved so that presentation 0
/// falls on a whole second (0, unless priming or B-frames decode earlier), the same second for
/// every track; on the composition's clock (`SegmentPlacement`), so that presentation is
/// composition time, and sequence numbers continue the stream's. Written `only` one kind of
/// track (a DASH representation's), the tracks' times are what they are muxed, and audio frames
/// that end before the source's presentation starts (encoder priming) are left out: a
/// representation's first segment then starts where its period does, not a frame before it,
/// where GStreamer's DASH demuxers find no segment (and the AAC decoder's first frame, without
/// its priming, only fades in over its 23 ms); video decodes from its first picture's
/// presentation (`Track.reorder`). A video-only source that `fillsAudioWithSilence` gets a silent
/// AAC track (`SilentAudioFragments`) in its muxed segments, frame `k` of it presenting from
/// `k` x 1,024 samples after the start of the piece (of the source, on its own clock). Muxed, a
/// kind of track may be written in a timescale every piece of the stream shares
/// (`MP4Packaging.fragmentTimescales`), its times scaled by a whole factor; placed, the video may
/// decode earlier than its source has it (`SegmentPlacement.addedDecodeDelay`), its composition
/// offsets as much longer.
package struct FragmentedMP4SegmentWriter: MP4SegmentWriter {
    private struct Track {
        let timeline: SourceTrackTimeline
        let trackID: UInt32
        /// Written ticks per source tick: the stream's shared timescale over the track's own
        /// (`MP4Packaging.fragmentTimescales`), 1 where it keeps its own.
        let scale: Int64
        /// Written ticks that turn a decode time, scaled, into presentation time (the track's
        /// presentation start less its first media time).
        let zero: Int64
        /// Written ticks added to every decode time, scaled, on the source's clock.
        let shift: Int64
        /// Ticks added to every decode time and hidden again by an edit list (video written
        /// alone: its first picture's composition offset), so that a segment's decode time is
        /// when its first picture presents, where video.js takes a segment to start (from
        /// `tfdt`). Presentation times and composition offsets do not change: ffmpeg's DASH
        /// muxer writes the same edit list.
        var reorder: Int64 = 0
        var reader: PackagingSampleReader

        /// Its timescale as written.
        var timescale: Int32 { Int32(clamping: Int64(timeline.timescale) * scale) }
    }

    /// The silent track beside the video (`MP4Packaging.fillsAudioWithSilence`).
    private struct Silence {
        let trackID: UInt32
        let description: MP4SampleDescription
        let frame: [UInt8]
        /// Written ticks per sample of its 48 kHz (the stream's shared audio timescale over it).
        let scale: Int64

        /// Its timescale as written.
        var timescale: Int32 { Int32(clamping: Int64(SilentAudioFragments.sampleRate) * scale) }
    }

    /// A segment's silent frames: the first's decode time and how many.
    private struct SilentRun {
        let silence: Silence
        let decodeTime: UInt64
        let count: Int
        var bytes: Int { silence.frame.count * count }
    }

    let packaging: MP4Packaging
    private var tracks: [Track]
    private let silence: Silence?
    /// Whole seconds added to presentation times on the source's clock.
    private let sourceBase: Int64
    /// Whether audio frames that end before the presentation starts are left out (one track written).
    private let leavesOutPriming: Bool

    init(_ packaging: MP4Packaging, only kind: TrackKind? = nil) throws(MP4Error) {
        let name = packaging.path.description
        self.packaging = packaging
        let timelines = [packaging.video, packaging.audio].compactMap { $0 }
        // Each track's presentation 0 in its own ticks, less its first decode time: how far the
        // earliest decode is before presentation 0.
        var earliest = MediaTime.zero
        var starts: [Int64] = []
        for timeline in timelines {
            do {
                let start = try timeline.presentationStart.converted(to: timeline.timescale, rounding: .toNearestOrAwayFromZero).value
                let (zero, overflow) = start.subtractingReportingOverflow(timeline.mediaStart)
                guard !overflow else { throw MediaTimeError.overflow("\(start) - \(timeline.mediaStart)") }
                let first = try MediaTime(value: timeline.samples.decodeTimes[0], timescale: timeline.timescale)
                    .adding(MediaTime(value: zero, timescale: timeline.timescale))
                earliest = MediaTime.min(earliest, first)
                starts.append(zero)
            } catch {
                throw .timeOverflow(file: name, reason: "\(timeline.track.boxPath) decode times: \(error)")
            }
        }
        let base = -earliest.wholeSeconds(rounding: .down)
        // One source opened: each track's reader keeps its own segment of an HLS source open.
        let reader = try packaging.sampleReader()
        var tracks: [Track] = []
        for (timeline, zero) in zip(timelines, starts) where kind == nil || timeline.track.kind == kind {
            // The shared timescale is for muxed segments; a track written alone keeps its own.
            let scale = kind == nil ? Self.scale(to: timeline.track.kind.flatMap { packaging.fragmentTimescales[$0] }, from: timeline.timescale) : 1
            let (baseTicks, o1) = base.multipliedReportingOverflow(by: Int64(timeline.timescale) * scale)
            let (scaledZero, o2) = zero.multipliedReportingOverflow(by: scale)
            let (shift, o3) = baseTicks.addingReportingOverflow(scaledZero)
            guard !o1, !o2, !o3 else { throw .timeOverflow(file: name, reason: "\(timeline.track.boxPath) decode times past the 64-bit range") }
            var track = Track(timeline: timeline, trackID: UInt32(tracks.count + 1), scale: scale, zero: scaledZero, shift: shift, reader: reader)
            if kind == .video, !timeline.samples.decodeTimes.isEmpty {
                track.reorder = max(0, timeline.samples.compositionOffset(0))
            }
            tracks.append(track)
        }
        self.tracks = tracks
        if kind == nil, packaging.writesSilence, let description = SilentAudioFragments.description {
            silence = Silence(trackID: UInt32(tracks.count + 1), description: description, frame: SilentAudioFragments.frame,
                              scale: Self.scale(to: packaging.fragmentTimescales[.audio], from: SilentAudioFragments.sampleRate))
        } else {
            silence = nil
        }
        sourceBase = base
        leavesOutPriming = kind != nil
    }

    /// Ticks of `shared` per tick of `own`: 1 without a shared timescale or where it is not a
    /// whole multiple of `own` (`MP4Packaging.sharingFragmentTimescales(_:)` makes it one).
    private static func scale(to shared: Int32?, from own: Int32) -> Int64 {
        guard let shared, own > 0, shared % own == 0 else { return 1 }
        return Int64(shared / own)
    }

    /// `ftyp` and `moov`: the tracks and their sample entries, no samples.
    package func initSegment() -> [UInt8]? {
        let silent = silence.map {
            InitTrack(trackID: $0.trackID, isVideo: false, timescale: $0.timescale, description: $0.description)
        }
        return Self.initSegment(tracks.map { track in
            let source = track.timeline.track
            return InitTrack(trackID: track.trackID, isVideo: source.kind == .video, timescale: track.timescale,
                             description: source.sampleDescriptions[0], matrix: source.displayMatrix,
                             hiddenStart: track.reorder * track.scale)
        } + (silent.map { [$0] } ?? []))
    }

    /// What an init segment says of one track.
    struct InitTrack {
        let trackID: UInt32
        let isVideo: Bool
        let timescale: Int32
        let description: MP4SampleDescription
        var matrix: DisplayMatrix = .identity
        /// Ticks of composition time an edit list hides before the presentation (none when 0).
        var hiddenStart: Int64 = 0
    }

    /// `ftyp` and `moov` of `tracks`, no samples, with `mvex`.
    static func initSegment(_ tracks: [InitTrack]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(fileTypeBox())
        writer.writeBox("moov") { moov in
            moov.write(box: MovieHeaderBox(timescale: 1000, duration: 0, nextTrackID: UInt32(tracks.count + 1)))
            for track in tracks { writeTrack(track, to: &moov) }
            moov.writeBox("mvex") { mvex in
                for track in tracks { mvex.write(box: TrackExtendsBox(trackID: track.trackID)) }
            }
        }
        return writer.bytes
    }

    /// `ftyp` of the init segment: ISO base media (`iso6`), compatible with CMAF (`cmfc`) and `mp41`.
    static func fileTypeBox() -> [UInt8] {
        ByteWriter.bytes { writer in
            writer.writeBox("ftyp") { ftyp in
                ftyp.write(FourCC("iso6"))
                ftyp.write(UInt32(0))
                for brand: FourCC in ["iso6", "cmfc", "mp41"] { ftyp.write(brand) }
            }
        }
    }

    private static func writeTrack(_ track: InitTrack, to writer: inout ByteWriter) {
        let (isVideo, description) = (track.isVideo, track.description)
        writer.writeBox("trak") { trak in
            trak.write(box: TrackHeaderBox(
                trackID: track.trackID, duration: 0, volume: isVideo ? 0 : 0x0100, matrix: track.matrix,
                width: UInt32(isVideo ? description.width ?? 0 : 0) << 16, height: UInt32(isVideo ? description.height ?? 0 : 0) << 16))
            if track.hiddenStart > 0 {
                // Duration 0: the edit lasts as long as the fragments do (ISO/IEC 14496-12, 8.6.6).
                trak.writeBox("edts") { $0.write(box: EditListBox(entries: [MP4EditListEntry(segmentDuration: 0, mediaTime: track.hiddenStart)])) }
            }
            trak.writeBox("mdia") { mdia in
                mdia.write(box: MediaHeaderBox(timescale: UInt32(track.timescale), duration: 0))
                mdia.write(box: HandlerBox(handlerType: isVideo ? "vide" : "soun", name: isVideo ? "VideoHandler" : "SoundHandler"))
                mdia.writeBox("minf") { minf in
                    minf.writeMediaInformationHeaders(isVideo: isVideo)
                    minf.writeBox("stbl") { stbl in
                        stbl.writeBox(SampleDescriptionBox.type) { SampleDescriptionBox(entries: [description]).writePayload(to: &$0) }
                        stbl.write(box: TimeToSampleBox(durations: []))
                        stbl.write(box: SampleToChunkBox(chunks: []))
                        stbl.write(box: SampleSizeBox(sampleSizes: []))
                        stbl.writeBox(ChunkOffsetBox.type) { ChunkOffsetBox(offsets: []).writePayload(to: &$0, wide: false) }
                    }
                }
            }
        }
    }

    package func checkUnchanged() throws(MP4Error) {
        for track in tracks { try track.reader.checkUnchanged() }
    }

    /// Segment `index` on the source's clock: `moof` (sequence number `index + 1`) and `mdat`.
    package mutating func segment(_ index: Int, into out: inout OutputBytes) throws(MP4Error) {
        let silent = try silentFrames(of: index, within: nil, origin: .zero, offset: MediaTime(seconds: sourceBase))
        try write(index, runs: sourceClockRuns(index), shifts: tracks.map(\.shift), silent: silent,
                  sequenceNumber: UInt32(truncatingIfNeeded: index + 1), into: &out)
    }

    /// Segment `index` on the composition's clock, numbered after the stream's segments before it;
    /// the audio frames `placement`'s piece holds.
    package mutating func segment(_ index: Int, placedAt placement: SegmentPlacement, continuing stream: inout PackagedStream,
                                  into out: inout OutputBytes) throws(MP4Error) {
        let (runs, shifts) = try placed(index, at: placement)
        let offset: MediaTime
        do { offset = try placement.offset() } catch {
            throw .timeOverflow(file: packaging.path.description, reason: "segment \(index + 1) placed at \(placement.compositionStart): \(error)")
        }
        let silent = try silentFrames(of: index, within: placement.piece, origin: placement.piece.start, offset: offset)
        // The video's decode times move earlier by the added delay, its composition offsets grow
        // by as much: its pictures present where they did.
        var lead: Int64 = 0
        if let video = tracks.first(where: { $0.timeline.track.kind == .video }) {
            do { lead = try placement.addedDecodeDelay.converted(to: video.timescale, rounding: .toNearestOrAwayFromZero).value } catch {
                throw .timeOverflow(file: packaging.path.description, reason: "segment \(index + 1)'s added decode delay: \(error)")
            }
        }
        try write(index, runs: runs, shifts: shifts, videoLead: lead, silent: silent, sequenceNumber: stream.nextSequenceNumber, into: &out)
        stream.nextSequenceNumber &+= 1
    }

    /// The silent frames of segment `index` (none without `silence`): those of a grid of frames
    /// from `origin` (source presentation time) that start in the segment, within `piece`; the
    /// first's decode time, `offset` added (what turns source time into the written clock's).
    private func silentFrames(of index: Int, within piece: MediaTimeRange?, origin: MediaTime,
                              offset: MediaTime) throws(MP4Error) -> SilentRun? {
        guard let silence else { return nil }
        do {
            guard let (first, count) = try packaging.silentFrames(ofSegment: index, within: piece, origin: origin) else { return nil }
            let ticks = try origin.adding(offset).converted(to: silence.timescale, rounding: .toNearestOrAwayFromZero).value
            let (firstSample, overflow1) = first.multipliedReportingOverflow(by: Int64(SilentAudioFragments.samplesPerFrame) * silence.scale)
            let (decodeTime, overflow2) = ticks.addingReportingOverflow(firstSample)
            guard !overflow1, !overflow2, decodeTime >= 0 else { throw MediaTimeError.overflow("\(ticks) + \(first) frames") }
            return SilentRun(silence: silence, decodeTime: UInt64(decodeTime), count: count)
        } catch {
            throw .timeOverflow(file: packaging.path.description, reason: "the silence of segment \(index + 1): \(error)")
        }
    }

    /// Where segment `index`, placed by `placement` (on the source's clock without one), presents
    /// in each track written: in the track's ticks, its samples' earliest presentation time and
    /// their total duration (what a DASH `SegmentTimeline`'s `S@t` and `S@d` say). A track with
    /// no samples in it is left out.
    package func presentation(ofSegment index: Int, placedAt placement: SegmentPlacement? = nil) throws(MP4Error) -> [SegmentPresentation] {
        let (runs, shifts): ([Range<Int>], [Int64])
        if let placement {
            (runs, shifts) = try placed(index, at: placement)
        } else {
            (runs, shifts) = (sourceClockRuns(index), tracks.map(\.shift))
        }
        var found: [SegmentPresentation] = []
        for ((track, run), shift) in zip(zip(tracks, runs), shifts) where !run.isEmpty {
            let samples = track.timeline.samples
            let earliest = run.map { samples.decodeTimes[$0] + samples.compositionOffset($0) }.min() ?? 0
            let duration = samples.durations[run].reduce(Int64(0)) { $0 + Int64($1) }
            let (scaled, overflow1) = earliest.multipliedReportingOverflow(by: track.scale)
            let (start, overflow2) = scaled.addingReportingOverflow(shift)
            let (scaledDuration, overflow3) = duration.multipliedReportingOverflow(by: track.scale)
            guard !overflow1, !overflow2, !overflow3, start >= 0 else {
                throw .timeOverflow(file: packaging.path.description, reason: "segment \(index + 1) does not fit a fragment's fields")
            }
            let bytes = samples.sizes[run].reduce(0) { $0 + Int($1) }
            found.append(SegmentPresentation(
                kind: track.timeline.track.kind == .audio ? .audio : .video, timescale: track.timescale,
                start: start, duration: scaledDuration, bytes: bytes))
        }
        return found
    }

    /// Each track's samples of segment `index` on the source's clock.
    private func sourceClockRuns(_ index: Int) -> [Range<Int>] {
        let segment = packaging.segments[index]
        return tracks.map { track in
            guard track.timeline.track.kind == .audio else { return segment.video }
            guard leavesOutPriming else { return segment.audio }
            // Priming: frames whose media time ends where the edit list starts the presentation, or before.
            let samples = track.timeline.samples
            var first = segment.audio.lowerBound
            while first < segment.audio.upperBound,
                  samples.decodeTimes[first] + samples.compositionOffset(first) + Int64(samples.durations[first]) <= track.timeline.mediaStart {
                first += 1
            }
            return first..<segment.audio.upperBound
        }
    }

    /// Each track's samples of segment `index` and what moves their decode times, placed by `placement`.
    private func placed(_ index: Int, at placement: SegmentPlacement) throws(MP4Error) -> (runs: [Range<Int>], shifts: [Int64]) {
        let segment = packaging.segments[index]
        let name = packaging.path.description
        var runs: [Range<Int>] = []
        var shifts: [Int64] = []
        for track in tracks {
            let timeline = track.timeline
            do {
                let offset = try placement.offset().converted(to: track.timescale, rounding: .toNearestOrAwayFromZero).value
                let (shift, overflow) = track.zero.addingReportingOverflow(offset)
                guard !overflow else { throw MediaTimeError.overflow("\(track.zero) + \(offset)") }
                shifts.append(shift)
            } catch {
                throw .timeOverflow(file: name, reason: "segment \(index + 1) placed at \(placement.compositionStart): \(error)")
            }
            runs.append(timeline.track.kind == .audio ? try packaging.audioFrames(ofSegment: index, heldBy: placement) : segment.video)
        }
        return (runs, shifts)
    }

    /// The most bytes of consecutive samples read in one call: 16 MiB.
    private static let longestRead = 16 << 20

    /// `moof` and `mdat` of each track's samples `runs`, their decode times scaled and `shifts`
    /// (written ticks) added, the video's decode times `videoLead` ticks earlier and its
    /// composition offsets as much longer; and `silent` frames of the silent track.
    private mutating func write(_ index: Int, runs: [Range<Int>], shifts: [Int64], videoLead: Int64 = 0, silent: SilentRun?,
                                sequenceNumber: UInt32, into out: inout OutputBytes) throws(MP4Error) {
        func moof(dataStart: Int) throws(MP4Error) -> [UInt8] {
            var writer = ByteWriter()
            var dataOffset = dataStart
            var failure: MP4Error?
            writer.writeBox("moof") { moof in
                moof.write(box: MovieFragmentHeaderBox(sequenceNumber: sequenceNumber))
                for ((track, run), shift) in zip(zip(tracks, runs), shifts) where !run.isEmpty {
                    let samples = track.timeline.samples
                    let lead = track.timeline.track.kind == .video ? videoLead : 0
                    let (decodeTime, overflow1) = samples.decodeTimes[run.lowerBound].addingReportingOverflow(track.reorder)
                    let (scaled, overflow2) = decodeTime.multipliedReportingOverflow(by: track.scale)
                    let (moved, overflow3) = shift.subtractingReportingOverflow(lead)
                    let (written, overflow4) = scaled.addingReportingOverflow(moved)
                    // A duration scaled stays under 2^63 (both factors under 2^32); it must fit 32 bits.
                    let durations = samples.durations[run].compactMap { UInt32(exactly: UInt64($0) * UInt64(track.scale)) }
                    guard !overflow1, !overflow2, !overflow3, !overflow4, written >= 0, durations.count == run.count,
                          let offset = Int32(exactly: dataOffset) else {
                        failure = .timeOverflow(file: packaging.path.description, reason: "segment \(index + 1) does not fit a fragment's fields")
                        return
                    }
                    moof.writeBox("traf") { traf in
                        traf.write(box: TrackFragmentHeaderBox(trackID: track.trackID))
                        traf.write(box: TrackFragmentDecodeTimeBox(baseMediaDecodeTime: UInt64(written)))
                        traf.write(box: TrackFragmentRunBox(
                            sampleCount: UInt32(run.count), dataOffset: offset,
                            durations: durations, sizes: Array(samples.sizes[run]),
                            flags: run.map { samples.isSync($0) ? TrackFragmentRunBox.syncSampleFlags : TrackFragmentRunBox.nonSyncSampleFlags },
                            compositionOffsets: track.timeline.track.kind == .video
                                ? run.map { Int32(clamping: samples.compositionOffset($0) * track.scale + lead) } : nil))
                    }
                    dataOffset += samples.sizes[run].reduce(0) { $0 + Int($1) }
                }
                if let silent {
                    guard let offset = Int32(exactly: dataOffset) else {
                        failure = .timeOverflow(file: packaging.path.description, reason: "segment \(index + 1) does not fit a fragment's fields")
                        return
                    }
                    SilentAudioFragments.writeTrackFragment(
                        trackID: silent.silence.trackID, decodeTime: silent.decodeTime, count: silent.count,
                        frameDuration: UInt32(SilentAudioFragments.samplesPerFrame) * UInt32(silent.silence.scale),
                        frameSize: silent.silence.frame.count, dataOffset: offset, to: &moof)
                }
            }
            if let failure { throw failure }
            return writer.bytes
        }
        // The moof's size does not depend on the offsets in it: measure it, then write it for real.
        let payload = (silent?.bytes ?? 0) + zip(tracks, runs).reduce(0) { total, pair in total + pair.0.timeline.samples.sizes[pair.1].reduce(0) { $0 + Int($1) } }
        let mdatHeaderSize = payload + 8 <= Int(UInt32.max) ? 8 : 16
        let measured = try moof(dataStart: 0).count
        let fragment = try moof(dataStart: measured + mdatHeaderSize)
        var header = ByteWriter()
        header.writeBoxHeader("mdat", payloadSize: UInt64(payload))
        out.removeAll()
        out.append(contentsOf: fragment)
        out.append(contentsOf: header.bytes)
        // Samples that follow each other in the source are read as one run, straight into the segment.
        for (position, run) in runs.enumerated() {
            let samples = tracks[position].timeline.samples
            var sample = run.lowerBound
            while sample < run.upperBound {
                let start = samples.offsets[sample]
                var count = Int(samples.sizes[sample])
                sample += 1
                while sample < run.upperBound, count < Self.longestRead, samples.offsets[sample] == start &+ UInt64(count) {
                    count += Int(samples.sizes[sample])
                    sample += 1
                }
                try tracks[position].reader.append(at: start, count: count, to: &out)
            }
        }
        if let silent {
            for _ in 0..<silent.count { out.append(contentsOf: silent.silence.frame) }
        }
    }
}

/// Where a segment presents in one track: its samples' earliest presentation time and their
/// total duration, in the track's ticks; and their bytes.
package struct SegmentPresentation: Sendable, Equatable {
    package let kind: TrackKind
    package let timescale: Int32
    package let start: Int64
    package let duration: Int64
    package let bytes: Int

    package init(kind: TrackKind, timescale: Int32, start: Int64, duration: Int64, bytes: Int) {
        (self.kind, self.timescale, self.start, self.duration, self.bytes) = (kind, timescale, start, duration, bytes)
    }
}
