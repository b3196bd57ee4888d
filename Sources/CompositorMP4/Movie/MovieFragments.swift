import CompositorCore

/// The samples of a fragmented movie (ISO/IEC 14496-12, 8.8), gathered from its movie fragments
/// in file order into the MP4 model's sample tables, and the edits that place its tracks.
///
/// - A value a `trun` does not give comes from its `tfhd`, else the track's `trex`. Data offsets
///   count from the `tfhd`'s base data offset, else the `moof` (`default-base-is-moof`, or the
///   first track fragment of a `moof`), else where the track fragment before ends.
/// - A fragment's samples decode from its `tfdt`; without one, where the track's samples before
///   end. A `tfdt` within half a sample of that end is taken as the end (jitter in the clock); a
///   later one lengthens the sample before (a gap); an earlier one is malformed.
/// - After an HLS discontinuity the times start afresh: the first fragment of each track continues
///   where the video before ends (the other tracks shifted alike, so they stay in sync), and
///   audio frames it repeats from before (the next encoding's priming) are left out.
/// - Presentation follows the `moov`'s edit lists on the `tfdt` timeline, as ffmpeg reads it; the
///   source's time 0 is then its earliest presentation (`Zero`), so a stream whose decode times
///   start at 100 s (as an HLS packager's often do) starts at 0. Tracks without samples are left out.
struct MovieFragments {
    /// Where a fragmented source's presentation starts.
    enum Zero {
        /// At its earliest video presentation (its earliest audio one without video): audio
        /// before it is encoder priming, hidden. How an HLS playlist's first `EXTINF` starts.
        case earliestVideo
        /// At the earliest presentation of any track: a file keeps all it presents.
        case earliestTrack
    }

    /// Where a run of fragments' bytes are: the file, the bytes of it they may use, and where those
    /// bytes start in the sample store's offsets.
    struct Placement {
        let file: String
        let bytes: Range<UInt64>
        let storeOffset: UInt64
    }

    fileprivate struct Track {
        let base: MP4Track
        /// The fragments' `trex` defaults, from the init section in effect.
        var defaults: TrackExtendsBox
        /// The track's ID in the fragments, by the init section in effect.
        var fragmentTrackID: UInt32
        /// The sample descriptions of every init section read, in order.
        var descriptions: [MP4SampleDescription]
        /// Where the descriptions of the init section in effect start among `descriptions`.
        var firstDescription = 0
        /// Added to the composition offsets of the init section in effect, so its samples present
        /// under the first init section's edit list.
        var compositionShift: Int64 = 0
        var offsets: [UInt64] = [], sizes: [UInt32] = [], decodeTimes: [Int64] = [], durations: [UInt32] = []
        var compositionOffsets: [Int32] = [], descriptionIndices: [UInt16] = [], syncFlags: [Bool] = []
        /// Added to the fragments' decode times: changes at a discontinuity and when a `tfdt`
        /// within jitter of the end is taken as the end.
        var shift: Int64 = 0
        /// How the next fragment starts afresh, after a discontinuity.
        var restart: Restart?

        var isVideo: Bool { base.kind == .video }
        var end: Int64? { decodeTimes.last.map { $0 + Int64(durations[durations.count - 1]) } }
    }

    fileprivate enum Restart {
        /// Where the track's samples end.
        case atEnd
        /// Where the video's shift puts it, in the track's ticks.
        case shifted(by: Int64)
    }

    private var tracks: [Track]
    /// The movie as its `moov` describes it.
    private let source: MP4Movie

    /// Starts from `movie` as its `moov` describes it (the samples in its `stbl`, if any, come
    /// first), with the `trex` defaults found in `mvex`.
    init(movie: MP4Movie, mvex: MP4Box) throws(MP4Error) {
        let defaults = try Self.trackDefaults(of: movie, mvex: mvex)
        source = movie
        tracks = []
        for (base, trex) in zip(movie.tracks, defaults) {
            var track = Track(base: base, defaults: trex, fragmentTrackID: base.trackID, descriptions: base.sampleDescriptions)
            let table = base.samples
            track.offsets = Array(table.offsets)
            track.sizes = table.sizes
            track.decodeTimes = Array(table.decodeTimes)
            track.durations = Array(table.durations)
            track.compositionOffsets = table.compositionOffsets.isEmpty ? [Int32](repeating: 0, count: table.count) : table.compositionOffsets
            track.descriptionIndices = Array(table.descriptionIndices)
            track.syncFlags = (0..<table.count).map(table.isSync)
            tracks.append(track)
        }
    }

    /// Each track's `trex`, in track order.
    private static func trackDefaults(of movie: MP4Movie, mvex: MP4Box) throws(MP4Error) -> [TrackExtendsBox] {
        let file = movie.path.description
        var defaults: [UInt32: TrackExtendsBox] = [:]
        for trex in mvex.children("trex") {
            let box = try trex.parse(TrackExtendsBox.self, file: file)
            defaults[box.trackID] = box
        }
        var result: [TrackExtendsBox] = []
        for base in movie.tracks {
            guard let trex = defaults[base.trackID] else {
                throw .malformed(file: file, boxPath: mvex.path, offset: mvex.header.offset,
                                 reason: "no trex for track \(base.trackID) (every track of a fragmented movie needs one)")
            }
            result.append(trex)
        }
        return result
    }

    /// Decodes the fragments after this with `movie`, a new init section (an HLS `EXT-X-MAP` that
    /// changes, as at an ad stitched into a stream): each of its tracks continues the first init
    /// section's track of its kind, its sample descriptions added to that track's. Refused, named:
    /// a track of a kind the first had not, another timescale (times would have to be rounded),
    /// or an edit list other than one media edit.
    mutating func switchInitSection(to movie: MP4Movie, mvex: MP4Box) throws(MP4Error) {
        let file = movie.path.description
        let defaults = try Self.trackDefaults(of: movie, mvex: mvex)
        for (base, trex) in zip(movie.tracks, defaults) {
            guard let kind = base.kind else { continue }
            func refused(_ reason: String) -> MP4Error { .unsupported(file: file, boxPath: base.boxPath, offset: base.boxOffset, reason: reason) }
            guard let index = tracks.firstIndex(where: { $0.base.kind == kind }) else {
                throw refused("a \(kind) track the first init section (EXT-X-MAP) of the playlist does not have")
            }
            let first = tracks[index].base
            guard base.timescale == first.timescale else {
                throw refused("\(kind) at \(base.timescale) ticks a second, the first init section's at \(first.timescale): one track has one timescale")
            }
            guard let start = Self.editStart(base), let firstStart = Self.editStart(first) else {
                throw refused("an edit list of more than one media edit; only one is read in an init section that changes")
            }
            tracks[index].defaults = trex
            tracks[index].fragmentTrackID = base.trackID
            tracks[index].firstDescription = tracks[index].descriptions.count
            tracks[index].descriptions += base.sampleDescriptions
            tracks[index].compositionShift = firstStart - start
        }
    }

    /// Where a track's one media edit starts in its media (0 without an edit list); `nil` for
    /// any other edit list.
    private static func editStart(_ track: MP4Track) -> Int64? {
        guard let edits = track.editList else { return 0 }
        let media = edits.filter { !$0.isEmpty }
        return media.count == 1 ? media[0].mediaTime : nil
    }

    /// Adds the samples of `moofs` (parsed, in file order), whose data is where `placement` says.
    /// `startsAfresh`: they follow an HLS discontinuity.
    mutating func add(_ moofs: [MP4Box], placement: Placement, startsAfresh: Bool, budget: inout MP4SampleBudget) throws(MP4Error) {
        if startsAfresh { try restart(before: moofs, file: placement.file) }
        for moof in moofs {
            // Where the data of the track fragment before ends: the base of the next one that
            // names none (ISO/IEC 14496-12, 8.8.7.1).
            var previousEnd: UInt64?
            for traf in moof.children("traf") {
                previousEnd = try add(traf, moof: moof, previousEnd: previousEnd, placement: placement, budget: &budget)
            }
        }
    }

    /// Sets each track to start afresh: by the shift that makes the video (or the first track with
    /// samples) continue where it ends, when these fragments give its decode time.
    private mutating func restart(before moofs: [MP4Box], file: String) throws(MP4Error) {
        guard let anchor = tracks.firstIndex(where: { $0.isVideo && $0.end != nil }) ?? tracks.firstIndex(where: { $0.end != nil }),
              let end = tracks[anchor].end else { return }
        var anchorTime: Int64?
        search: for moof in moofs {
            for traf in moof.children("traf") {
                let header = try traf.requiredChild("tfhd", file: file).parse(TrackFragmentHeaderBox.self, file: file)
                guard header.trackID == tracks[anchor].fragmentTrackID else { continue }
                if let tfdt = traf.child("tfdt") { anchorTime = try decodeTime(tfdt, file: file) }
                break search
            }
        }
        let anchorScale = tracks[anchor].base.timescale
        for index in tracks.indices where tracks[index].end != nil {
            guard let anchorTime else { tracks[index].restart = .atEnd; continue }
            do {
                let seconds = try MediaTime(value: end, timescale: anchorScale).subtracting(MediaTime(value: anchorTime, timescale: anchorScale))
                tracks[index].restart = .shifted(by: try seconds.converted(to: tracks[index].base.timescale, rounding: .toNearestOrAwayFromZero).value)
            } catch {
                throw .timeOverflow(file: file, reason: "the decode times after a discontinuity: \(error)")
            }
        }
    }

    /// Adds one track fragment's samples; returns where its data ends.
    private mutating func add(_ traf: MP4Box, moof: MP4Box, previousEnd: UInt64?, placement: Placement,
                              budget: inout MP4SampleBudget) throws(MP4Error) -> UInt64 {
        let file = placement.file
        func malformed(_ box: MP4Box, _ reason: String) -> MP4Error {
            .malformed(file: file, boxPath: box.path, offset: box.header.offset, reason: reason)
        }
        let tfhdBox = try traf.requiredChild("tfhd", file: file)
        let header = try tfhdBox.parse(TrackFragmentHeaderBox.self, file: file)
        guard let index = tracks.firstIndex(where: { $0.fragmentTrackID == header.trackID }) else {
            throw malformed(tfhdBox, "a fragment of track \(header.trackID), which the moov does not have")
        }
        let defaults = tracks[index].defaults
        let descriptionNumber = header.sampleDescriptionIndex ?? defaults.defaultSampleDescriptionIndex
        let descriptionCount = tracks[index].descriptions.count - tracks[index].firstDescription
        guard descriptionNumber >= 1, descriptionNumber <= UInt32(descriptionCount),
              let description = UInt16(exactly: tracks[index].firstDescription + Int(descriptionNumber) - 1) else {
            throw malformed(tfhdBox, "sample description \(descriptionNumber), the track's stsd has \(descriptionCount)")
        }
        let compositionShift = tracks[index].compositionShift
        let defaultDuration = header.defaultSampleDuration ?? defaults.defaultSampleDuration
        let defaultSize = header.defaultSampleSize ?? defaults.defaultSampleSize
        let defaultFlags = header.defaultSampleFlags ?? defaults.defaultSampleFlags
        let base = header.baseDataOffset ?? (header.defaultBaseIsMoof ? moof.header.offset : previousEnd ?? moof.header.offset)

        var (time, repeatedBefore) = try startTime(of: traf, track: index, file: file)

        var position = base
        for trunBox in traf.children("trun") {
            let run = try trunBox.parse(TrackFragmentRunBox.self, file: file)
            try budget.charge(Int(run.sampleCount), box: trunBox, file: file)
            if let dataOffset = run.dataOffset {
                let (start, overflow) = Int64(clamping: base).addingReportingOverflow(Int64(dataOffset))
                guard !overflow, start >= 0 else { throw malformed(trunBox, "data offset \(dataOffset) points before the file") }
                position = UInt64(start)
            }
            let count = Int(run.sampleCount)
            tracks[index].reserve(count)
            for sample in 0..<count {
                let size = run.sizes?[sample] ?? defaultSize
                let duration = run.durations?[sample] ?? defaultDuration
                let flags = sample == 0 ? run.firstSampleFlags ?? run.flags?[0] ?? defaultFlags : run.flags?[sample] ?? defaultFlags
                let given = Int64(run.compositionOffsets?[sample] ?? 0)
                guard let offset = Int32(exactly: given + compositionShift) else {
                    throw malformed(trunBox, "sample \(sample + 1)'s composition offset \(given) moved by \(compositionShift) ticks to the first init section's edit list")
                }
                guard position >= placement.bytes.lowerBound, position <= placement.bytes.upperBound,
                      UInt64(size) <= placement.bytes.upperBound - position else {
                    throw malformed(trunBox, "sample \(sample + 1) (\(size) bytes at byte \(position)) is outside the \(placement.bytes.upperBound - placement.bytes.lowerBound) bytes of the segment")
                }
                let sampleStart = position
                position += UInt64(size)
                let isSync = TrackFragmentRunBox.isSync(flags: flags)
                if let before = repeatedBefore {
                    // An audio frame most of which plays before the samples before end is a repeat.
                    if !tracks[index].isVideo, isSync, time <= before - Int64(duration) / 2 {
                        time += Int64(duration)  // below `before`: no overflow
                        continue
                    }
                    repeatedBefore = nil
                    time = try tracks[index].fit(time, file: file, box: traf, afresh: true)
                }
                tracks[index].append(offset: placement.storeOffset + (sampleStart - placement.bytes.lowerBound), size: size,
                                     decodeTime: time, duration: duration, compositionOffset: offset, description: description, isSync: isSync)
                let (next, overflow) = time.addingReportingOverflow(Int64(duration))
                guard !overflow else { throw malformed(trunBox, "decode times overflow 64 bits") }
                time = next
            }
        }
        return position
    }

    /// The decode time a track fragment's first sample is placed at: its `tfdt` (shifted), fitted
    /// to where the track's samples end. After a discontinuity it may be earlier than that end,
    /// returned as `repeatedBefore`: the frames before it repeat what was played.
    private mutating func startTime(of traf: MP4Box, track index: Int, file: String) throws(MP4Error) -> (time: Int64, repeatedBefore: Int64?) {
        let raw = try traf.child("tfdt").map { (box) throws(MP4Error) in try decodeTime(box, file: file) }
        let restart = tracks[index].restart
        tracks[index].restart = nil
        guard let end = tracks[index].end else { return (raw ?? 0, nil) }
        guard let raw else { return (end, nil) }
        switch restart {
        case .atEnd: tracks[index].shift = end - raw  // both >= 0: no overflow
        case .shifted(let shift): tracks[index].shift = shift
        case nil: break
        }
        let afresh = restart != nil
        let (time, overflow) = raw.addingReportingOverflow(tracks[index].shift)
        guard !overflow else {
            throw .timeOverflow(file: file, reason: "\(traf.path): decode time \(raw) shifted by \(tracks[index].shift)")
        }
        if afresh, time < end - Int64(tracks[index].durations.last ?? 0) / 2 { return (time, end) }
        return (try tracks[index].fit(time, file: file, box: traf, afresh: afresh), nil)
    }

    private func decodeTime(_ box: MP4Box, file: String) throws(MP4Error) -> Int64 {
        let value = try box.parse(TrackFragmentDecodeTimeBox.self, file: file).baseMediaDecodeTime
        guard let time = Int64(exactly: value) else {
            throw .unsupported(file: file, boxPath: box.path, offset: box.header.offset, reason: "decode time \(value) is past 2^63")
        }
        return time
    }

    /// The movie: the tracks with samples, their tables, and edits that place them (see `Zero`),
    /// and where its time 0 is on the `tfdt` timeline. `path` names it: the file, or the playlist
    /// whose segments these are.
    func movie(path: FilePath, store: MP4SampleStore, zero rule: Zero) throws(MP4Error) -> (MP4Movie, zero: MediaTime) {
        let file = source.path.description
        var spans: [(track: Track, span: Span)] = []
        for track in tracks where !track.sizes.isEmpty {
            spans.append((track, try Span(track, file: file)))
        }
        let starts = spans.filter { rule == .earliestTrack || $0.track.isVideo }.map(\.span.start)
        guard let zero = (starts.isEmpty ? spans.map(\.span.start) : starts).min() else {
            throw .malformed(file: file, boxPath: "", offset: 0, reason: "the movie fragments hold no samples")
        }
        // Edits count in a timescale every track's ticks fit, so a track that starts a few samples
        // of another track after the first one starts exactly there.
        let editScale = leastCommonMultiple(spans.map(\.track.base.timescale), limit: Int64(Int32.max))
        var result: [MP4Track] = []
        for (track, span) in spans {
            let base = track.base
            let first = track.decodeTimes[0]
            let scale = editScale ?? base.timescale
            let ticks = { (time: MediaTime, timescale: Int32) throws(MediaTimeError) -> Int64 in
                try time.converted(to: timescale, rounding: .toNearestOrAwayFromZero).value
            }
            var edits: [MP4EditListEntry] = []
            do {
                let lead = try span.start.subtracting(zero)
                let leadTicks = try ticks(lead, scale)
                var mediaTime = span.mediaStart - first
                if leadTicks > 0 {
                    edits.append(MP4EditListEntry(segmentDuration: UInt64(leadTicks), mediaTime: nil))
                } else if lead < .zero {
                    let (hidden, overflow) = mediaTime.addingReportingOverflow(try ticks(.zero - lead, base.timescale))
                    guard !overflow else { throw MediaTimeError.overflow("\(mediaTime) + \(lead)") }
                    mediaTime = hidden
                }
                let length = try ticks(try span.end.subtracting(MediaTime.max(span.start, zero)), scale)
                guard length > 0 else { continue }  // all of it before time 0
                edits.append(MP4EditListEntry(segmentDuration: UInt64(length), mediaTime: mediaTime))
            } catch {
                throw .timeOverflow(file: file, reason: "\(base.boxPath) presents out of range: \(error)")
            }
            let table = MP4SampleTable(
                offsets: track.offsets, sizes: track.sizes, decodeTimes: track.decodeTimes.map { $0 - first }, durations: track.durations,
                compositionOffsetPerSample: track.compositionOffsets, descriptionIndices: track.descriptionIndices,
                syncPerSample: track.syncFlags)
            result.append(MP4Track(
                trackID: base.trackID, kind: base.kind, handler: base.handler, isEnabled: base.isEnabled, displayMatrix: base.displayMatrix,
                timescale: base.timescale,
                mediaDuration: table.decodeEnd, movieTimescale: scale, editList: edits,
                sampleDescriptions: track.descriptions, samples: table, boxPath: base.boxPath, boxOffset: base.boxOffset,
                editListOffset: nil, gaplessInfo: nil))
        }
        let duration = result.map(\.presentationDuration).max() ?? .zero
        return (MP4Movie(path: path, store: store, timescale: source.timescale, duration: duration, tracks: result, gaplessInfo: nil), zero)
    }

    /// What a track presents, by its edit list (or without one its media as it is), on the
    /// movie's presentation timeline before time 0 is chosen.
    private struct Span {
        /// The first media (composition) time shown, in ticks on the `tfdt` timeline.
        let mediaStart: Int64
        let start: MediaTime
        let end: MediaTime

        init(_ track: Track, file: String) throws(MP4Error) {
            let base = track.base
            var earliest = Int64.max, latest = Int64.min
            for index in track.decodeTimes.indices {
                let (time, overflow) = track.decodeTimes[index].addingReportingOverflow(Int64(track.compositionOffsets[index]))
                let (end, endOverflow) = time.addingReportingOverflow(Int64(track.durations[index]))
                guard !overflow, !endOverflow, time >= track.decodeTimes[0] else {
                    throw .unsupported(file: file, boxPath: base.boxPath, offset: base.boxOffset,
                                       reason: "sample \(index + 1) presents at \(track.decodeTimes[index]) + \(track.compositionOffsets[index]) ticks, "
                                           + "before the track's first decode time or past 2^63")
                }
                earliest = min(earliest, time)
                latest = max(latest, end)
            }
            var empty: UInt64 = 0
            var media: MP4EditListEntry?
            for entry in base.editList ?? [] {
                if entry.isEmpty, media == nil {
                    empty &+= entry.segmentDuration
                } else if !entry.isEmpty, media == nil {
                    media = entry
                } else if !entry.isEmpty {
                    throw .unsupported(file: file, boxPath: base.boxPath + "/edts/elst", offset: base.editListOffset ?? base.boxOffset,
                                       reason: "an edit list with more than one media segment (only one is supported)")
                }
            }
            do {
                let scale = base.timescale
                if let media, let mediaTime = media.mediaTime {
                    mediaStart = max(mediaTime, earliest)
                    let lead = MediaTime(value: Int64(clamping: empty), timescale: base.movieTimescale)
                    start = try lead.adding(MediaTime(value: mediaStart - mediaTime, timescale: scale))
                    end = media.segmentDuration == 0
                        ? try start.adding(MediaTime(value: latest - mediaStart, timescale: scale))
                        : MediaTime.min(try lead.adding(MediaTime(value: Int64(clamping: media.segmentDuration), timescale: base.movieTimescale)),
                                        try start.adding(MediaTime(value: latest - mediaStart, timescale: scale)))
                } else {
                    mediaStart = earliest
                    start = MediaTime(value: earliest, timescale: scale)
                    end = MediaTime(value: latest, timescale: scale)
                }
            } catch {
                throw .timeOverflow(file: file, reason: "\(base.boxPath) presents out of range: \(error)")
            }
        }
    }
}

extension MovieFragments.Track {
    mutating func reserve(_ count: Int) {
        let total = sizes.count + count
        guard total > sizes.capacity else { return }
        offsets.reserveCapacity(total); sizes.reserveCapacity(total); decodeTimes.reserveCapacity(total)
        durations.reserveCapacity(total); compositionOffsets.reserveCapacity(total)
        descriptionIndices.reserveCapacity(total); syncFlags.reserveCapacity(total)
    }

    mutating func append(offset: UInt64, size: UInt32, decodeTime: Int64, duration: UInt32, compositionOffset: Int32,
                         description: UInt16, isSync: Bool) {
        offsets.append(offset); sizes.append(size); decodeTimes.append(decodeTime); durations.append(duration)
        compositionOffsets.append(compositionOffset); descriptionIndices.append(description); syncFlags.append(isSync)
    }

    /// Fits a fragment that would start at `time` to where the samples before end: taken as the
    /// end within half a sample (the shift absorbs the difference), a gap lengthens the sample
    /// before; earlier is malformed unless the fragment starts afresh.
    mutating func fit(_ time: Int64, file: String, box: MP4Box, afresh: Bool) throws(MP4Error) -> Int64 {
        guard let end else { return time }
        let last = durations.count - 1
        let (difference, overflow) = time.subtractingReportingOverflow(end)
        let (snapped, snapOverflow) = shift.subtractingReportingOverflow(difference)
        guard !overflow, !snapOverflow else {
            throw .timeOverflow(file: file, reason: "\(box.path): decode time \(time) against the end of the fragments before (\(end))")
        }
        if difference.magnitude <= UInt64(durations[last] / 2) || (afresh && difference < 0) {
            shift = snapped
            return end
        }
        if difference > 0 {
            guard let longer = UInt32(exactly: UInt64(durations[last]) + difference.magnitude) else {
                throw .unsupported(file: file, boxPath: box.path, offset: box.header.offset,
                                   reason: "a gap of \(difference) ticks before this fragment is longer than a sample can last")
            }
            durations[last] = longer
            return time
        }
        throw .malformed(file: file, boxPath: box.path, offset: box.header.offset,
                         reason: "the fragment decodes \(difference.magnitude) ticks before the track's fragments before end")
    }
}
