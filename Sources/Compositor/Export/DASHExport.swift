import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// The schedule as a static multi-period MPEG-DASH presentation (`stitched.mpd`), as
/// `DASHExporter` makes it: one `Period` per piece of the reconciled composition, content or ad,
/// over fragmented MP4 (CMAF) segments made by passthrough.
///
/// Its packaging puts a segment boundary at every cut, so a period plays whole segments of its
/// source. Each source's tracks are packaged apart, once, on the source's own clock
/// (`NAME-video-init.mp4`, `NAME-video-N.m4s`, and `NAME-audio-…`), and every period that plays a
/// source lists the segments it plays with a `SegmentTemplate` and `SegmentTimeline`, its
/// `presentationTimeOffset` where the period starts in the source. A content clip split by breaks
/// so shares its segments across its periods, and a period that resumes it where the one before
/// left off says so (`period-continuity`).
///
/// ```
/// composition | content 0-10 | ad1 | ad2 | content 10-20 |
/// periods     | 1            | 2   | 3   | 4             |   4: continuity with 1 (content, at 10 s)
/// segments    content-video-0..4      content-video-5..9      one set, listed by both
/// ```
///
/// Each period has `AssetIdentifier` (the clip's or the ad's ID), one video and one audio
/// adaptation set (IDs 1 and 2 in every period, as players match them across periods; a piece
/// without audio among pieces with audio plays `SilentAudioFragments`), and
/// each content period that a break follows has an SCTE-35 `EventStream`
/// (`urn:scte:scte35:2013:xml`) with the values the HLS markers carry: a splice insert out of
/// network, its event ID the break's place (from 1), its break duration the break's length at
/// 90 kHz, at the period's end. (A pre-roll's goes at the start of its first ad period.)
///
/// A multivariant source gives each of its variants as a representation: its highest-bandwidth
/// one as `video` and `audio` (files `NAME-…`), each other as `video-NAME-vN` (files `NAME-vN-…`,
/// `N` the variant's place in its playlist), the same audio muxed in several variants once. The
/// first content clip's other audio renditions are audio adaptation sets 3, 4, … (`lang`, `Role`
/// `alternate`; set 2 is `main`), which each period fills with its source's rendition of the same
/// language or name, else its own audio. Its subtitle renditions are text adaptation sets (`lang`,
/// `Role` `subtitle`), a WebVTT file per period (`subtitles-N-P.vtt`) with the cues its source's
/// rendition of the same language or name shows during the piece, or none.
public struct DASHExport: Sendable {
    /// The MPD's file name in the output folder.
    public static let manifestName = "stitched.mpd"

    /// The composition as scheduled and as the periods play it.
    public let reconciled: ReconciledComposition
    /// The MPD's text.
    public let manifest: String
    /// Each packaged source's tracks (each variant's, of a multivariant source) and the segments the periods play of each.
    private let files: [SourceFiles]
    /// The silent audio of each period without audio of its own (numbered from 1), in frames.
    private let silences: [(period: Int, frames: Int)]
    /// Each period's WebVTT file of each subtitle rendition.
    private let subtitleFiles: [HLSExport.File]
    private static let silenceInitName = "silence-init.mp4"
    private static func silenceName(_ period: Int) -> String { "silence-\(period).m4s" }

    /// One packaged source's tracks, packaged apart.
    private struct SourceFiles: Sendable {
        let source: HLSPackagedSource
        var stem: String { source.stem }
        /// The tracks some period lists (audio that another variant has too is not).
        var kinds: [TrackKind]
        /// The segments any period plays, ascending.
        var segments: [Int]

        func initName(_ kind: TrackKind) -> String { "\(stem)-\(kind)-init.mp4" }
        func segmentName(_ kind: TrackKind, _ index: Int) -> String { "\(stem)-\(kind)-\(index).m4s" }
        var names: [String] { kinds.flatMap { kind in [initName(kind)] + segments.map { segmentName(kind, $0) } } }
    }

    /// One packaged source's place: its index in `HLSExport.packagedSources`, and which of its
    /// packagings (0: the one there; then its alternates' variants, then their audio renditions).
    private struct SourceKey: Hashable, Comparable {
        let source: Int
        let variant: Int
        static func < (a: Self, b: Self) -> Bool { (a.source, a.variant) < (b.source, b.variant) }
    }

    /// One audio or text adaptation set of every period: the content's rendition it carries
    /// (`nil`: the content's audio, muxed or in no rendition of its own).
    private struct RenditionTrack {
        let rendition: HLSRendition?
        /// Which of a source's renditions plays it: itself (the content's own), else the first of
        /// the same `LANGUAGE`, else of the same `NAME`.
        func match(in renditions: [HLSRendition?]) -> Int? {
            guard let rendition else { return nil }
            if let same = renditions.firstIndex(of: rendition) { return same }
            if let language = rendition.language, let found = renditions.firstIndex(where: { $0?.language == language }) { return found }
            return renditions.firstIndex { $0?.name == rendition.name }
        }
    }

    /// What the periods list so far: the files, the open segment writers, the longest segment.
    private struct Listing {
        var files: [SourceKey: SourceFiles] = [:]
        var writers: [String: FragmentedMP4SegmentWriter] = [:]
        var longestSegment = MediaTime.zero

        /// The representations of `kind` of `entries` (each a packaging and the segments the piece
        /// plays of it), the same audio once; and whether their segments start together. The
        /// first representation's first segment gives `start`, when it is not set yet.
        mutating func representations(
            _ entries: [(key: SourceKey, played: [Int])], kind: TrackKind, start: inout MediaTime?, item: String
        ) throws(DASHExportError) -> (representations: [XMLTree], aligned: Bool) {
            var representations: [XMLTree] = []
            var listed: [(description: MP4SampleDescription, timeline: [SegmentPresentation], source: MediaLocation)] = []
            for (key, played) in entries {
                guard let entry = files[key], entry.source.packaging.trackKinds.contains(kind) else { continue }
                let writerKey = "\(key.source)-\(key.variant)-\(kind)"
                var timeline: [SegmentPresentation] = []
                do throws(MP4Error) {
                    let writer: FragmentedMP4SegmentWriter
                    if let open = writers[writerKey] { writer = open } else {
                        guard let made = try entry.source.packaging.fragmentedSegmentWriter(only: kind) else { continue }
                        writer = made
                        writers[writerKey] = made
                    }
                    for index in played { timeline += try writer.presentation(ofSegment: index) }
                } catch {
                    throw DASHExportError(.packaging, item: item, reason: error.description)
                }
                guard let first = timeline.first, let description = entry.source.packaging.sampleDescription(of: kind) else { continue }
                // The same audio muxed in several variants is one representation.
                if listed.contains(where: { $0.description == description && $0.timeline == timeline }) { continue }
                if kind == .video, let reference = listed.first {
                    try DASHExport.checkAligned(timeline, of: entry.source.location, with: reference.timeline, of: reference.source, item: item)
                }
                listed.append((description, timeline, entry.source.location))
                if !entry.kinds.contains(kind) { files[key]?.kinds.append(kind) }
                let periodStart = start ?? MediaTime(value: first.start, timescale: first.timescale)
                start = periodStart
                for entry in timeline { longestSegment = MediaTime.max(longestSegment, MediaTime(value: entry.duration, timescale: first.timescale)) }
                representations.append(try DASHExport.representation(
                    id: key.variant == 0 ? kind.rawValue : "\(kind)-\(entry.stem)", kind: kind, description: description,
                    timeline: timeline, start: periodStart, initialization: entry.initName(kind),
                    media: "\(entry.stem)-\(kind)-$Number$.m4s", firstSegment: played[0], item: item))
            }
            // Switching mid-period needs the representations' segments to start together.
            let boundaries = listed.map { $0.timeline.map { MediaTime(value: $0.start, timescale: $0.timescale) } }
            return (representations, boundaries.allSatisfy { $0 == boundaries.first })
        }
    }

    /// The presentation of `export`, which must have every piece packaged in fragmented MP4, with
    /// `alternates` (by index in its packaged sources): more representations and audio tracks.
    ///
    /// - Throws: `DASHExportError`: an export not packaged so, a source whose codec has no RFC 6381
    ///   name here (HEVC), variants that do not start or end a period together, or segments that
    ///   cannot be read.
    init(_ export: HLSExport, alternates: [Int: DASHSourceAlternates] = [:]) throws(DASHExportError) {
        reconciled = export.reconciled
        let composition = export.composition
        guard !export.placedSegments.isEmpty, export.packagedSources.allSatisfy({ $0.packaging.container == .fragmentedMP4 }) else {
            throw DASHExportError(.packaging, item: "the schedule", reason: "a DASH export is made from an HLS export with every piece packaged in fragmented MP4")
        }
        var listing = Listing()
        var periods: [XMLTree] = []
        var lastOfClip: [String: (id: String, source: MediaLocation, end: MediaTime)] = [:]
        var silences: [(period: Int, frames: Int)] = []
        // When any piece has audio, a piece without gets silence (SilentAudioFragments says why).
        let hasAudio = composition.segments.contains { piece in
            export.packagedSources.first { $0.location == piece.source }?.packaging.trackKinds.contains(.audio) == true
        }
        // The audio adaptation sets: the content's audio, then each other audio rendition of the
        // first content clip's source, which every period fills as the HLS export's renditions do.
        let primary = (composition.segments.first { !$0.isAd } ?? composition.segments.first).flatMap { piece in
            export.packagedSources.firstIndex { $0.location == piece.source }
        }
        let contentAlternates = primary.flatMap { alternates[$0] }
        let audioTracks = hasAudio ? [RenditionTrack(rendition: contentAlternates?.audio)]
            + (contentAlternates?.audioRenditions ?? []).map { RenditionTrack(rendition: $0.rendition) } : []
        // The text adaptation sets: the first content clip's subtitle renditions, which every
        // period fills with its source's of the same language or name, else with no cues.
        let textTracks = (contentAlternates?.subtitles ?? []).map { RenditionTrack(rendition: $0.rendition) }
        var subtitleFiles: [HLSExport.File] = []
        for (number, piece) in composition.segments.enumerated() {
            let periodID = "\(number + 1)"
            guard let sourceIndex = export.packagedSources.firstIndex(where: { $0.location == piece.source }) else {
                throw DASHExportError(.packaging, item: piece.id, reason: "its source \(piece.source.url) was not packaged")
            }
            // Every packaging of the source (the packaged variant, the other variants, the other
            // audio renditions), each with the segments the piece plays of it.
            let own = alternates[sourceIndex] ?? DASHSourceAlternates()
            let sources = [export.packagedSources[sourceIndex]] + own.variants + own.audioRenditions.map(\.source)
            var entries: [(key: SourceKey, played: [Int])] = []
            for (position, source) in sources.enumerated() {
                let played = Self.segments(of: source.packaging, playing: piece.sourceRange)
                guard !played.isEmpty else {
                    throw DASHExportError(.packaging, item: piece.id, reason: "no segment of \(source.location) in its source range \(piece.sourceRange)")
                }
                let key = SourceKey(source: sourceIndex, variant: position)
                var entry = listing.files[key] ?? SourceFiles(source: source, kinds: [], segments: [])
                entry.segments = Array(Set(entry.segments + played)).sorted()
                listing.files[key] = entry
                entries.append((key, played))
            }
            let variants = Array(entries.prefix(1 + own.variants.count))

            var period = XMLTree("Period", ["id": periodID, "start": Self.duration(piece.compositionRange.start)])
            period.children.append(XMLTree("AssetIdentifier", ["schemeIdUri": "urn:org:dashif:asset-id:2013", "value": piece.id]))
            if let events = Self.events(of: number, in: composition) { period.children.append(events) }
            // Continuity: the same clip from the same source, resumed where its last period left off.
            var continuity: XMLTree?
            if case .content(let clip) = piece.role, let earlier = lastOfClip[clip], earlier.source == piece.source {
                let scheme = earlier.end == piece.sourceRange.start ? "urn:mpeg:dash:period-continuity:2015" : "urn:mpeg:dash:period-connectivity:2015"
                continuity = XMLTree("SupplementalProperty", ["schemeIdUri": scheme, "value": earlier.id])
            }
            if case .content(let clip) = piece.role { lastOfClip[clip] = (periodID, piece.source, piece.sourceRange.end) }
            // One start for every representation of the period: the first video's.
            var periodStart: MediaTime?
            let video = try listing.representations(variants, kind: .video, start: &periodStart, item: piece.id)
            if !video.representations.isEmpty {
                period.children.append(Self.adaptationSet(
                    id: 1, kind: .video, representations: video.representations, aligned: video.aligned, continuity: continuity))
            }
            var silence: XMLTree?
            if hasAudio, !export.packagedSources[sourceIndex].packaging.trackKinds.contains(.audio) {
                let frames: Int
                do { frames = try SilentAudioFragments.frames(lasting: piece.compositionRange.duration) } catch {
                    throw DASHExportError(.packaging, item: piece.id, reason: "its silent audio: \(error)")
                }
                guard let description = SilentAudioFragments.description else {
                    throw DASHExportError(.packaging, item: piece.id, reason: "its silent audio's sample entry does not read back")
                }
                let bytes = SilentAudioFragments.segment(frames: frames, sequenceNumber: 1).count
                let timeline = [SegmentPresentation(
                    kind: .audio, timescale: SilentAudioFragments.sampleRate, start: 0,
                    duration: Int64(frames) * Int64(SilentAudioFragments.samplesPerFrame), bytes: bytes)]
                silence = try Self.representation(
                    id: "audio", kind: .audio, description: description, timeline: timeline, start: .zero,
                    initialization: Self.silenceInitName, media: "silence-$Number$.m4s", firstSegment: number + 1, item: piece.id)
                silences.append((number + 1, frames))
            }
            for (position, track) in audioTracks.enumerated() {
                var audio: (representations: [XMLTree], aligned: Bool) = (silence.map { [$0] } ?? [], true)
                if silence == nil {
                    // The source's own rendition of the track, else its played audio (any audio beats silence).
                    let renditions = [own.audio] + own.audioRenditions.map(\.rendition)
                    let chosen = position == 0 ? nil : track.match(in: renditions).flatMap { $0 == 0 ? nil : entries[own.variants.count + $0] }
                    audio = try listing.representations(chosen.map { [$0] } ?? variants, kind: .audio, start: &periodStart, item: piece.id)
                }
                guard !audio.representations.isEmpty else { continue }
                var set = Self.adaptationSet(
                    id: 2 + position, kind: .audio, representations: audio.representations, aligned: audio.aligned,
                    continuity: silence == nil ? continuity : nil)
                if let rendition = track.rendition {
                    set.add("lang", rendition.language)
                    set.children.insert(XMLTree("Role", ["schemeIdUri": "urn:mpeg:dash:role:2011", "value": position == 0 ? "main" : "alternate"]),
                                        at: set.children.firstIndex { $0.name == "Representation" } ?? set.children.count)
                }
                period.children.append(set)
            }
            for (position, track) in textTracks.enumerated() {
                let chosen = track.match(in: own.subtitles.map(\.rendition)).map { own.subtitles[$0] }
                // The cues on the video's media timeline, where the period starts at `start`
                // (the packaging may place the source's time 0 later than 0).
                let start = periodStart ?? piece.sourceRange.start
                let cues = (chosen?.cues(during: piece.sourceRange) ?? []).map { cue in
                    var placed = cue
                    placed.start = cue.start - piece.sourceRange.start + start
                    placed.end = cue.end - piece.sourceRange.start + start
                    return placed
                }
                let file = HLSExport.File(
                    url: "subtitles-\(position)-\(number + 1).vtt", text: WebVTTDocument(headerBlocks: chosen?.headerBlocks ?? [], cues: cues).text)
                subtitleFiles.append(file)
                period.children.append(try Self.textSet(
                    id: 2 + audioTracks.count + position, rendition: track.rendition, file: file,
                    start: start, duration: piece.compositionRange.duration, item: piece.id))
            }
            periods.append(period)
        }
        var mpd = XMLTree("MPD", [
            "xmlns": "urn:mpeg:dash:schema:mpd:2011", "profiles": "urn:mpeg:dash:profile:isoff-live:2011", "type": "static",
            "mediaPresentationDuration": Self.duration(composition.duration),
            "minBufferTime": Self.duration(MediaTime(seconds: max(1, listing.longestSegment.wholeSeconds(rounding: .up)))),
        ])
        mpd.children = periods
        manifest = mpd.document
        files = listing.files.keys.sorted().compactMap { listing.files[$0] }
        self.silences = silences
        self.subtitleFiles = subtitleFiles
    }

    /// The segments of `packaging` a piece playing `range` of it plays: those whose middle is in
    /// the range (the packaging cut them at the piece's ends; playlist times are to the microsecond).
    private static func segments(of packaging: MP4Packaging, playing range: MediaTimeRange) -> [Int] {
        packaging.segments.indices.filter { index in
            let segment = packaging.segments[index].range
            let twiceMiddle = segment.start + segment.end
            return twiceMiddle >= range.start + range.start && twiceMiddle < range.end + range.end
        }
    }

    /// Refuses a variant whose video starts or ends a period more than a millisecond from the
    /// first variant's: one period start cannot serve both (their keyframes are not aligned).
    fileprivate static func checkAligned(
        _ timeline: [SegmentPresentation], of source: MediaLocation, with reference: [SegmentPresentation], of referenceSource: MediaLocation,
        item: String
    ) throws(DASHExportError) {
        func span(_ timeline: [SegmentPresentation]) -> MediaTimeRange? {
            guard let first = timeline.first, let last = timeline.last else { return nil }
            return MediaTimeRange(
                start: MediaTime(value: first.start, timescale: first.timescale),
                end: MediaTime(value: last.start + last.duration, timescale: last.timescale))
        }
        guard let range = span(timeline), let referenceRange = span(reference) else { return }
        let tolerance = MediaTime(value: 1, timescale: 1000)
        guard abs((range.start - referenceRange.start).seconds) > tolerance.seconds || abs((range.end - referenceRange.end).seconds) > tolerance.seconds else { return }
        throw DASHExportError(.unaligned, item: item, reason: "\(source)'s video plays \(range) of it, \(referenceSource)'s \(referenceRange): "
            + "the variants of one source must have their keyframes at the same times to be representations of one period")
    }

    /// An adaptation set of `representations` of one kind of track.
    private static func adaptationSet(id: Int, kind: TrackKind, representations: [XMLTree], aligned: Bool, continuity: XMLTree?) -> XMLTree {
        var set = XMLTree("AdaptationSet", [
            "id": "\(id)", "contentType": kind.rawValue, "mimeType": kind == .video ? "video/mp4" : "audio/mp4",
            "segmentAlignment": aligned ? "true" : "false", "startWithSAP": "1",
        ])
        if let continuity { set.children.append(continuity) }
        set.children += representations
        return set
    }

    /// A text adaptation set of one period: its WebVTT `file`, whose cue times are on the video's
    /// media timeline, so its `presentationTimeOffset` is the period's `start` there, as the video's is.
    private static func textSet(
        id: Int, rendition: HLSRendition?, file: HLSExport.File, start: MediaTime, duration: MediaTime, item: String
    ) throws(DASHExportError) -> XMLTree {
        var set = XMLTree("AdaptationSet", ["id": "\(id)", "contentType": "text", "mimeType": "text/vtt"])
        set.add("lang", rendition?.language)
        set.children.append(XMLTree("Role", ["schemeIdUri": "urn:mpeg:dash:role:2011", "value": "subtitle"]))
        let offset: MediaTime
        do { offset = try start.converted(to: 1000, rounding: .toNearestOrAwayFromZero) } catch {
            throw DASHExportError(.packaging, item: item, reason: "its start \(start) s in milliseconds: \(error)")
        }
        var representation = XMLTree("Representation", ["id": "subtitles-\(id)", "bandwidth": Self.bandwidth(bytes: file.text.utf8.count, over: duration)])
        representation.children = [
            XMLTree("BaseURL", content: file.name),
            XMLTree("SegmentBase", ["timescale": "1000", "presentationTimeOffset": "\(offset.value)"]),
        ]
        set.children.append(representation)
        return set
    }

    /// One representation of a period: its `SegmentTemplate` lists `timeline` from segment
    /// `firstSegment`, the period starting at `start` (`presentationTimeOffset`).
    fileprivate static func representation(
        id: String, kind: TrackKind, description: MP4SampleDescription, timeline: [SegmentPresentation], start: MediaTime,
        initialization: String, media: String, firstSegment: Int, item: String
    ) throws(DASHExportError) -> XMLTree {
        let timescale = timeline.first?.timescale ?? start.timescale
        guard let codecs = description.rfc6381Codec else {
            throw DASHExportError(.unsupported, item: item, reason: "its \(kind) codec (\(description.codecIdentity)) has no RFC 6381 name here; the DASH export takes H.264 and AAC")
        }
        let offset: Int64
        do { offset = try start.converted(to: timescale, rounding: .toNearestOrAwayFromZero).value } catch {
            throw DASHExportError(.packaging, item: item, reason: "its start \(start) s in its \(kind) track's ticks: \(error)")
        }
        let seconds = timeline.reduce(MediaTime.zero) { $0 + MediaTime(value: $1.duration, timescale: timescale) }
        var representation = XMLTree("Representation", ["id": id, "codecs": codecs])
        representation.add("bandwidth", Self.bandwidth(bytes: timeline.reduce(0) { $0 + $1.bytes }, over: seconds))
        if kind == .video {
            representation.add("width", description.width.map(String.init))
            representation.add("height", description.height.map(String.init))
        } else {
            // AAC's own configuration over the sample entry's fields, which often say 2 channels for mono.
            var (sampleRate, channels) = (description.sampleRate, description.channelCount)
            if case .aac(let config) = description.codec {
                sampleRate = config.sampleRate
                if config.channelConfiguration > 0 { channels = config.channelConfiguration }
            }
            representation.add("audioSamplingRate", sampleRate.map(String.init))
            if let channels {
                representation.children.append(XMLTree("AudioChannelConfiguration", [
                    "schemeIdUri": "urn:mpeg:dash:23003:3:audio_channel_configuration:2011", "value": "\(channels)",
                ]))
            }
        }
        representation.children.append(XMLTree("SegmentTemplate", [
            "timescale": "\(timescale)", "presentationTimeOffset": "\(offset)",
            "initialization": initialization, "media": media, "startNumber": "\(firstSegment)",
        ], [XMLTree("SegmentTimeline", [:], Self.timeline(timeline))]))
        return representation
    }

    /// `@bandwidth`: `bytes` over `duration`, in bits per second, rounded up, at least 1.
    private static func bandwidth(bytes: Int, over duration: MediaTime) -> String {
        "\(max(1, Int((Double(bytes * 8) / max(duration.seconds, 0.001)).rounded(.up))))"
    }

    /// The `S` elements of a timeline: each segment's start and duration, a run of equal
    /// durations one after another as one element with `r`.
    private static func timeline(_ entries: [SegmentPresentation]) -> [XMLTree] {
        var elements: [XMLTree] = []
        var runStart = 0
        while runStart < entries.count {
            var runEnd = runStart + 1
            while runEnd < entries.count, entries[runEnd].duration == entries[runStart].duration,
                  entries[runEnd].start == entries[runEnd - 1].start + entries[runEnd - 1].duration { runEnd += 1 }
            var element = XMLTree("S", ["t": "\(entries[runStart].start)", "d": "\(entries[runStart].duration)"])
            if runEnd - runStart > 1 { element.add("r", "\(runEnd - runStart - 1)") }
            elements.append(element)
            runStart = runEnd
        }
        return elements
    }

    /// The SCTE-35 `EventStream` of period `number`: the breaks that start where it ends (it is
    /// content), or at its start (it is a pre-roll's first ad).
    private static func events(of number: Int, in composition: Composition) -> XMLTree? {
        let piece = composition.segments[number]
        var found: [(index: Int, item: PlacedBreak, time: MediaTime)] = []
        for (index, item) in composition.breaks.enumerated() {
            if !piece.isAd, item.compositionRange.start == piece.compositionRange.end, !item.segmentIndices.isEmpty {
                found.append((index, item, piece.compositionRange.duration))
            } else if piece.isAd, number == 0, item.segmentIndices.lowerBound == 0 {
                found.append((index, item, .zero))
            }
        }
        guard !found.isEmpty else { return nil }
        // An XML namespace name (SCTE 35's XML schema), never fetched.
        let scte35 = "http://www.scte.org/schemas/35/2016"
        return XMLTree("EventStream", ["schemeIdUri": "urn:scte:scte35:2013:xml", "timescale": "90000"], found.map { index, item, time in
            let ticks = { (time: MediaTime) in "\((try? time.converted(to: 90_000, rounding: .toNearestOrAwayFromZero).value) ?? 0)" }
            return XMLTree("Event", ["presentationTime": ticks(time), "duration": ticks(item.compositionRange.duration), "id": "\(index + 1)"], [
                XMLTree("scte35:SpliceInfoSection", ["xmlns:scte35": scte35, "protocolVersion": "0", "ptsAdjustment": "0", "tier": "4095"], [
                    XMLTree("scte35:SpliceInsert", [
                        "spliceEventId": "\(index + 1)", "spliceEventCancelIndicator": "false", "outOfNetworkIndicator": "true",
                        "spliceImmediateFlag": "true", "uniqueProgramId": "0", "availNum": "0", "availsExpected": "0",
                    ], [
                        XMLTree("scte35:Program"),
                        XMLTree("scte35:BreakDuration", ["autoReturn": "true", "duration": ticks(item.compositionRange.duration)]),
                    ]),
                ]),
            ])
        })
    }

    /// An `xs:duration` in seconds, to the microsecond: `PT12.5S`.
    static func duration(_ time: MediaTime) -> String {
        let micros = (try? time.converted(to: 1_000_000, rounding: .toNearestOrAwayFromZero)) ?? time
        return "PT" + (micros.exactDecimalString ?? String(micros.seconds)) + "S"
    }

    /// Every file name written: the MPD, the extra files, each source's init and used segments.
    private func fileNames(extraFiles: [HLSExport.File]) -> [String] {
        [Self.manifestName] + extraFiles.map(\.name) + subtitleFiles.map(\.name) + files.flatMap(\.names)
            + (silences.isEmpty ? [] : [Self.silenceInitName] + silences.map { Self.silenceName($0.period) })
    }

    /// Writes the MPD, `extraFiles` and the segments into `folder`, which appears whole or not at
    /// all, and replaces an earlier write there (as `HLSExport.write(into:)` writes).
    ///
    /// - Parameters:
    ///   - folder: The output folder: new, empty, or holding an earlier write.
    ///   - extraFiles: More files to write beside the MPD (none by default), each under the last
    ///     path component of its `url`.
    /// - Throws: `DASHExportError`: `.cannotWrite` naming the folder, `.packaging` naming the source
    ///   that cannot be read (or changed since the export).
    public func write(into folder: FilePath, extraFiles: [HLSExport.File] = []) throws(DASHExportError) {
        let draft: AtomicOutputFolder.Draft
        do {
            draft = try AtomicOutputFolder.Draft(folder, names: fileNames(extraFiles: extraFiles))
            try draft.write(Array(manifest.utf8), name: Self.manifestName)
            for file in extraFiles + subtitleFiles { try draft.write(Array(file.text.utf8), name: file.name) }
        } catch {
            throw DASHExportError(.cannotWrite, item: folder.description, reason: error.reasonText)
        }
        var bytes = OutputBytes()
        for entry in files {
            for kind in entry.kinds {
                do throws(MP4Error) {
                    guard var writer = try entry.source.packaging.fragmentedSegmentWriter(only: kind) else { continue }
                    if let initBytes = writer.initSegment() { try Self.write(initBytes, entry.initName(kind), draft) }
                    for index in entry.segments {
                        try writer.segment(index, into: &bytes)
                        try Self.write(bytes.withUnsafeBytes { Array($0) }, entry.segmentName(kind, index), draft)
                    }
                    try writer.checkUnchanged()
                } catch {
                    throw DASHExportError(.packaging, item: entry.source.item, reason: error.description)
                }
            }
        }
        do throws(MP4Error) {
            if let description = SilentAudioFragments.description, !silences.isEmpty {
                try Self.write(SilentAudioFragments.initSegment(description), Self.silenceInitName, draft)
            }
            for silence in silences {
                try Self.write(SilentAudioFragments.segment(frames: silence.frames, sequenceNumber: 1), Self.silenceName(silence.period), draft)
            }
        } catch {
            throw DASHExportError(.cannotWrite, item: folder.description, reason: error.description)
        }
        do { try draft.commit() } catch { throw DASHExportError(.cannotWrite, item: folder.description, reason: error.reasonText) }
    }

    private static func write(_ bytes: [UInt8], _ name: String, _ draft: AtomicOutputFolder.Draft) throws(MP4Error) {
        do { try draft.write(bytes, name: name) } catch { throw MP4Error(error) }
    }
}
