import CompositorCore
import CompositorHLS

/// Where an HLS export's files go: the stitched playlist's URL, parsed once (RFC 3986), and the
/// URL of every file beside it, named after it:
///
/// ```
/// /srv/out/stitched.m3u8           the output (a media or multivariant playlist)
/// /srv/out/stitched-0.m3u8         variant 0            variant(0)
/// /srv/out/stitched-audio-1.m3u8   audio rendition 1    variant(1, kind: "audio-")
/// /srv/out/stitched-empty.vtt      the empty cues       sibling("-empty.vtt")
/// /srv/out/interstitial-1.json     any other file       beside("interstitial-1.json")
/// ```
///
/// Only the last segment of the URL's path is renamed: a scheme, an authority, dots in folder
/// names, a query or a fragment never are (the files beside it carry no query).
struct HLSOutputLocation: Equatable, Sendable {
    /// The stitched playlist's URL, as given (absolute).
    let url: String
    private let reference: URIReference
    /// The last path segment without its extension (`stitched`), and its extension (`.m3u8`; empty
    /// when the name has none).
    private let stem: String, pathExtension: String

    init(_ url: String) {
        self.url = url
        reference = URIReference(parsing: url)
        let name = reference.path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        if let dot = name.lastIndex(of: "."), dot > name.startIndex {
            (stem, pathExtension) = (String(name[..<dot]), String(name[dot...]))
        } else {
            (stem, pathExtension) = (name, "")
        }
    }

    /// The folder the files are written into, as a URL ending in `/`.
    var folder: String { beside("") }

    /// The URL of the file `name` in the output's folder.
    func beside(_ name: String) -> String {
        var file = reference
        if let slash = file.path.lastIndex(of: "/") {
            file.path = String(file.path[...slash]) + name
        } else {
            file.path = name
        }
        file.query = nil
        file.fragment = nil
        return file.description
    }

    /// `stitched-<kind><index>.m3u8` beside the output (`.m3u8` also when the output has no extension).
    func variant(_ index: Int, kind: String = "") -> String {
        beside(stem + "-\(kind)\(index)" + (pathExtension.isEmpty ? ".m3u8" : pathExtension))
    }

    /// `stitched<suffix>` beside the output.
    func sibling(_ suffix: String) -> String { beside(stem + suffix) }

    /// Where a rendition's stitched playlist goes: `stitched-audio-N.m3u8` or
    /// `stitched-subtitles-N.m3u8`, N counting the renditions of that type in `numbers`.
    func rendition(_ rendition: HLSRendition, numbers: inout [String: Int]) -> String {
        let kind = rendition.type == "AUDIO" ? "audio-" : "subtitles-"
        defer { numbers[kind, default: 0] += 1 }
        return variant(numbers[kind, default: 0], kind: kind)
    }

    /// `rendition` as the playlist at this location lists it, its playlist now at `playlistURL`.
    func relisting(_ rendition: HLSRendition, at playlistURL: String) -> HLSRendition {
        var relisted = rendition
        relisted.attributes["URI"] = .quotedString(URIReference.relativize(playlistURL, from: url))
        relisted.resolvedURI = playlistURL
        return relisted
    }
}
