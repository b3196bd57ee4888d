import CompositorCore
import CompositorHLS
import CompositorIO

/// Follows live HLS content and keeps a stitched live playlist beside its ads: `DIR/stitched.m3u8`
/// rewritten (atomically: a reader sees the old or the new file) after every change of the
/// content, until the content ends (`EXT-X-ENDLIST`) or the time given runs out.
///
/// Each reload is the pure step `LiveDecisions.advanced` then `LiveStitcher.playlist`: nothing else
/// is carried from one reload to the next. The content is reloaded as RFC 8216bis 6.3.4 has a
/// client reload: a target duration after the last load began, half of one after a load that
/// found no change. Ads are packaged once, before the first reload is written (`LiveAdPackaging`).
///
/// ```swift
/// let live = LiveHLSStitching(schedule: try ScheduleDocument.readLive(path: file), output: folder)
/// try await live.run(for: .seconds(600)) { status in print(status) }
/// ```
package final class LiveHLSStitching: Sendable {
    /// Breaks already under way when the stitcher first loads the content.
    package enum JoinRule: String, Sendable, CaseIterable {
        /// Play as content: ads are placed only in breaks whose start the stitcher saw (MediaTailor's
        /// FULL_AVAIL_ONLY).
        case fullBreaksOnly = "full"
        /// Play the rest of the break: its ads from the first segment after the time already gone
        /// (PARTIAL_AVAIL).
        case restOfBreak = "rest"
    }

    /// What the stitched playlist does with a break.
    package enum Form: String, Sendable, CaseIterable {
        /// Its ads replace the content's segments: one stream, for every player.
        case stitched
        /// The content as it is, each break an HLS interstitial (`EXT-X-DATERANGE` of class
        /// `com.apple.hls.interstitial` naming its asset list), which AVPlayer and hls.js play as
        /// separate items (`LiveStitcher.interstitialsPlaylist`, `LiveAssetList`).
        case interstitials
    }

    static let playlistName = "stitched.m3u8"

    let schedule: LiveSchedule
    let folder: FilePath
    let transport: any HTTPTransport
    let limits: HTTPTransportLimits
    let joinRule: JoinRule
    let form: Form
    private let insertions = Insertions()

    /// - Parameters:
    ///   - schedule: The live schedule.
    ///   - output: The folder the stitched playlist and the ads are written to (made when missing).
    ///   - joinRule: What a break under way at the first load plays (`.fullBreaksOnly`); with
    ///     interstitials, also what a client that starts inside a break gets (`LiveAssetList`).
    ///   - form: Ads in place of the content's segments (`.stitched`), or as interstitials.
    ///   - transport: What loads http(s) content and ads.
    ///   - limits: Timeouts and retries of each load.
    package init(
        schedule: LiveSchedule, output: FilePath, joinRule: JoinRule = .fullBreaksOnly, form: Form = .stitched,
        transport: any HTTPTransport = DefaultHTTPTransport(), limits: HTTPTransportLimits = .default
    ) {
        self.schedule = schedule
        // Absolute from the start: the playlist's URL is what every URI it writes is made relative
        // to, and a relative one ("out/stitched.m3u8") made "out/ads/ad1-0.ts", which resolves
        // from the playlist's folder to out/out/ads/.
        folder = output.resolved(against: currentFolder())
        self.joinRule = joinRule
        self.form = form
        self.transport = transport
        self.limits = limits
    }

    /// Plays the on-demand break `id` from the next segment the content publishes ("insert now").
    ///
    /// - Throws: `.noSuchBreak` when the schedule has no on-demand break `id`.
    package func insertNow(_ id: String) async throws(LiveStitchingError) {
        let known = schedule.breaks.filter { $0.trigger == .onDemand }.map(\.id)
        guard known.contains(id) else { throw LiveStitchingError(.noSuchBreak(id: id, known: known)) }
        await insertions.add(id)
    }

    /// Follows the content until it ends, `duration` passes, or the task is cancelled, calling
    /// `status` after every reload.
    ///
    /// - Parameters:
    ///   - duration: How long to follow (`nil`: until the content ends); a reload falling due after
    ///     it is made at its end, the last one.
    ///   - status: Told what each reload found and did.
    /// - Returns: The last reload's status.
    /// - Throws: `LiveStitchingError`: content that cannot be loaded five times running, is not
    ///   live HLS, or moved past segments unseen; an ad that cannot play in it; a folder not written.
    @discardableResult
    package func run(for duration: Duration? = nil, status: (LiveReloadStatus) -> Void = { _ in }) async throws(LiveStitchingError) -> LiveReloadStatus? {
        try await run(for: duration, clock: ContinuousClock(), status: status)
    }

    /// `run(for:status:)` on `clock`: its waits and its deadline (a test's clock need not wait).
    ///
    /// - Parameters:
    ///   - duration: How long to follow (`nil`: until the content ends); a reload falling due after
    ///     it is made at its end, the last one.
    ///   - clock: What the reloads wait on.
    ///   - status: Told what each reload found and did.
    /// - Returns: The last reload's status.
    @discardableResult
    package func run<C: Clock>(
        for duration: Duration?, clock: C, status: (LiveReloadStatus) -> Void
    ) async throws(LiveStitchingError) -> LiveReloadStatus? where C.Duration == Duration {
        let deadline = duration.map { clock.now.advanced(by: $0) }
        do { try FilePath.makeFolder(folder) } catch {
            throw LiveStitchingError(.cannotWrite(path: folder.description, reason: error.reasonText))
        }
        let outputURL = MediaLocation(folder.appending(Self.playlistName)).url
        // The decisions an earlier run on the folder left, if it did: this run carries its stream
        // on (and may find the content just ended).
        let earlier = try? ReadableFile.contents(of: folder.appending(LiveDecisionsFile.name), limit: 64 << 20)
        var layout: Layout?
        var decisions = LiveDecisions()
        var ads: LiveAdPackaging?
        /// Each break's ads' clock (fragmented MP4): the content's at its start, `nil` when they keep their own.
        var adClock: LiveAdClock?
        var clocks: [String: MediaTime?] = [:]
        var last: (bytes: [UInt8], content: HLSMediaPlaylist)?
        var written: [String: String] = [:]
        /// Each break's asset list (interstitials), relative to the output, once written.
        var assetListPaths: [String: String] = [:]
        var failures = 0
        var reload = 0
        var latest: LiveReloadStatus?
        while !Task.isCancelled {
            let began = clock.now
            reload += 1
            var report = LiveReloadStatus(reload: reload)
            var wait = LivePlaylistLoad.reloadDelay(targetDuration: nil, changed: true)
            defer { latest = report }
            do throws(LiveStitchingError) {
                let followed: Layout
                let bytes: [UInt8], url: String
                if let known = layout {
                    followed = known
                    (bytes, url) = try await load(followed.variants[0].url)
                } else {
                    // The first load of media content is the layout's own: not loaded twice.
                    followed = try await self.layout(outputURL: outputURL)
                    if let first = followed.firstLoad { (bytes, url) = first } else { (bytes, url) = try await load(followed.variants[0].url) }
                    layout = followed
                    layout?.firstLoad = nil
                }
                failures = 0
                if bytes == last?.bytes {
                    report.change = .unchanged
                    wait = LivePlaylistLoad.reloadDelay(targetDuration: last?.content.targetDuration, changed: false)
                } else {
                    let content = try mediaPlaylist(bytes, url: url, first: last == nil && earlier == nil)
                    if ads == nil {
                        if form == .interstitials, !content.segments.contains(where: { $0.programDateTime != nil }) {
                            throw LiveStitchingError(.unsupported(url: url, reason: "interstitials are placed by date, and the content has no EXT-X-PROGRAM-DATE-TIME"))
                        }
                        let packaged = try await LiveAdPackaging(
                            schedule, content: content, folder: folder, outputURL: outputURL, writingPlaylists: form == .interstitials,
                            onContentClock: form == .stitched, playlists: adPlaylist)
                        ads = packaged
                        adClock = packaged.clock
                        report.notes += packaged.dropped.map { "\($0), so it is dropped: its breaks play their other ads (content where none is left)" }
                        if let earlier {
                            let resumed: LiveDecisions
                            (resumed, clocks) = try LiveDecisionsFile.decisions(
                                earlier, path: folder.appending(LiveDecisionsFile.name).description, pods: packaged.pods.map { ($0.value, packaged.slates[$0.key]) },
                                playing: { [adClock] ads, id in adClock?.pod(ads, breakID: id) ?? ads })
                            decisions = resumed
                            report.notes.append("carried on from \(LiveDecisionsFile.name): \(resumed.breaks.count) breaks, up to segment \(resumed.lastSequence.map(String.init) ?? "none")")
                        }
                    }
                    if let previous = last?.content {
                        report.contentViolations = LiveReloadCheck.violations(from: previous, to: content).map(\.description)
                    }
                    var requests = await self.requests(for: content, decisions: decisions, pods: ads?.pods ?? [:], slates: ads?.slates ?? [:], notes: &report.notes)
                    if let adClock {
                        for index in requests.indices { requests[index].ads = adClock.pod(requests[index].ads, breakID: requests[index].id) }
                    }
                    decisions = try Self.stitching { () throws(LiveStitchError) in try decisions.advanced(by: content, requests: requests) }
                    if let kept = decisions.targetDuration, kept != content.targetDuration {
                        report.notes.append(Self.targetDurationNote(content: content, kept: kept))
                    }
                    if var clock = adClock {
                        try await writeCopies(&clock, clocks: &clocks, decisions: decisions, content: content, notes: &report.notes)
                        adClock = clock
                    }
                    // Each new break's asset lists, before any playlist names them.
                    if form == .interstitials, let assets = ads?.assets {
                        for (index, item) in decisions.breaks.enumerated() where assetListPaths[item.id] == nil {
                            try writeAssetLists(of: item, index: index, assets: assets, outputURL: outputURL)
                            assetListPaths[item.id] = LiveAssetList.path(index: index, id: item.id)
                        }
                    }
                    // Every variant from the same decisions: they agree on sequence numbers and discontinuities.
                    var stitchedReference: HLSMediaPlaylist?
                    for (index, variant) in followed.variants.enumerated() {
                        var media = content
                        if index > 0 {
                            let (variantBytes, variantURL) = try await load(variant.url)
                            media = Self.taking(try mediaPlaylist(variantBytes, url: variantURL, first: false), through: decisions.lastSequence)
                        }
                        let stitched = try Self.stitching { () throws(LiveStitchError) in
                            let url = URIReference.resolve(variant.name, against: outputURL)
                            switch form {
                            case .stitched:
                                return try LiveStitcher.playlist(
                                    content: media, decisions: decisions, url: url, removingCueTags: schedule.markerBreak != nil,
                                    adSegmentURI: variant.kind == .subtitles ? Self.emptyCuesName : nil)
                            case .interstitials:
                                return try LiveStitcher.interstitialsPlaylist(
                                    content: media, decisions: decisions, url: url, assets: ads?.assets ?? [:],
                                    assetListURL: { id in URIReference.resolve(assetListPaths[id] ?? "", against: outputURL) },
                                    removingCueTags: schedule.markerBreak != nil)
                            }
                        }
                        // A window that emptied (every segment removed, none added) is no
                        // playlist to publish: the last one stays, and the reload says so.
                        if stitched.segments.isEmpty {
                            report.notes.append("\(variant.name): the content lists no segment; the stitched playlist is left as it was")
                            continue
                        }
                        let text = stitched.text
                        if text != written[variant.name] {
                            try write(text, name: variant.name)
                            written[variant.name] = text
                            report.wrote = true
                        }
                        stitchedReference = stitchedReference ?? stitched
                    }
                    try write(LiveDecisionsFile.text(of: decisions, clocks: clocks), name: LiveDecisionsFile.name)
                    adClock?.removeFolders(of: decisions.breaks, before: content)
                    if let multivariant = followed.multivariant, written[Self.playlistName] == nil {
                        if followed.variants.contains(where: { $0.kind == .subtitles }) { try write("WEBVTT\n", name: Self.emptyCuesName) }
                        try write(multivariant.text, name: Self.playlistName)
                        written[Self.playlistName] = multivariant.text
                    }
                    if let stitchedReference { report.record(content: content, stitched: stitchedReference, decisions: decisions) }
                    last = (bytes, content)
                    wait = LivePlaylistLoad.reloadDelay(targetDuration: content.targetDuration, changed: true)
                }
            } catch {
                if case .content = error.cause, failures < LivePlaylistLoad.tolerableFailures, last != nil {
                    failures += 1
                    report.change = .failed(error.description)
                    wait = LivePlaylistLoad.reloadDelay(targetDuration: last?.content.targetDuration, changed: false)
                } else {
                    status(report)
                    throw error
                }
            }
            status(report)
            if last?.content.hasEndList == true, report.change == .changed { return report }
            // The run lasts its duration: a reload due after the deadline is made at it, the last.
            if let deadline, clock.now >= deadline { return report }
            let next = began.advanced(by: wait)
            do { try await clock.sleep(until: deadline.map { min(next, $0) } ?? next, tolerance: nil) } catch { break }
        }
        return latest
    }

    /// Writes the copies of their ads on the content's clock that the breaks in `content`'s window
    /// publish (`LiveAdClock`), before a playlist names them; a new break's clock is read first.
    private func writeCopies(
        _ adClock: inout LiveAdClock, clocks: inout [String: MediaTime?], decisions: LiveDecisions, content: HLSMediaPlaylist, notes: inout [String]
    ) async throws(LiveStitchingError) {
        let first = content.mediaSequence ?? 0
        for item in decisions.breaks where item.isOpen || item.contentReturn.map({ $0.sequence >= first }) == true {
            if clocks[item.id] == nil {
                do { clocks[item.id] = try await LiveAdClock.contentClock(at: item, in: content, transport: transport, limits: limits) } catch {
                    clocks[item.id] = .some(nil)
                    notes.append("break \(quoted(item.id)) plays its ads on their own clock: \(error)")
                }
            }
            try adClock.writeSegments(of: item, clock: clocks[item.id] ?? nil)
        }
    }

    /// The content's media playlists, each with the name of its stitched playlist: the content
    /// itself, or its named variant, or every variant of it (the first deciding the breaks) under
    /// a multivariant `stitched.m3u8` whose variants are `stitched-N.m3u8`, and whose audio and
    /// subtitle renditions are `stitched-audio-N.m3u8` and `stitched-subtitles-N.m3u8`.
    private struct Layout {
        /// What a playlist carries: media (ads play in it), or subtitles (ads show none).
        enum Kind { case media, subtitles }
        var multivariant: HLSMultivariantPlaylist?
        var variants: [(url: String, name: String, kind: Kind)]
        /// The content as `layout` loaded it, when it is the media playlist followed.
        var firstLoad: (bytes: [UInt8], url: String)?
    }

    /// What a reload says when the content's target duration is not the one the stitched
    /// playlists keep (the first load's): the stitched one stays, and content segments longer than
    /// it are listed as the content has them (content always plays), which the note counts.
    static func targetDurationNote(content: HLSMediaPlaylist, kept: Int64) -> String {
        var note = "the content's EXT-X-TARGETDURATION is \(content.targetDuration) s; the stitched playlists keep \(kept) s (RFC 8216bis 6.2.1)"
        // EXTINF rounded to the nearest second (RFC 8216bis 4.4.3.1) over the target: half a second more or longer.
        let limit = MediaTime(value: 2 * min(kept, 1 << 40) + 1, timescale: 2)
        let longer = content.segments.filter { $0.duration >= limit }
        if let first = longer.first {
            note += "; \(longer.count) of its segments last longer (the first \(first.duration) s), listed as they are"
        }
        return note
    }

    /// What a subtitles rendition lists while an ad plays: a WebVTT file without cues.
    static let emptyCuesName = "stitched-empty.vtt"

    private func layout(outputURL: String) async throws(LiveStitchingError) -> Layout {
        let source = schedule.content.source
        let (bytes, url) = try await load(source.url)
        let playlist = try Self.parsing(url) { () throws(HLSParseError) in try HLSPlaylistParser().parse(bytes, url: url) }
        guard case .multivariant(var multivariant) = playlist else {
            return Layout(variants: [(url, Self.playlistName, .media)], firstLoad: (bytes, url))
        }
        if let name = source.variant {
            guard let variant = multivariant.variant(named: name) else {
                throw LiveStitchingError(.content(url: url, reason: "no variant \(quoted(name)); its variants: \(multivariant.variantNames)"))
            }
            return Layout(variants: [(variant.resolvedURI, Self.playlistName, .media)])
        }
        guard !multivariant.variants.isEmpty else { throw LiveStitchingError(.notLive(url: url, reason: "a multivariant playlist without variants")) }
        var followed = multivariant.variants.enumerated().map { index, variant in (variant.resolvedURI, "stitched-\(index).m3u8", Layout.Kind.media) }
        for index in multivariant.variants.indices {
            multivariant.variants[index].uri = followed[index].1
            multivariant.variants[index].resolvedURI = URIReference.resolve(followed[index].1, against: outputURL)
        }
        // Renditions with playlists of their own, stitched from the same decisions: the ads' muxed
        // segments in an audio rendition (as the VOD export does for an ad without one), no cues in a
        // subtitles rendition.
        var counts: [Layout.Kind: Int] = [:]
        for index in multivariant.renditions.indices {
            let rendition = multivariant.renditions[index]
            guard let resolved = rendition.resolvedURI else { continue }
            let kind: Layout.Kind
            switch rendition.type {
            case "AUDIO": kind = .media
            case "SUBTITLES": kind = .subtitles
            default:
                throw LiveStitchingError(.unsupported(url: url, reason: "its \(rendition.type) rendition \(quoted(rendition.uri ?? "")) is a playlist of its own; live stitching takes audio and subtitle renditions"))
            }
            let number = counts[kind, default: 0]
            counts[kind] = number + 1
            let name = "stitched-\(kind == .media ? "audio" : "subtitles")-\(number).m3u8"
            followed.append((resolved, name, kind))
            multivariant.renditions[index].attributes["URI"] = .quotedString(name)
            multivariant.renditions[index].resolvedURI = URIReference.resolve(name, against: outputURL)
        }
        multivariant.iFrameStreams = []
        return Layout(multivariant: multivariant, variants: followed)
    }

    /// A variant's playlist without the segments the decisions have not yet taken (a variant
    /// loaded a moment after the one deciding may be a segment ahead): they come at the next reload.
    private static func taking(_ playlist: HLSMediaPlaylist, through last: UInt64?) -> HLSMediaPlaylist {
        guard let last else { return playlist }
        var taken = playlist
        let first = playlist.mediaSequence ?? 0
        let keep = last >= first ? Int(min(UInt64(playlist.segments.count), last - first + 1)) : 0
        guard keep < playlist.segments.count else { return playlist }
        taken.segments = Array(playlist.segments.prefix(keep))
        taken.hasEndList = false
        return taken
    }

    /// The content's bytes and the URL they came from (after redirects).
    private func load(_ url: String) async throws(LiveStitchingError) -> (bytes: [UInt8], url: String) {
        do { return try await LivePlaylistLoad.bytes(url, transport: transport, limits: limits) } catch {
            throw LiveStitchingError(.content(url: error.url, reason: error.reason))
        }
    }

    /// A media playlist of the content; the first must be live (a finished one is for `hls`).
    private func mediaPlaylist(_ bytes: [UInt8], url: String, first: Bool) throws(LiveStitchingError) -> HLSMediaPlaylist {
        let playlist = try Self.parsing(url) { () throws(HLSParseError) in try HLSPlaylistParser().parse(bytes, url: url) }
        guard case .media(let media) = playlist else {
            throw LiveStitchingError(.content(url: url, reason: "a multivariant playlist where a variant's media playlist was"))
        }
        // Live content ends with EXT-X-ENDLIST; content that starts finished is not live.
        guard !first || !media.isFinite else {
            throw LiveStitchingError(.notLive(url: url, reason: "the playlist is finished (EXT-X-ENDLIST or VOD): stitch it with `hls`"))
        }
        return media
    }

    private func adPlaylist(_ location: MediaLocation) async throws(LiveStitchingError) -> HLSMediaPlaylist {
        var url = location.url
        let (bytes, final) = try await load(url)
        let playlist = try Self.parsing(final) { () throws(HLSParseError) in try HLSPlaylistParser().parse(bytes, url: final) }
        switch playlist {
        case .media(let media): return media
        case .multivariant(let multivariant):
            guard let variant = multivariant.variant(playing: location.variant) else {
                throw LiveStitchingError(.content(url: final, reason: "no variant \(quoted(location.variant ?? "")); its variants: \(multivariant.variantNames)"))
            }
            url = variant.resolvedURI
            let (mediaBytes, mediaFinal) = try await load(url)
            return try Self.parsing(mediaFinal) { () throws(HLSParseError) in try HLSMediaPlaylist(parsing: mediaBytes, url: mediaFinal) }
        }
    }

    /// The breaks to open in `content`'s new segments: at its markers, at the schedule's dates,
    /// and the on-demand ones asked for.
    private func requests(
        for content: HLSMediaPlaylist, decisions: LiveDecisions, pods: [String: [LiveAd]], slates: [String: LiveAd], notes: inout [String]
    ) async -> [LiveBreakRequest] {
        let firstNew = decisions.lastSequence.map { $0 + 1 } ?? (content.mediaSequence ?? 0)
        let opened = Set(decisions.breaks.map(\.id))
        var requests: [LiveBreakRequest] = []
        if let markers = schedule.markerBreak, let pod = pods[markers.id] {
            for marked in content.liveMarkedBreaks where marked.sequence >= firstNew {
                if marked.elapsed > .zero {
                    guard decisions.lastSequence == nil, joinRule == .restOfBreak else {
                        if decisions.lastSequence == nil {
                            notes.append("the break \(marked.marker) marks, under way at segment \(marked.sequence), plays as content (join rule: full breaks only)")
                        }
                        continue
                    }
                }
                requests.append(LiveBreakRequest(
                    id: "\(markers.id)-\(marked.sequence)", startSequence: marked.sequence, duration: marked.duration,
                    ads: Self.filled(pod, slate: slates[markers.id], span: marked.duration), elapsed: marked.elapsed))
            }
        }
        // A dated or inserted break held up by another one starts at the first new segment, or
        // where that break gives the content back.
        for item in schedule.breaks where !opened.contains(item.id) {
            guard case .date(let date) = item.trigger, let pod = pods[item.id],
                  let sequence = content.firstSegment(startingAtOrAfter: date) else { continue }
            if decisions.lastSequence == nil, sequence == content.mediaSequence ?? 0,
               let first = content.segments.first?.programDateTime, first.secondsSinceEpoch > date {
                notes.append("break \(quoted(item.id)) at \(HLSDateTime(secondsSinceEpoch: date)) was before the content's window when the stitcher joined")
                continue
            }
            requests.append(LiveBreakRequest(
                id: item.id, startSequence: max(sequence, firstNew), duration: Self.length(of: pod), ads: pod, waitsForOpenBreak: true))
        }
        for (id, sequence) in await insertions.pending(opened: opened, next: firstNew + (decisions.lastSequence == nil ? UInt64(content.segments.count) : 0)) {
            guard let pod = pods[id] else { continue }
            requests.append(LiveBreakRequest(
                id: "\(id)-\(sequence)", startSequence: max(sequence, firstNew), duration: Self.length(of: pod), ads: pod, waitsForOpenBreak: true))
        }
        return requests
    }

    private static func stitching<T>(_ body: () throws(LiveStitchError) -> T) throws(LiveStitchingError) -> T {
        do { return try body() } catch { throw LiveStitchingError(.stitch(error)) }
    }

    private static func parsing<T>(_ url: String, _ body: () throws(HLSParseError) -> T) throws(LiveStitchingError) -> T {
        do { return try body() } catch { throw LiveStitchingError(.content(url: url, reason: error.description)) }
    }

    /// The most times a slate is repeated in one break: a marker's duration comes from the content,
    /// and a hostile one must not make the pod endless.
    static let maximumSlateRepeats = 10_000

    /// `pod`, then `slate` as many times as it takes to fill `span` (the break cuts the last one
    /// at the span's end); `pod` alone without a slate or a span of known length.
    static func filled(_ pod: [LiveAd], slate: LiveAd?, span: MediaTime?) -> [LiveAd] {
        guard let slate, let span else { return pod }
        let slateLength = length(of: [slate])
        guard slateLength > .zero else { return pod }
        var filled = pod
        var total = length(of: pod)
        while total < span, filled.count - pod.count < maximumSlateRepeats {
            filled.append(slate)
            total += slateLength
        }
        return filled
    }

    private static func length(of pod: [LiveAd]) -> MediaTime {
        pod.reduce(.zero) { $0 + ((try? $1.playlist.totalDuration) ?? .zero) }
    }

    /// Writes break `item`'s asset list for a client starting at its start and for one joining
    /// it under way (`LiveAssetList`).
    private func writeAssetLists(of item: LiveBreak, index: Int, assets: [String: LiveStitcher.InterstitialAsset], outputURL: String) throws(LiveStitchingError) {
        let lists = folder.appending(LiveAssetList.folder)
        do { try FilePath.makeFolder(lists) } catch {
            throw LiveStitchingError(.cannotWrite(path: lists.description, reason: error.reasonText))
        }
        for joined in [false, true] {
            let name = LiveAssetList.path(index: index, id: item.id, joined: joined)
            let file = String(name.prefix { $0 != "?" })
            let text = LiveAssetList.json(
                adIDs: item.adIDs, assets: assets, listURL: URIReference.resolve(file, against: outputURL),
                joining: joined, joinRule: joinRule)
            try write(text, name: file)
        }
    }

    private func write(_ text: String, name: String) throws(LiveStitchingError) {
        let path = folder.appending(name)
        do {
            let file = try AtomicOutputFile(path: path)
            try file.write(Array(text.utf8))
            try file.commit()
        } catch {
            throw LiveStitchingError(.cannotWrite(path: path.description, reason: error.reasonText))
        }
    }
}

/// The on-demand breaks asked for, each from the first segment published after it was (the next
/// new one), until the stitcher has opened it.
private actor Insertions {
    private var asked: [(id: String, sequence: UInt64?)] = []

    func add(_ id: String) { asked.append((id, nil)) }

    /// Each break asked for and not yet opened (`opened` holds `ID-SEQ` once it is), with the
    /// segment it starts at: `next` for one asked since the last load.
    func pending(opened: Set<String>, next: UInt64) -> [(id: String, sequence: UInt64)] {
        asked.removeAll { entry in entry.sequence.map { opened.contains("\(entry.id)-\($0)") } ?? false }
        for index in asked.indices where asked[index].sequence == nil { asked[index].sequence = next }
        return asked.map { ($0.id, $0.sequence ?? next) }
    }
}
