import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// The ads of a live schedule, each packaged once, before the first break, into the live
/// content's segment format (MPEG-TS or fragmented MP4) and no longer than its target duration,
/// written to `ads/` in the output folder: MP4 ads by passthrough (`ads/NAME-0.ts`, …); an HLS ad
/// plays from its own playlist, which must have the content's segment format and target duration.
/// For the interstitials form, each MP4 ad also gets a playlist of its own (`ads/NAME.m3u8`).
/// In stitched fragmented MP4, each break plays copies of its own on the content's clock
/// (`clock`): only the init segments are written here.
struct LiveAdPackaging {
    /// Each ad of each break, in the break's order, as the stitcher plays it.
    private(set) var pods: [String: [LiveAd]] = [:]
    /// Each break's slate, when it has one.
    private(set) var slates: [String: LiveAd] = [:]
    /// The ads that cannot play in this content (a file missing or unreadable, a playlist that does
    /// not fit), each with why: content always plays, so each is left out of its breaks alone, and
    /// a break left with neither ad nor slate plays as content.
    private(set) var dropped: [LiveStitchingError] = []
    /// Each ad as an interstitial asset, by ad ID: its own playlist (`ads/NAME.m3u8` for an MP4
    /// ad, when `writingPlaylists`), and how long it plays.
    private(set) var assets: [String: LiveStitcher.InterstitialAsset] = [:]
    /// What puts each break's MP4 ads on the content's clock, when `onContentClock`.
    private(set) var clock: LiveAdClock?

    /// Packages every ad of `schedule` and writes the MP4 ones' segments into `folder/ads`.
    ///
    /// - Parameters:
    ///   - schedule: The live schedule.
    ///   - content: The content as first loaded: its segment format and target duration.
    ///   - folder: The output folder; `outputURL` the stitched playlist's URL in it.
    ///   - playlists: Reads an HLS ad's playlist.
    ///   - writingPlaylists: Whether each MP4 ad gets a playlist of its own (for interstitials).
    ///   - onContentClock: Whether, in fragmented MP4 content, breaks play MP4 ads on the
    ///     content's clock (`LiveAdClock`; for the stitched form).
    init(
        _ schedule: LiveSchedule, content: HLSMediaPlaylist, folder: FilePath, outputURL: String, writingPlaylists: Bool = false,
        onContentClock: Bool = false, playlists: (MediaLocation) async throws(LiveStitchingError) -> HLSMediaPlaylist
    ) async throws(LiveStitchingError) {
        let format = content.segments.first.map(HLSSegmentFormat.init(segment:)) ?? .mpegTS
        let container: HLSSegmentContainer = format == .fragmentedMP4 ? .fragmentedMP4 : .mpegTS
        let adsFolder = HLSOutputLocation(URIReference.resolve("ads/ads.m3u8", against: outputURL))
        var stems: Set<String> = []
        var packaged: [HLSPackagedSource] = []
        var adPlaylists: [(name: String, text: String)] = []
        var playing: [Ad: LiveAd] = [:]
        for item in schedule.breaks {
            for ad in item.ads + (item.slate.map { [$0] } ?? []) where playing[ad] == nil {
                // Breaks name their ads by ID (date ranges, asset lists): one ID, one ad.
                if let other = playing.keys.first(where: { $0.id == ad.id }) {
                    throw LiveStitchingError(.ad(item: ad.id, reason: "two ads have this ID (\(other.source.url) and \(ad.source.url)): name them apart"))
                }
                var playlist: HLSMediaPlaylist
                do throws(LiveStitchingError) {
                    if let path = ad.source.filePath, !SourceProbe.isPlaylist(ad.source) {
                        let source: HLSPackagedSource
                        let stem: String
                        (source, playlist, stem) = try Self.package(
                            ad, path: path, container: container, target: content.targetDuration, stems: &stems, folder: adsFolder)
                        packaged.append(source)
                        if writingPlaylists {
                            var own = playlist
                            own.hasEndList = true
                            own.playlistType = .vod
                            adPlaylists.append((stem + ".m3u8", own.text))
                            assets[ad.id] = LiveStitcher.InterstitialAsset(url: adsFolder.beside(stem + ".m3u8"), duration: own.segments.reduce(.zero) { $0 + $1.duration })
                        }
                    } else {
                        playlist = try Self.check(await playlists(ad.source), of: ad, format: format, target: content.targetDuration)
                        assets[ad.id] = LiveStitcher.InterstitialAsset(url: playlist.url, duration: playlist.segments.reduce(.zero) { $0 + $1.duration })
                    }
                } catch {
                    // Once per ad, whichever breaks name it.
                    if !dropped.contains(error) { dropped.append(error) }
                    continue
                }
                playing[ad] = LiveAd(id: ad.id, playlist: playlist)
            }
            let pod = item.ads.compactMap { playing[$0] }
            let slate = item.slate.flatMap { playing[$0] }
            guard !pod.isEmpty || slate != nil else { continue }
            pods[item.id] = pod
            slates[item.id] = slate
        }
        guard !packaged.isEmpty else { return }
        let separately = onContentClock && container == .fragmentedMP4
        if separately {
            clock = LiveAdClock(sources: Dictionary(packaged.map { ($0.item, $0) }) { first, _ in first }, output: folder, outputURL: outputURL)
        }
        do {
            let names = separately ? packaged.compactMap(\.initSegmentName) : packaged.flatMap(\.fileNames)
            let draft = try AtomicOutputFolder.Draft(folder.appending("ads"), names: names + adPlaylists.map(\.name))
            for source in packaged {
                do {
                    if separately { try source.writeInitSegment(into: draft) } else { try source.write(into: draft) }
                } catch {
                    throw LiveStitchingError(.ad(item: source.item, reason: error.description))
                }
            }
            for (name, text) in adPlaylists { try draft.write(Array(text.utf8), name: name) }
            try draft.commit()
        } catch let error as FileError {
            throw LiveStitchingError(.cannotWrite(path: folder.appending("ads").description, reason: error.reasonText))
        } catch let error as LiveStitchingError {
            throw error
        } catch {
            throw LiveStitchingError(.cannotWrite(path: folder.appending("ads").description, reason: "\(error)"))
        }
    }

    /// An MP4 ad packaged by passthrough, the part its `start` and `end` ask for (to the nearest
    /// segment boundary, which the packaging puts at the keyframe next to each).
    private static func package(
        _ ad: Ad, path: FilePath, container: HLSSegmentContainer, target: Int64, stems: inout Set<String>, folder: HLSOutputLocation
    ) throws(LiveStitchingError) -> (HLSPackagedSource, HLSMediaPlaylist, stem: String) {
        let cuts = [ad.start] + (ad.end.map { [$0] } ?? [])
        var source: HLSPackagedSource
        let stem = HLSPackagedSource.stem(for: ad.source, taken: &stems)
        do {
            let packaging = try HLSPackagedSource.packaging(
                of: ad.source, readPath: path, item: ad.id, playlist: nil, container: container, targetDuration: target, cuts: cuts)
            source = try HLSPackagedSource(ad.source, item: ad.id, packaging: packaging, stem: stem, folder: folder)
        } catch {
            throw LiveStitchingError(.ad(item: ad.id, reason: error.description))
        }
        let boundaries = (try? source.playlist.segmentBoundaries) ?? []
        let wanted = MediaTimeRange(start: ad.start, end: ad.end ?? boundaries.last ?? .zero)
        let (first, last) = HLSStitcher.snap(wanted, to: boundaries, rule: .nearest)
        guard first < last else { throw LiveStitchingError(.ad(item: ad.id, reason: "its start and end snap to the same segment boundary: nothing plays")) }
        let longest = source.playlist.segments[first..<last].map(\.duration).max() ?? .zero
        guard longest.wholeSeconds(rounding: .toNearestOrAwayFromZero) <= target else {
            throw LiveStitchingError(.ad(item: ad.id, reason: "a segment of \(longest) s between its keyframes, longer than the content's target duration of \(target) s"))
        }
        source.usedSegments = Array(first..<last)
        var playlist = source.playlist
        playlist.segments = Array(playlist.segments[first..<last])
        return (source, playlist, stem)
    }

    /// An HLS ad as it plays: finished, in the content's segment format, within its target duration.
    private static func check(_ playlist: HLSMediaPlaylist, of ad: Ad, format: HLSSegmentFormat, target: Int64) throws(LiveStitchingError) -> HLSMediaPlaylist {
        guard playlist.isFinite else { throw LiveStitchingError(.ad(item: ad.id, reason: "its playlist is live; an ad is a finished playlist")) }
        guard let first = playlist.segments.first else { throw LiveStitchingError(.ad(item: ad.id, reason: "its playlist has no segments")) }
        let adFormat = HLSSegmentFormat(segment: first)
        guard adFormat == format else {
            throw LiveStitchingError(.ad(item: ad.id, reason: "its segments are \(adFormat), the content's \(format): one playlist cannot carry both"))
        }
        guard playlist.targetDuration <= target else {
            throw LiveStitchingError(.ad(item: ad.id, reason: "its target duration \(playlist.targetDuration) s is longer than the content's \(target) s"))
        }
        return playlist
    }
}
