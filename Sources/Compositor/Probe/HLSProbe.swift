import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// What probing an HLS playlist found.
package struct HLSProbeResult: Sendable, Equatable {
    package enum Kind: Sendable, Equatable { case media, multivariant }

    /// One variant of a multivariant playlist, probed.
    package struct Variant: Sendable, Equatable {
        /// The variant's media playlist URL, resolved.
        package let url: String
        package let bandwidth: UInt64
        /// The exact sum of the variant's `EXTINF` durations.
        package let duration: MediaTime
        package let segmentCount: Int
    }

    package let url: String
    package let kind: Kind
    /// The natural duration: the exact sum of `EXTINF` for a media playlist; for a multivariant
    /// playlist the longest variant's (as an asset's duration is its longest track's).
    package let duration: MediaTime
    /// The probed variants, in playlist order; empty for a media playlist.
    package let variants: [Variant]

    /// Longest minus shortest variant duration: zero when the variants agree, as they should.
    package var variantDurationSpread: MediaTime {
        guard let longest = variants.map(\.duration).max(), let shortest = variants.map(\.duration).min() else { return .zero }
        return longest - shortest
    }

    /// Whether every variant has exactly the same duration.
    package var variantsAgree: Bool { variantDurationSpread.isZero }
}

/// Why an HLS source could not be probed.
package enum HLSProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The playlist may still grow (no `EXT-X-ENDLIST`, not `EXT-X-PLAYLIST-TYPE:VOD`), so it has no
    /// natural duration: it cannot be an ad, nor anything else that needs a finite length.
    case notFinite(url: String, playlistType: HLSPlaylistType?)
    /// The playlist text is not a valid playlist.
    case invalidPlaylist(url: String, HLSParseError)
    /// The playlist could not be read.
    case unreadable(url: String, reason: String)
    /// A multivariant playlist without any `EXT-X-STREAM-INF`.
    case noVariants(url: String)
    /// The durations add up to more than `MediaTime` holds.
    case durationOverflow(url: String, MediaTimeError)
    /// A variant was named, but the playlist has none of that name (`known` lists its variants),
    /// or is a media playlist (`known` is empty).
    case noSuchVariant(url: String, name: String, known: String)
    /// A remote playlist that could not be fetched (the error names the URL without secrets).
    case transport(HTTPTransportError)

    /// The playlist the error is about.
    package var url: String {
        switch self {
        case .notFinite(let url, _), .invalidPlaylist(let url, _), .unreadable(let url, _), .noVariants(let url),
             .durationOverflow(let url, _), .noSuchVariant(let url, _, _):
            return url
        case .transport(let error): return error.url
        }
    }

    /// What is wrong with the playlist, without its URL.
    package var reason: String {
        switch self {
        case .notFinite(_, let type):
            let kind = type == .event ? "an EVENT playlist without EXT-X-ENDLIST" : "a live playlist (no EXT-X-ENDLIST, not PLAYLIST-TYPE VOD)"
            return "\(kind) has no finite duration"
        case .invalidPlaylist(_, let error): return error.description
        case .unreadable(_, let reason): return "cannot read: \(reason)"
        case .noVariants: return "multivariant playlist without variants"
        case .durationOverflow(_, let error): return error.description
        case .noSuchVariant(_, let name, let known): return noSuchVariantReason(name: name, known: known)
        case .transport(let error): return error.reason
        }
    }

    package var description: String { "\(url): \(reason)" }
}

/// Why a source names a variant its playlist does not have; `known` lists the variants there are
/// (empty for a media playlist).
func noSuchVariantReason(name: String, known: String) -> String {
    known.isEmpty
        ? "a media playlist has no variants to choose from, yet variant \(quoted(name)) is named"
        : "no variant \(quoted(name)) (by URI or STABLE-VARIANT-ID); its variants: \(known)"
}

/// A variant named (`MediaLocation.variant`) that a playlist does not have.
struct NoSuchVariant: Error {
    let name: String
    /// The playlist's variants, for the message; empty for a media playlist.
    let known: String
}

extension HLSPlaylist {
    /// The playlist as a source naming the variant `name` plays it: a multivariant playlist of
    /// that variant alone (and the renditions it uses).
    func narrowed(toVariant name: String) throws(NoSuchVariant) -> HLSMultivariantPlaylist {
        guard case .multivariant(var multivariant) = self else { throw NoSuchVariant(name: name, known: "") }
        guard let variant = multivariant.variant(named: name) else { throw NoSuchVariant(name: name, known: multivariant.variantNames) }
        multivariant.variants = [variant]
        return multivariant
    }
}

/// Reads HLS playlists to find their natural durations.
///
/// ```swift
/// let result = try HLSProbe.probe(url: "file:///media/ad/index.m3u8")
/// result.duration        // exact sum of EXTINF, e.g. 15.015
/// ```
package enum HLSProbe {
    /// The natural duration of a media playlist: the exact sum of its `EXTINF` durations. A playlist
    /// that may still grow throws `.notFinite`.
    package static func naturalDuration(of playlist: HLSMediaPlaylist) throws(HLSProbeError) -> MediaTime {
        guard playlist.isFinite else { throw .notFinite(url: playlist.url, playlistType: playlist.playlistType) }
        do { return try playlist.totalDuration } catch { throw .durationOverflow(url: playlist.url, error) }
    }

    /// Loads the playlist at `url` and probes it; for a multivariant playlist, loads and probes every
    /// variant, or only the one named `variant` (I-frame playlists and renditions are not probed).
    package static func probe(url: String, variant: String? = nil, loader: HLSPlaylistLoader = .fileSystem) throws(HLSProbeError) -> HLSProbeResult {
        let playlist = try load(url, loader: loader)
        guard let variant else { return try probe(playlist, loader: loader) }
        let narrowed: HLSMultivariantPlaylist
        do { narrowed = try playlist.narrowed(toVariant: variant) } catch {
            throw .noSuchVariant(url: url, name: error.name, known: error.known)
        }
        return try probe(.multivariant(narrowed), loader: loader)
    }

    /// Probes a parsed playlist; `loader` reads the variants of a multivariant playlist.
    package static func probe(_ playlist: HLSPlaylist, loader: HLSPlaylistLoader = .fileSystem) throws(HLSProbeError) -> HLSProbeResult {
        switch playlist {
        case .media(let media):
            return HLSProbeResult(url: media.url, kind: .media, duration: try naturalDuration(of: media), variants: [])
        case .multivariant(let multivariant):
            guard !multivariant.variants.isEmpty else { throw .noVariants(url: multivariant.url) }
            var variants: [HLSProbeResult.Variant] = []
            // Each distinct URI is read once: variants may share one playlist (a hostile
            // multivariant playlist names one large variant a hundred times).
            var probed: [String: (duration: MediaTime, segmentCount: Int)] = [:]
            for stream in multivariant.variants {
                let url = stream.resolvedURI
                let media: (duration: MediaTime, segmentCount: Int)
                if let known = probed[url] {
                    media = known
                } else {
                    guard case .media(let playlist) = try load(url, loader: loader) else {
                        throw .invalidPlaylist(url: url, HLSParseError(
                            line: nil, lineText: nil, problem: .wrongPlaylistKind(expected: "media", found: "multivariant")))
                    }
                    media = (try naturalDuration(of: playlist), playlist.segments.count)
                    probed[url] = media
                }
                variants.append(HLSProbeResult.Variant(
                    url: url, bandwidth: stream.bandwidth, duration: media.duration, segmentCount: media.segmentCount))
            }
            let longest = variants.map(\.duration).max() ?? .zero
            return HLSProbeResult(url: multivariant.url, kind: .multivariant, duration: longest, variants: variants)
        }
    }

    /// Loads and parses the playlist at `url`; its relative URIs resolve against the URL it was
    /// read from in the end (after redirects).
    package static func load(_ url: String, loader: HLSPlaylistLoader = .fileSystem) throws(HLSProbeError) -> HLSPlaylist {
        let fetched: (bytes: [UInt8], url: String)
        do { fetched = try loader.fetch(url) } catch {
            if let error = error as? HTTPTransportError { throw .transport(error) }
            throw .unreadable(url: url, reason: "\(error)")
        }
        do { return try HLSPlaylistParser(limits: loader.limits).parse(fetched.bytes, url: fetched.url) } catch {
            throw .invalidPlaylist(url: fetched.url, error)
        }
    }
}
