import CompositorCore

/// A content variant and the interstitial variant chosen to play inside it.
package struct HLSVariantMatch: Sendable, Equatable {
    /// Index in the content playlist's `variants`.
    package let contentIndex: Int
    /// Index in the interstitial playlist's `variants`.
    package let interstitialIndex: Int
    package let content: HLSVariantStream
    package let interstitial: HLSVariantStream
}

/// Pairs variants of different multivariant playlists, so a caller can stitch one media playlist
/// per content variant and list them in one multivariant playlist.
package enum HLSVariantMatching {
    /// The index of the variant whose `BANDWIDTH` is nearest `bandwidth`; between two equally near,
    /// the lower bandwidth (never overshoot a rung when it is a tie), then the earlier one.
    /// `nil` when `variants` is empty.
    package static func nearest(toBandwidth bandwidth: UInt64, in variants: [HLSVariantStream]) -> Int? {
        var best: (index: Int, distance: UInt64, bandwidth: UInt64)?
        for (index, variant) in variants.enumerated() {
            let distance = variant.bandwidth > bandwidth ? variant.bandwidth - bandwidth : bandwidth - variant.bandwidth
            if let current = best,
               distance > current.distance || (distance == current.distance && variant.bandwidth >= current.bandwidth) {
                continue
            }
            best = (index, distance, variant.bandwidth)
        }
        return best?.index
    }

    /// For each content variant, in order, the interstitial variant nearest in bandwidth.
    /// Empty when either playlist has no variants.
    ///
    /// Content at 800 k / 2.4 M / 6 M with an ad at 1 M / 3 M pairs 800 k-1 M, 2.4 M-3 M, 6 M-3 M.
    package static func nearestByBandwidth(
        content: HLSMultivariantPlaylist, interstitial: HLSMultivariantPlaylist
    ) -> [HLSVariantMatch] {
        content.variants.enumerated().compactMap { index, variant in
            guard let match = nearest(toBandwidth: variant.bandwidth, in: interstitial.variants) else { return nil }
            return HLSVariantMatch(
                contentIndex: index, interstitialIndex: match, content: variant, interstitial: interstitial.variants[match])
        }
    }
}

/// One stitched media playlist to list in a stitched multivariant playlist.
package struct HLSStitchedVariant: Sendable, Equatable {
    /// The content variant the stitched playlist was made from; its attributes describe it.
    package var content: HLSVariantStream
    /// The interstitial variants stitched into it; they raise `BANDWIDTH` and add `CODECS`.
    package var interstitials: [HLSVariantStream]
    /// Where the stitched media playlist lives.
    package var playlistURL: String

    package init(content: HLSVariantStream, interstitials: [HLSVariantStream], playlistURL: String) {
        self.content = content
        self.interstitials = interstitials
        self.playlistURL = playlistURL
    }
}

extension HLSStitcher {
    /// A multivariant playlist that lists stitched media playlists, one per content variant.
    ///
    /// Each entry keeps the content variant's attributes, except: `BANDWIDTH` becomes the highest of
    /// the content's and its interstitials' (a peak is a peak wherever it plays), `AVERAGE-BANDWIDTH`
    /// is dropped (it depends on how long each plays), `CODECS` lists every codec of the content and
    /// the interstitials, and references to rendition groups (`VIDEO`, quoted `CLOSED-CAPTIONS`)
    /// and `PATHWAY-ID` are dropped, since those renditions and content steering are not stitched.
    /// `AUDIO` and `SUBTITLES` stay where `renditions` (the stitched renditions, listed as
    /// `EXT-X-MEDIA`) has the group.
    package static func multivariantPlaylist(
        for variants: [HLSStitchedVariant], renditions: [HLSRendition] = [], url: String, independentSegments: Bool = false
    ) -> HLSMultivariantPlaylist {
        let audioGroups = Set(renditions.filter { $0.type == "AUDIO" }.map(\.groupID))
        let subtitleGroups = Set(renditions.filter { $0.type == "SUBTITLES" }.map(\.groupID))
        let streams = variants.map { variant -> HLSVariantStream in
            var attributes = variant.content.attributes
            let peak = ([variant.content] + variant.interstitials).map(\.bandwidth).max() ?? variant.content.bandwidth
            attributes["BANDWIDTH"] = .decimalInteger(peak)
            attributes["AVERAGE-BANDWIDTH"] = nil
            var codecs: [String] = []
            for stream in [variant.content] + variant.interstitials {
                for codec in stream.codecs where !codecs.contains(codec) { codecs.append(codec) }
            }
            if !codecs.isEmpty { attributes["CODECS"] = .quotedString(codecs.joined(separator: ",")) }
            for name in ["VIDEO", "PATHWAY-ID"] { attributes[name] = nil }
            if let group = variant.content.audioGroup, !audioGroups.contains(group) { attributes["AUDIO"] = nil }
            if let group = variant.content.subtitlesGroup, !subtitleGroups.contains(group) { attributes["SUBTITLES"] = nil }
            if case .quotedString? = attributes["CLOSED-CAPTIONS"] { attributes["CLOSED-CAPTIONS"] = nil }
            return HLSVariantStream(
                attributes: attributes, uri: URIReference.relativize(variant.playlistURL, from: url),
                resolvedURI: variant.playlistURL)
        }
        return HLSMultivariantPlaylist(url: url, hasIndependentSegments: independentSegments, renditions: renditions, variants: streams)
    }
}
